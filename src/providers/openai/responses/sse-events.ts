/**
 * The events of a streamed Responses body, read by zidane's event-stream
 * parser (`../../shared/event-stream.ts`: linear in the bytes however they
 * are cut, with a size cap on a line and a message) rather than through the
 * `openai` client's `Stream`, whose line decoder joins and searches the whole
 * pending buffer again on every network read. The rules are the `Stream`'s:
 * nothing after a `[DONE]` line, each message's data is JSON, and a message
 * carrying `error` is thrown as the client's `APIError` so the classifier sees
 * what it always saw. A message that is not JSON is a retryable `server`
 * error quoting its start, as on Chat Completions.
 */

import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { APIError } from 'openai'
import { ClassifiedError } from '../../../errors'
import { readEventData, readEventStream } from '../../shared/event-stream'

/** Longest excerpt of an unreadable message quoted in the error. */
const EXCERPT_CHARS = 120

/** What `eventOf` returns for a message that carries no event. */
const SKIPPED = Symbol('skipped')

/** The events of `response`'s body, in order. `provider` names the server in errors. */
export async function* readResponsesEvents(response: Response, provider: string): AsyncGenerator<ResponseStreamEvent> {
  const state = { done: false }
  for await (const message of readEventData(response.body, { provider })) {
    const event = eventOf(message, provider, state, response.headers)
    if (event !== SKIPPED)
      yield event
  }
}

/**
 * Read `response`'s body to its end with no iterator between the parser and
 * the reader of the events: each network read is parsed and its events
 * handed to `onEvent` at once (the same rules as `readResponsesEvents`).
 */
export function readResponsesBody(response: Response, provider: string, onEvent: (event: ResponseStreamEvent) => void): Promise<void> {
  const state = { done: false }
  return readEventStream(response.body, (_name, message) => {
    const event = eventOf(message, provider, state, response.headers)
    if (event !== SKIPPED)
      onEvent(event)
  }, { provider })
}

/** The event one message carries: nothing for `[DONE]` and what follows it; a message carrying `error` is thrown. */
function eventOf(message: string, provider: string, state: { done: boolean }, headers: Headers): ResponseStreamEvent | typeof SKIPPED {
  if (state.done)
    return SKIPPED
  if (message.startsWith('[DONE]')) {
    state.done = true
    return SKIPPED
  }
  let data: unknown
  try {
    data = JSON.parse(message)
  }
  catch {
    const excerpt = message.length > EXCERPT_CHARS ? `${message.slice(0, EXCERPT_CHARS)}…` : message
    throw new ClassifiedError(`${provider} streamed a message that is not JSON: ${excerpt}`, { kind: 'server', retryable: true, provider })
  }
  const error = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
  if (error)
    throw new APIError(undefined, error as object, undefined, headers)
  return data as ResponseStreamEvent
}
