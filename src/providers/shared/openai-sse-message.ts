/**
 * One message of a streamed OpenAI body, Chat Completions or Responses, read
 * by the `openai` client's `Stream` rules: nothing after a `[DONE]` line, each
 * message's data is JSON, and a message carrying `error` is thrown as the
 * client's `APIError` so the classifier sees what it always saw. A message
 * that is not JSON is a retryable `server` error quoting its start: the server
 * broke the stream format, which a new attempt may not repeat.
 */

import { APIError } from 'openai'
import { clipEcho } from '../../text/clip-echo'
import { notJsonMessageError } from './event-stream'
import { refuseOverDeepValue } from './over-deep'

/** What `openAIStreamData` returns for a message that carries no data. */
export const NO_DATA = Symbol('noData')

/** Whether the body's `[DONE]` line was read. */
export interface OpenAIStreamState {
  done: boolean
}

/** The parsed data of one message: `NO_DATA` for `[DONE]` and what follows it. */
export function openAIStreamData(message: string, provider: string, state: OpenAIStreamState, headers: Headers): unknown {
  if (state.done)
    return NO_DATA
  if (message.startsWith('[DONE]')) {
    state.done = true
    return NO_DATA
  }
  let data: unknown
  try {
    data = JSON.parse(message)
  }
  catch {
    throw notJsonMessageError(provider, message)
  }
  const error = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
  if (error) {
    // The client's error builds its message with `JSON.stringify` of what came: past the depth cap that
    // overflows the stack, and a message of megabytes would be carried whole.
    refuseOverDeepValue(error, provider, 'an error')
    throw new APIError(undefined, withReadableMessage(error) as object, undefined, headers)
  }
  return data
}

/** The most of a streamed error's message kept (UTF-16 units). */
const MAX_ERROR_MESSAGE_CHARS = 4096

/**
 * `error` as the client's `APIError` should take it: its text (a string
 * `message`, else what the client writes, the message or the whole error as
 * JSON) over `MAX_ERROR_MESSAGE_CHARS` is cut, with a note of its length.
 * Otherwise `error` itself. An error that was a string, a list or an object
 * without a string message of megabytes became the error's text whole.
 */
function withReadableMessage(error: unknown): unknown {
  const record = typeof error === 'object' && error !== null && !Array.isArray(error) ? error as { message?: unknown } : undefined
  const message = record?.message
  // The client's own rule: a truthy `message` is the text (written as JSON unless a string), else the whole error.
  const text = typeof message === 'string' && message ? message : JSON.stringify(message || error)
  if (typeof text !== 'string' || text.length <= MAX_ERROR_MESSAGE_CHARS)
    return error
  const cut = clipEcho(text, MAX_ERROR_MESSAGE_CHARS)
  return record ? Object.assign({}, record, { message: cut }) : { message: cut }
}
