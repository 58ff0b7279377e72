/**
 * The events of a streamed Responses body, read by zidane's event-stream
 * parser (`../../shared/event-stream.ts`: linear in the bytes however they
 * are cut, with a size cap on a line and a message) rather than through the
 * `openai` client's `Stream`, whose line decoder joins and searches the whole
 * pending buffer again on every network read. Each message is read by the rules
 * both OpenAI wires share (`../../shared/openai-sse-message.ts`).
 */

import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import type { StreamCallbacks, TurnResult } from '../../types'
import type { ResponsesStreamContext } from './stream'
import { readEventStream } from '../../shared/event-stream'
import { NO_DATA, openAIStreamData } from '../../shared/openai-sse-message'
import { ResponsesTurnReader } from './stream'

/** Thrown from the message handler to stop the read once the turn has ended; never leaves this module. */
const TURN_ENDED = Symbol('turnEnded')

/**
 * Read a streamed Responses body up to the response's terminal event and
 * return its turn. Each network read is parsed and its events handed to a
 * `ResponsesTurnReader` at once, with no iterator between the two. The read
 * stops at `response.completed` or `response.incomplete` and the connection is
 * let go: a server that kept the body open after it would otherwise hold the
 * finished turn until a watchdog failed it (30 minutes by default).
 */
export async function readResponsesTurn(response: Response, callbacks: StreamCallbacks, context: ResponsesStreamContext): Promise<TurnResult> {
  const turn = new ResponsesTurnReader(callbacks, context)
  const state = { done: false }
  try {
    await readEventStream(response.body, (_name, message) => {
      const event = openAIStreamData(message, context.provider, state, response.headers)
      if (event === NO_DATA)
        return
      turn.handle(event as ResponseStreamEvent)
      if (turn.ended)
        throw TURN_ENDED
    }, { provider: context.provider })
  }
  catch (error) {
    if (error !== TURN_ENDED)
      throw error
  }
  return turn.finish()
}
