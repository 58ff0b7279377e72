/**
 * The OpenAI Responses API behind the provider seam: `openai({ api: 'responses' })`
 * builds the client and calls `streamResponses` once per turn.
 *
 * Requests are stateless (`store: false`, the full conversation every turn).
 * Reasoning comes back encrypted and is stored in `thinking` blocks signed
 * by `'openai'`, then replayed directly before the item that followed it.
 * Messages and tool calls are sent without item ids (calls pair with their
 * outputs by `call_id`); only reasoning items keep theirs, next to their
 * encrypted content. See `wire.ts` for the replay rules.
 */

import type OpenAI from 'openai'
import type { StreamCallbacks, StreamOptions, TurnResult } from '../../types'
import { JSON_BODY_HEADERS, requestBodyBytes } from '../../shared/body-json'
import { endpointUrl } from '../../transport-errors'
import { classifyResponsesError } from './errors'
import { readResponsesTurn } from './sse-events'
import { buildResponsesRequest } from './wire'

/** Where the client sends a Responses request, under the API root. */
const RESPONSES_PATH = '/responses'
/** The body's lists whose items keep their wire objects from request to request (`./wire.ts`), so their JSON is remembered. */
const WIRE_LISTS = ['input', 'tools']
const STREAMED = { stream: true }

export interface ResponsesSettings {
  /** Names the provider in usage and errors (`'openai'`, or a gateway's name). */
  providerName: string
}

/**
 * Stream one turn. Every failure is thrown as a `ClassifiedError`; content the
 * API cannot take fails with kind `unsupported` before any request is made.
 * The client should be built with `maxRetries: 0`: the agent loop retries.
 */
export async function streamResponses(client: OpenAI, options: StreamOptions, callbacks: StreamCallbacks, settings: ResponsesSettings): Promise<TurnResult> {
  const provider = settings.providerName
  if (options.signal.aborted)
    throw classifyResponsesError(options.signal.reason, provider, options.signal)
  const body = buildResponsesRequest(options, settings)
  try {
    // The body as the SDK would write it, each input item's and tool's JSON made and encoded once
    // (`../../shared/body-json.ts`), sent through the client's own request path (what `responses.create`
    // calls): credentials, headers, errors.
    const bytes = requestBodyBytes(body, WIRE_LISTS, STREAMED)
    const response = await client.post(RESPONSES_PATH, { body: bytes, stream: true, signal: options.signal, headers: JSON_BODY_HEADERS }).asResponse()
    return await readResponsesTurn(response, callbacks, { model: options.model, provider, signal: options.signal })
  }
  catch (error) {
    throw classifyResponsesError(error, provider, options.signal, endpointUrl(client.baseURL, RESPONSES_PATH))
  }
}

export { classifyResponsesError } from './errors'
export { decodeReasoningSignature, encodeReasoningSignature, OPENAI_SIGNATURE_PRODUCER } from './reasoning'
export type { ReasoningFollower, ReasoningSignature } from './reasoning'
export { consumeResponsesStream, responsesFinishReason } from './stream'
export { buildResponsesRequest, producesEncryptedReasoning, RESPONSES_EFFORT, responsesInput, responsesReasoning } from './wire'
export type { ResponsesRequestBody, ResponsesRequestInput } from './wire'
export { responsesCallId } from './wire-content'
export type { ResponsesFunctionTool, ResponsesInputItem } from './wire-types'
