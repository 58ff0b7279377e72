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
 * - a message without data is skipped, any other is parsed as JSON.
 *
 * Where the SDK would fail with an untyped error, the turn gets a typed one
 * (or the message is ignored): a message that is not JSON is a retryable
 * `server` error quoting its start, as on the OpenAI wires (the server broke
 * the stream's format, which a new attempt may not repeat); data that is not
 * an object (`null`, `5`) is no event and is skipped. An `error` message
 * keeps only the error's `type` and `message` as strings, the message cut at
 * `MAX_ERROR_BODY_BYTES` characters like an error status's body: the SDK's
 * `APIError` writes any other shape into its text with `JSON.stringify`, which
 * overflows the stack on a body nested thousands of levels deep, and a
 * `message` that is an object failed the classifier with a `TypeError`.
 */

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { AnthropicTurnReader } from './stream'
import { APIError } from '#anthropic-sdk/error'
import { MAX_ERROR_BODY_BYTES } from '../shared/capped-error-body'
import { notJsonMessageError, readEventStream } from '../shared/event-stream'
import { PROVIDER_NAME } from './errors'

/** Read `response`'s body to its end into `turn`. */
export function readAnthropicBody(response: Response, turn: AnthropicTurnReader): Promise<void> {
  return readEventStream(response.body, (event, data) => {
    if (event === '' || event === 'ping')
      return
    if (event === 'error')
      throw streamedError(data, response.headers)
    if (!data)
      return
    // Parsed here rather than in a helper: this runs for every event of every turn.
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    }
    catch {
      throw notJsonMessageError(PROVIDER_NAME, data)
    }
    if (typeof parsed === 'object' && parsed !== null)
      turn.handle(parsed as RawMessageStreamEvent)
  }, { provider: PROVIDER_NAME })
}

function streamedError(data: string, headers: Headers): APIError {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  }
  catch {
    // Not JSON: the error carries the text as it came (cut).
    return new APIError(undefined, cut(data) as never, undefined, headers)
  }
  const error = (typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined) as { type?: unknown, message?: unknown } | null | undefined
  const type = typeof error?.type === 'string' ? cut(error.type) : undefined
  const message = typeof error?.message === 'string' ? cut(error.message) : 'the stream sent an error event without a readable message'
  const body = { type: 'error', error: { type, message } }
  return new APIError(undefined, body, undefined, headers, type as never)
}

function cut(text: string): string {
  return text.length > MAX_ERROR_BODY_BYTES ? `${text.slice(0, MAX_ERROR_BODY_BYTES)}…` : text
}
