/**
 * Request checks the real APIs make and the fake servers do not: a body with
 * a lone surrogate (an unpaired `\ud800`–`\udfff` escape in the JSON text) and
 * tool-call ids outside the API's pattern or length are answered with a 400
 * in the API's own error shape. Used as a fake server's `fallback`, with the
 * scripted answers queued here instead of on the server, so that every
 * request passes the check first.
 */

import type { FakeResponse } from './fake-anthropic'
import type { FakeOpenAIResponse } from './fake-openai'
import type { RecordedRequest } from './scripted-server'

/**
 * The path of the first string or key that is not well-formed UTF-16, or
 * `undefined`. The server parsed the JSON text, so a lone surrogate here is
 * exactly an unpaired surrogate escape in the raw body (raw UTF-8 cannot hold one).
 */
export function loneSurrogateAt(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'string')
    return isWellFormed(value) ? undefined : path
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], `${path}[${i}]`)
      if (found)
        return found
    }
    return undefined
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (!isWellFormed(key))
        return `${path} (a key)`
      const found = loneSurrogateAt(inner, `${path}.${key}`)
      if (found)
        return found
    }
  }
  return undefined
}

function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed: () => boolean }).isWellFormed()
}

/** A queue of scripted answers behind a check: a request the check refuses gets its answer instead. */
export interface CheckedScript<R> {
  enqueue: (...responses: R[]) => void
  /** Pass as the fake server's `fallback`. */
  fallback: (request: RecordedRequest) => R
  /** The refusals sent so far, in order. */
  refusals: R[]
}

function checkedScript<R>(check: (request: RecordedRequest) => R | undefined, empty: R): CheckedScript<R> {
  const queue: R[] = []
  const refusals: R[] = []
  return {
    enqueue: (...responses) => {
      queue.push(...responses)
    },
    fallback: (request) => {
      const refusal = check(request)
      if (refusal) {
        refusals.push(refusal)
        return refusal
      }
      return queue.shift() ?? empty
    },
    refusals,
  }
}

const ANTHROPIC_ID = /^[\w-]+$/

/** The Messages API's checks: well-formed text, and `tool_use` / `tool_result` ids of `[a-zA-Z0-9_-]`, 64 at most. */
export function strictAnthropic(): CheckedScript<FakeResponse> {
  const invalid = (message: string): FakeResponse => ({ type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } })
  return checkedScript<FakeResponse>((request) => {
    const broken = loneSurrogateAt(request.body)
    if (broken)
      return invalid(`The request body is not valid JSON: no low surrogate in string (at ${broken})`)
    const messages = Array.isArray(request.body?.messages) ? request.body.messages as Array<{ content?: unknown }> : []
    for (const [m, message] of messages.entries()) {
      const blocks = Array.isArray(message.content) ? message.content as Array<Record<string, unknown>> : []
      for (const [b, block] of blocks.entries()) {
        const field = block.type === 'tool_use' ? 'id' : block.type === 'tool_result' ? 'tool_use_id' : undefined
        const id = field && block[field]
        if (field && (typeof id !== 'string' || !ANTHROPIC_ID.test(id) || id.length > 64))
          return invalid(`messages.${m}.content.${b}.${block.type}.${field}: String should match pattern '^[a-zA-Z0-9_-]+$'`)
      }
    }
    return undefined
  }, { type: 'error', status: 500, body: { type: 'error', error: { type: 'api_error', message: 'strict fake: no scripted response left' } } })
}

/** OpenAI's checks: well-formed text, call ids of at most 40 (Chat Completions) or 64 (Responses) characters. */
export function strictOpenAI(): CheckedScript<FakeOpenAIResponse> {
  const invalid = (message: string, param: string | null = null): FakeOpenAIResponse => ({ type: 'error', status: 400, body: { error: { message, type: 'invalid_request_error', param, code: null } } })
  return checkedScript<FakeOpenAIResponse>((request) => {
    const broken = loneSurrogateAt(request.body)
    if (broken)
      return invalid(`We could not parse the JSON body of your request (a lone surrogate at ${broken}).`)
    for (const [param, id, limit] of callIds(request.body)) {
      if (id.length > limit)
        return invalid(`Invalid '${param}': string too long. Expected a string with maximum length ${limit}, but got a string with length ${id.length} instead.`, param)
    }
    return undefined
  }, { type: 'error', status: 500 })
}

function callIds(body: any): Array<[string, string, number]> {
  const ids: Array<[string, string, number]> = []
  if (Array.isArray(body?.messages)) {
    for (const [m, message] of (body.messages as any[]).entries()) {
      for (const [c, call] of (message.tool_calls ?? []).entries())
        ids.push([`messages[${m}].tool_calls[${c}].id`, String(call.id), 40])
      if (message.role === 'tool')
        ids.push([`messages[${m}].tool_call_id`, String(message.tool_call_id), 40])
    }
  }
  if (Array.isArray(body?.input)) {
    for (const [i, item] of (body.input as any[]).entries()) {
      if (item.call_id !== undefined)
        ids.push([`input[${i}].call_id`, String(item.call_id), 64])
    }
  }
  return ids
}
