/**
 * One message of a streamed OpenAI body, Chat Completions or Responses, read
 * by the `openai` client's `Stream` rules: nothing after a `[DONE]` line, each
 * message's data is JSON, and a message carrying `error` is thrown as the
 * client's `APIError` so the classifier sees what it always saw. A message
 * that is not JSON is a retryable `server` error quoting its start: the server
 * broke the stream format, which a new attempt may not repeat.
 */

import { APIError } from 'openai'
import { ClassifiedError } from '../../errors'

/** Longest excerpt of an unreadable message quoted in the error. */
const EXCERPT_CHARS = 120

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
    const excerpt = message.length > EXCERPT_CHARS ? `${message.slice(0, EXCERPT_CHARS)}…` : message
    throw new ClassifiedError(`${provider} streamed a message that is not JSON: ${excerpt}`, { kind: 'server', retryable: true, provider })
  }
  const error = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
  if (error)
    throw new APIError(undefined, error as object, undefined, headers)
  return data
}
