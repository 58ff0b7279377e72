/**
 * Decisions on Chat Completions: `response_format: { type: 'json_schema',
 * strict: true }`, the constrained-decoding mode OpenAI, OpenRouter, Cerebras
 * and the common self-hosted servers (vLLM, llama.cpp, Ollama, LM Studio)
 * share; the answer object is the message text. The request is streamed like
 * a turn, so usage (and OpenRouter's reported cost) arrives the same way.
 */

import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import type { DecisionCall, DecisionReply, ProviderDecisions } from '../../decisions/types'
import type { ThinkingLevel } from '../thinking'
import type { ChatDialect } from './dialect'
import { mergeObjects } from '../../core/merge-objects'
import { clientBuilds, textReply } from '../shared/decision-reply'
import { endpointUrl } from '../transport-errors'
import { classifyChatError } from './errors'
import { readChatTurn } from './sse-chunks'
import { buildChatRequest } from './wire'

/** How one Chat Completions API takes a decision call, beyond its dialect. */
export interface ChatDecisionSettings {
  /**
   * The thinking level of decision calls. Default `'off'` (no reasoning field);
   * OpenAI passes `'minimal'`, fitted to the weakest effort each model accepts,
   * since its reasoning models reason at `medium` when told nothing.
   */
  thinking?: ThinkingLevel
  /** Fields added to every decision request (OpenRouter: route only to upstreams that honor `response_format`). */
  extraBody?: Readonly<Record<string, unknown>>
}

/** The schema's name on the wire. */
const SCHEMA_NAME = 'decision_answers'

function IGNORE() {}

/** The `decisions` capability of a Chat Completions provider, on its lazily built client. */
export function chatDecisions(client: () => OpenAI, dialect: ChatDialect, defaultModel: string, settings: ChatDecisionSettings = {}): ProviderDecisions {
  return {
    defaultModel,
    canAnswer: () => clientBuilds(client),
    decide: call => decideOnChat(client, call, dialect, settings),
  }
}

async function decideOnChat(client: () => OpenAI, call: DecisionCall, dialect: ChatDialect, settings: ChatDecisionSettings): Promise<DecisionReply> {
  let baseURL: string | undefined
  const classify = (error: unknown) => classifyChatError(error, { provider: dialect.providerName, signal: call.signal, url: endpointUrl(baseURL, '/chat/completions') })
  if (call.signal.aborted)
    throw classify(call.signal.reason)
  const body = mergeObjects(buildChatRequest({ model: call.model, system: call.system, messages: call.messages, tools: [], thinking: settings.thinking ?? 'off', maxTokens: call.maxTokens, cache: false }, dialect), { response_format: { type: 'json_schema', json_schema: { name: SCHEMA_NAME, strict: true, schema: call.schema } } }, settings.extraBody)
  try {
    const api = client()
    baseURL = api.baseURL
    const response = await api.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, { signal: call.signal }).asResponse()
    const turn = await readChatTurn(response, { onText: IGNORE, onThinking: IGNORE }, { model: call.model, providerName: dialect.providerName, usageFields: dialect.usageFields })
    const usage = { input: turn.usage.input + (turn.usage.cacheRead ?? 0) + (turn.usage.cacheCreation ?? 0), output: turn.usage.output, ...(turn.usage.cost === undefined ? {} : { cost: turn.usage.cost }) }
    const model = turn.usage.modelId ?? call.model
    const text = turn.content.map(block => block.type === 'text' ? block.text : '').join('')
    return { body: textReply(text, turn.finishReason), model, usage, ...(turn.responseId === undefined ? {} : { id: turn.responseId }) }
  }
  catch (error) {
    throw classify(error)
  }
}
