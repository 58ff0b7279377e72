/**
 * A local stand-in for OpenAI-style APIs: a real `node:http` server on
 * 127.0.0.1 that answers `POST /v1/chat/completions` with scripted Chat
 * Completions streams and `POST /v1/responses` with scripted SSE event lists,
 * or with errors, and records every request. One queue serves both routes, in
 * order. Point a provider at it with `openai({ baseURL: fake.url, apiKey: 'test-key' })`
 * (or `openaiCompat`, `openrouter`, `cerebras`): `url` already ends in `/v1`.
 *
 * Free of test-runner imports, so a benchmark can run it in a child process.
 */

import type { ServerResponse } from 'node:http'
import type { ScriptedChatTurn } from './openai-chunks'
import type { RecordedRequest, ScriptedServer } from './scripted-server'
import { chatChunks, dataFrame } from './openai-chunks'
import { startScriptedServer, writeEventStream, writeJsonError } from './scripted-server'

export { chatChunks, chatSse } from './openai-chunks'
export type { ScriptedChatToolCall, ScriptedChatTurn, ScriptedChatUsage } from './openai-chunks'

export type { RecordedRequest } from './scripted-server'

/** One raw SSE frame; `data` is serialized as JSON unless it is a string. */
export interface RawSseEvent {
  event?: string
  data: unknown
}

export type FakeOpenAIResponse
  = | { type: 'turn', turn: ScriptedChatTurn, delayMs?: number }
  /** A JSON error. `body` defaults to `{ error: { message, type, param, code } }` for the status. */
    | { type: 'error', status: number, headers?: Record<string, string>, body?: unknown }
  /** The first `afterChunks` chunks of the turn (default 2), then an error chunk, then the response ends. */
    | { type: 'mid-stream-error', turn: ScriptedChatTurn, error: { message: string, type?: string, code?: string | number }, afterChunks?: number }
  /** Accepts the request and never answers. */
    | { type: 'stall-before-headers' }
  /** Sends the first `chunks` chunks of the turn, then goes silent with the connection open. */
    | { type: 'stall-after', turn: ScriptedChatTurn, chunks: number }
  /**
   * Any chunk list, for shapes a scripted turn cannot express. `done: false`
   * ends the body without `data: [DONE]`; `drop: true` also leaves out the end
   * of the body and resets the connection instead, as a dropped socket does.
   */
    | { type: 'chunks', chunks: unknown[], done?: boolean, drop?: boolean }
  /** Any SSE frames, `event:` lines included when given: the Responses API's streams. */
    | { type: 'sse', events: RawSseEvent[] }

/** The server; `url` ends in `/v1`, as the `openai` client expects. */
export type FakeOpenAI = ScriptedServer<FakeOpenAIResponse>

export interface FakeOpenAIOptions {
  /** Answers requests once the queue is empty. Without it an empty queue answers 500. */
  fallback?: (request: RecordedRequest) => FakeOpenAIResponse
}

const ROUTES = new Set(['/v1/chat/completions', '/v1/responses'])

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout',
  429: 'rate_limit_exceeded',
}

const CHAT_ONLY: ReadonlySet<string> = new Set(['turn', 'chunks', 'mid-stream-error', 'stall-after'])

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  return startScriptedServer<FakeOpenAIResponse>({
    name: 'fake-openai',
    urlPath: '/v1',
    routes: request => request.method === 'POST' && ROUTES.has(routeOf(request)),
    fallback: options.fallback,
    mismatch: (request, response) => routeOf(request) === '/v1/responses' && CHAT_ONLY.has(response.type)
      ? `a Chat Completions response (${response.type}) was scripted for /v1/responses`
      : undefined,
    writeError: (res, status, message) => writeJsonError(res, status, errorBody(status, message)),
    respond,
  })
}

function routeOf(request: RecordedRequest): string {
  return request.path.split('?')[0]
}

function respond(res: ServerResponse, response: FakeOpenAIResponse, request: RecordedRequest, later: (ms: number, send: () => void) => void): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : undefined
  const chunksOf = (turn: ScriptedChatTurn) => chatChunks(turn, undefined, model)
  switch (response.type) {
    case 'turn':
      later(response.delayMs ?? 0, () => writeFrames(res, [...chunksOf(response.turn).map(dataFrame), ...(response.turn.done === false ? [] : [dataFrame('[DONE]')])], true))
      return
    case 'error':
      writeJsonError(res, response.status, response.body ?? errorBody(response.status, `fake-openai: scripted ${response.status}`), response.headers)
      return
    case 'mid-stream-error': {
      const head = chunksOf(response.turn).slice(0, response.afterChunks ?? 2)
      // OpenRouter's shape: the error rides on a chunk whose choice finishes with `error`.
      const failure = { id: 'chatcmpl-fake-1', object: 'chat.completion.chunk', created: 1_700_000_000, model, error: response.error, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }
      writeFrames(res, [...head, failure].map(dataFrame), true)
      return
    }
    case 'stall-before-headers':
      return
    case 'stall-after':
      writeFrames(res, chunksOf(response.turn).slice(0, response.chunks).map(dataFrame), false)
      return
    case 'chunks':
      if (response.drop) {
        writeFrames(res, response.chunks.map(dataFrame), false)
        // Let the frames leave before the reset, so the client reads them and then loses the socket.
        later(20, () => res.socket?.resetAndDestroy())
        return
      }
      writeFrames(res, [...response.chunks.map(dataFrame), ...(response.done === false ? [] : [dataFrame('[DONE]')])], true)
      return
    case 'sse':
      writeFrames(res, response.events.map(event => `${event.event ? `event: ${event.event}\n` : ''}${dataFrame(event.data)}`), true)
  }
}

function writeFrames(res: ServerResponse, frames: string[], end: boolean): void {
  writeEventStream(res, frames, end, { 'x-request-id': 'req_fake' })
}

function errorBody(status: number, message: string): unknown {
  const type = ERROR_TYPE_BY_STATUS[status] ?? 'server_error'
  return { error: { message, type, param: null, code: type } }
}
