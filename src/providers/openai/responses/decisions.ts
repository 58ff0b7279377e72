/**
 * Decisions on the Responses API: `text.format: { type: 'json_schema',
 * strict: true }`, so the answer object is the output text, decoded against
 * the schema. Reasoning models get the weakest effort they accept (they
 * reason at `medium` when told nothing, which a classification does not need).
 */

import type OpenAI from 'openai'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import type { DecisionCall, DecisionReply, ProviderDecisions } from '../../../decisions/types'
import { mergeObjects } from '../../../core/merge-objects'
import { clientBuilds, textReply } from '../../shared/decision-reply'
import { endpointUrl } from '../../transport-errors'
import { classifyResponsesError } from './errors'
import { readResponsesTurn } from './sse-events'
import { buildResponsesRequest } from './wire'

function IGNORE() {}

/** The `decisions` capability of a Responses provider, on its lazily built client. */
export function responsesDecisions(client: () => OpenAI, providerName: string, defaultModel: string): ProviderDecisions {
  return {
    defaultModel,
    canAnswer: () => clientBuilds(client),
    decide: call => decideOnResponses(client, call, providerName),
  }
}

async function decideOnResponses(client: () => OpenAI, call: DecisionCall, provider: string): Promise<DecisionReply> {
  if (call.signal.aborted)
    throw classifyResponsesError(call.signal.reason, provider, call.signal)
  const { input, include: _include, ...rest } = buildResponsesRequest(
    { model: call.model, system: call.system, messages: call.messages, tools: [], thinking: 'minimal', maxTokens: call.maxTokens },
    { providerName: provider },
  )
  let api: OpenAI | undefined
  try {
    api = client()
    const response = await api.responses.create(
      mergeObjects(rest, { input: input as ResponseInputItem[], text: { format: { type: 'json_schema', name: 'decision_answers', strict: true, schema: call.schema } }, stream: true }),
      { signal: call.signal },
    ).asResponse()
    const turn = await readResponsesTurn(response, { onText: IGNORE, onThinking: IGNORE }, { model: call.model, provider, signal: call.signal })
    const usage = { input: turn.usage.input + (turn.usage.cacheRead ?? 0) + (turn.usage.cacheCreation ?? 0), output: turn.usage.output, ...(turn.usage.cost === undefined ? {} : { cost: turn.usage.cost }) }
    const text = turn.content.map(block => block.type === 'text' ? block.text : '').join('')
    return { body: textReply(text, turn.finishReason), model: turn.usage.modelId ?? call.model, usage, ...(turn.responseId === undefined ? {} : { id: turn.responseId }) }
  }
  catch (error) {
    throw classifyResponsesError(error, provider, call.signal, api && endpointUrl(api.baseURL, '/responses'))
  }
}
