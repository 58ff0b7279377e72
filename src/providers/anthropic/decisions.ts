/**
 * Decisions on the Messages API: the answer object is the input of one tool
 * the request forces (`tool_choice: { type: 'tool' }`), which is the API's
 * reliable structured mode on every Claude model. No thinking (a forced tool
 * choice refuses it, and a short classification does not need it), no cache
 * breakpoints (a one-off call would pay for a cache write it never reads).
 */

import type { DecisionCall, DecisionReply, ProviderDecisions } from '../../decisions/types'
import type { ToolCall } from '../types'
import type { AnthropicClient } from './client'
import { clientBuilds } from '../shared/decision-reply'
import { invalidToolInput } from '../tool-json'
import { endpointUrl } from '../transport-errors'
import { readAnthropicBody } from './body-events'
import { classifyAnthropicError } from './errors'
import { AnthropicTurnReader } from './stream'
import { buildAnthropicRequest } from './wire'

/** The tool whose input is the answer object. */
export const ANTHROPIC_DECISION_TOOL = 'record_answers'

function IGNORE() {}

const encoder = new TextEncoder()

/** How `anthropic()` builds its client: the settings at once (they throw when a client cannot be built), the client itself on first use. */
export interface AnthropicClientSource {
  settings: () => unknown
  client: () => Promise<AnthropicClient>
}

/** The `decisions` capability of `anthropic()`, on that provider's lazily built client. */
export function anthropicDecisions(source: AnthropicClientSource, defaultModel: string, extraBetas: readonly string[]): ProviderDecisions {
  return {
    defaultModel,
    canAnswer: () => clientBuilds(source.settings),
    decide: call => decideOnAnthropic(source.client, call, extraBetas),
  }
}

async function decideOnAnthropic(getClient: () => Promise<AnthropicClient>, call: DecisionCall, extraBetas: readonly string[]): Promise<DecisionReply> {
  if (call.signal.aborted)
    throw classifyAnthropicError(call.signal.reason, call.signal)
  const { body, betas } = buildAnthropicRequest({
    model: call.model,
    system: call.system,
    messages: call.messages,
    tools: [{ name: ANTHROPIC_DECISION_TOOL, description: 'Record the answer to every question.', inputSchema: call.schema }],
    thinking: 'off',
    effortHint: false,
    maxTokens: call.maxTokens,
    cache: false,
  })
  const allBetas = [...new Set([...extraBetas, ...betas])]
  let api: AnthropicClient | undefined
  try {
    api = await getClient()
    // Sent and read as a turn is (`index.ts`): the body is read by zidane's event-stream parser, under its size caps.
    const request = Object.assign({}, body, { tool_choice: { type: 'tool' as const, name: ANTHROPIC_DECISION_TOOL, disable_parallel_tool_use: true }, stream: true as const })
    const response = await api.streamMessages(encoder.encode(JSON.stringify(request)), call.signal, allBetas.length > 0 ? { 'anthropic-beta': allBetas.join(',') } : undefined)
    const reader = new AnthropicTurnReader({ onText: IGNORE, onThinking: IGNORE }, { model: call.model, cacheTtl: '5m' })
    await readAnthropicBody(response, reader)
    const turn = reader.finish()
    const usage = { input: turn.usage.input + (turn.usage.cacheRead ?? 0) + (turn.usage.cacheCreation ?? 0), output: turn.usage.output, ...(turn.usage.cost === undefined ? {} : { cost: turn.usage.cost }) }
    const model = turn.usage.modelId ?? call.model
    const id = turn.responseId === undefined ? {} : { id: turn.responseId }
    const tool = turn.toolCalls.find((candidate: ToolCall) => candidate.name === ANTHROPIC_DECISION_TOOL)
    if (turn.finishReason === 'content-filter')
      return { body: { type: 'refusal', message: 'the model declined to answer (stop_reason: refusal)' }, model, usage, ...id }
    if (turn.finishReason === 'length')
      return { body: { type: 'malformed', message: 'the answer was cut off at the output-token limit' }, model, usage, ...id }
    if (!tool)
      return { body: { type: 'malformed', message: `the model did not call ${ANTHROPIC_DECISION_TOOL}` }, model, usage, ...id }
    if (invalidToolInput(tool.input))
      return { body: { type: 'malformed', message: `the arguments of ${ANTHROPIC_DECISION_TOOL} were not valid JSON` }, model, usage, ...id }
    return { body: { type: 'answers', value: tool.input }, model, usage, ...id }
  }
  catch (error) {
    throw classifyAnthropicError(error, call.signal, api && endpointUrl(api.baseURL, '/v1/messages'))
  }
}
