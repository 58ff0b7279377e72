/**
 * A streamed Messages response body, read by zidane's event-stream parser
 * (`../shared/event-stream.ts`) and handed to a turn reader event by event,
 * with no iterator between them. The rules are the SDK `Stream`'s, so a body
 * reads as it did through the SDK:
 *
 * - `ping` messages and messages without an `event:` name are skipped;
 * - an `error` message is thrown as the SDK's `APIError`, carrying the error
 *   body and its type, so `classifyAnthropicError` sees what it always saw
 *   (an `overloaded_error` mid-stream stays retryable);
 * - a message without data is skipped, any other is parsed as JSON (a
 *   message that is not JSON throws the parse error).
 */

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { AnthropicTurnReader } from './stream'
import { APIError } from '#anthropic-sdk/error'
import { readEventStream } from '../shared/event-stream'
import { PROVIDER_NAME } from './errors'

/** Read `response`'s body to its end into `turn`. */
export function readAnthropicBody(response: Response, turn: AnthropicTurnReader): Promise<void> {
  return readEventStream(response.body, (event, data) => {
    if (event === '' || event === 'ping')
      return
    if (event === 'error')
      throw streamedError(data, response.headers)
    if (data)
      turn.handle(JSON.parse(data) as RawMessageStreamEvent)
  }, { provider: PROVIDER_NAME })
}

function streamedError(data: string, headers: Headers): APIError {
  let body: unknown = data
  try {
    body = JSON.parse(data)
  }
  catch {
    // Not JSON: the error carries the text as it came.
  }
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type
  return new APIError(undefined, body as object, undefined, headers, typeof type === 'string' ? type as never : undefined)
}
