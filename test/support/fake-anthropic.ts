/**
 * A local stand-in for the Anthropic Messages API: a real `node:http` server
 * on 127.0.0.1 that answers `POST /v1/messages` with scripted SSE streams or
 * errors, and records every request. Point the provider at it with
 * `anthropic({ baseURL: fake.url, apiKey: 'test-key' })`.
 *
 * Free of test-runner imports, so a benchmark can run it in a child process.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ScriptedAnthropicTurn, SseEvent } from './sse'
import { createServer } from 'node:http'
import { anthropicEvents, sseFrame } from './sse'

export { anthropicSse } from './sse'
export type { ScriptedAnthropicTurn } from './sse'

export interface RecordedRequest {
  method: string
  path: string
  /** Lower-case names. */
  headers: Record<string, string>
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any
}

export type FakeResponse
  = | { type: 'turn', turn: ScriptedAnthropicTurn, delayMs?: number }
  /** A JSON error. `body` defaults to Anthropic's `{ type: 'error', error: { type, message } }` for the status. */
    | { type: 'error', status: number, headers?: Record<string, string>, body?: unknown }
  /** `message_start` and the turn's first content block, then an `event: error`, then the response ends. */
    | { type: 'mid-stream-error', turn: ScriptedAnthropicTurn, error: { type: string, message: string } }
  /** Accepts the request and never answers. */
    | { type: 'stall-before-headers' }
  /** Sends the first `events` SSE frames of the turn (pings included), then goes silent with the connection open. */
    | { type: 'stall-after', turn: ScriptedAnthropicTurn, events: number }
  /** Any event sequence, for shapes a scripted turn cannot express (server tools, odd orderings). */
    | { type: 'sse', events: SseEvent[] }

export interface FakeAnthropic {
  /** Base URL without `/v1`, as the SDK expects. */
  url: string
  requests: RecordedRequest[]
  enqueue: (...responses: FakeResponse[]) => void
  /** Responses left in the queue. */
  pending: () => number
  /** Stops the server and destroys every open connection, stalled ones included. */
  close: () => Promise<void>
}

export interface FakeAnthropicOptions {
  /** Answers requests once the queue is empty. Without it an empty queue answers 500. */
  fallback?: (request: RecordedRequest) => FakeResponse
}

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeResponse[] = []
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
      if (recorded.method !== 'POST' || !recorded.path.startsWith('/v1/messages')) {
        writeError(res, { type: 'error', status: 404, body: errorBody(404, `fake-anthropic: no route for ${recorded.method} ${recorded.path}`) })
        return
      }
      const response = queue.shift() ?? options.fallback?.(recorded)
      if (!response) {
        writeError(res, { type: 'error', status: 500, body: errorBody(500, `fake-anthropic: no scripted response left for ${recorded.method} ${recorded.path}`) })
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
    throw new Error('fake-anthropic: could not read the listening port')

  return {
    url: `http://127.0.0.1:${address.port}`,
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

function respond(res: ServerResponse, response: FakeResponse, request: RecordedRequest, timers: Set<NodeJS.Timeout>): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : undefined
  switch (response.type) {
    case 'turn': {
      const send = () => writeEvents(res, anthropicEvents(response.turn, undefined, model), true)
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
      const events = anthropicEvents(response.turn, undefined, model)
      const firstBlockEnd = events.findIndex(event => event.event === 'content_block_stop')
      const head = firstBlockEnd >= 0 ? events.slice(0, firstBlockEnd + 1) : events.slice(0, 1)
      writeEvents(res, [...head, { event: 'error', data: { type: 'error', error: response.error } }], true)
      return
    }
    case 'stall-before-headers':
      return
    case 'stall-after':
      writeEvents(res, anthropicEvents(response.turn, undefined, model).slice(0, response.events), false)
      return
    case 'sse':
      writeEvents(res, response.events, true)
  }
}

function writeEvents(res: ServerResponse, events: SseEvent[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake' })
  // Flush the headers even when no frame follows, so a stalled stream has visibly started.
  res.flushHeaders()
  for (const event of events)
    res.write(sseFrame(event))
  if (end)
    res.end()
}

function writeError(res: ServerResponse, response: Extract<FakeResponse, { type: 'error' }>): void {
  const body = response.body ?? errorBody(response.status, `fake-anthropic: scripted ${response.status}`)
  res.writeHead(response.status, { 'content-type': 'application/json', ...response.headers })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

function errorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: ERROR_TYPE_BY_STATUS[status] ?? 'api_error', message } }
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
