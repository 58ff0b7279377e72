/**
 * The events of a streamed Responses body, read by zidane's event-stream
 * parser (`../../shared/event-stream.ts`: linear in the bytes however they
 * are cut, with a size cap on a line and a message) rather than through the
 * `openai` client's `Stream`, whose line decoder joins and searches the whole
 * pending buffer again on every network read. Each message is read by the rules
 * both OpenAI wires share (`../../shared/openai-sse-message.ts`).
 */

import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { readEventData, readEventStream } from '../../shared/event-stream'
import { NO_DATA, openAIStreamData } from '../../shared/openai-sse-message'

/** The events of `response`'s body, in order. `provider` names the server in errors. */
export async function* readResponsesEvents(response: Response, provider: string): AsyncGenerator<ResponseStreamEvent> {
  const state = { done: false }
  for await (const message of readEventData(response.body, { provider })) {
    const event = openAIStreamData(message, provider, state, response.headers)
    if (event !== NO_DATA)
      yield event as ResponseStreamEvent
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
    const event = openAIStreamData(message, provider, state, response.headers)
    if (event !== NO_DATA)
      onEvent(event as ResponseStreamEvent)
  }, { provider })
}
