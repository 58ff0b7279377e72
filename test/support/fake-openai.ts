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

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ScriptedChatTurn } from './openai-chunks'
import { createServer } from 'node:http'
import { chatChunks, dataFrame } from './openai-chunks'

export { chatChunks, chatSse } from './openai-chunks'
export type { ScriptedChatToolCall, ScriptedChatTurn, ScriptedChatUsage } from './openai-chunks'

export interface RecordedRequest {
  method: string
  path: string
  /** Lower-case names. */
  headers: Record<string, string>
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any
}

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
  /** Any chunk list, for shapes a scripted turn cannot express. */
    | { type: 'chunks', chunks: unknown[], done?: boolean }
  /** Any SSE frames, `event:` lines included when given: the Responses API's streams. */
    | { type: 'sse', events: RawSseEvent[] }

export interface FakeOpenAI {
  /** Base URL ending in `/v1`, as the `openai` client expects. */
  url: string
  requests: RecordedRequest[]
  enqueue: (...responses: FakeOpenAIResponse[]) => void
  /** Responses left in the queue. */
  pending: () => number
  /** Stops the server and destroys every open connection, stalled ones included. */
  close: () => Promise<void>
}

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

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeOpenAIResponse[] = []
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()

  const server = createServer((req, res) => {
    readBody(req).then((text) => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: flattenHeaders(req.headers),
        body: parseJson(text),
      }
      requests.push(recorded)
      const route = recorded.path.split('?')[0]
      if (recorded.method !== 'POST' || !ROUTES.has(route)) {
        writeError(res, { type: 'error', status: 404, body: errorBody(404, `fake-openai: no route for ${recorded.method} ${recorded.path}`) })
        return
      }
      const response = queue.shift() ?? options.fallback?.(recorded)
      if (!response) {
        writeError(res, { type: 'error', status: 500, body: errorBody(500, `fake-openai: no scripted response left for ${recorded.method} ${recorded.path}`) })
        return
      }
      if (route === '/v1/responses' && (response.type === 'turn' || response.type === 'chunks' || response.type === 'mid-stream-error' || response.type === 'stall-after')) {
        writeError(res, { type: 'error', status: 500, body: errorBody(500, `fake-openai: a Chat Completions response (${response.type}) was scripted for /v1/responses`) })
        return
      }
      respond(res, response, recorded, timers)
    }, () => res.destroy())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (!address || typeof address === 'string')
    throw new Error('fake-openai: could not read the listening port')

  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses)
    },
    pending: () => queue.length,
    close: async () => {
      for (const timer of timers)
        clearTimeout(timer)
      timers.clear()
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      for (const socket of sockets)
        socket.destroy()
      await closed
    },
  }
}

function respond(res: ServerResponse, response: FakeOpenAIResponse, request: RecordedRequest, timers: Set<NodeJS.Timeout>): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : undefined
  const chunksOf = (turn: ScriptedChatTurn) => chatChunks(turn, undefined, model)
  switch (response.type) {
    case 'turn': {
      const send = () => writeFrames(res, [...chunksOf(response.turn).map(dataFrame), ...(response.turn.done === false ? [] : [dataFrame('[DONE]')])], true)
      if (!response.delayMs) {
        send()
        return
      }
      const timer = setTimeout(() => {
        timers.delete(timer)
        send()
      }, response.delayMs)
      timers.add(timer)
      return
    }
    case 'error':
      writeError(res, response)
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
      writeFrames(res, [...response.chunks.map(dataFrame), ...(response.done === false ? [] : [dataFrame('[DONE]')])], true)
      return
    case 'sse':
      writeFrames(res, response.events.map(event => `${event.event ? `event: ${event.event}\n` : ''}${dataFrame(event.data)}`), true)
  }
}

function writeFrames(res: ServerResponse, frames: string[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_fake' })
  // Flush the headers even when no frame follows, so a stalled stream has visibly started.
  res.flushHeaders()
  for (const frame of frames)
    res.write(frame)
  if (end)
    res.end()
}

function writeError(res: ServerResponse, response: Extract<FakeOpenAIResponse, { type: 'error' }>): void {
  const body = response.body ?? errorBody(response.status, `fake-openai: scripted ${response.status}`)
  res.writeHead(response.status, { 'content-type': 'application/json', ...response.headers })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

function errorBody(status: number, message: string): unknown {
  const type = ERROR_TYPE_BY_STATUS[status] ?? 'server_error'
  return { error: { message, type, param: null, code: type } }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  }
  catch {
    return text
  }
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}
