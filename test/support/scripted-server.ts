/**
 * The common core of the fake API servers: a real `node:http` server on
 * 127.0.0.1 that records every request, answers from a queue of scripted
 * responses (then from an optional fallback), and on `close()` destroys every
 * open connection, stalled ones included, so no test can hang on it.
 * Each fake (Anthropic, OpenAI) supplies its routes, error bodies and the
 * way a scripted response is written. Free of test-runner imports, so a
 * benchmark can run it in a child process.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { createServer } from 'node:http'

export interface RecordedRequest {
  method: string
  path: string
  /** Lower-case names. */
  headers: Record<string, string>
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any
  /** The body's text exactly as it arrived. */
  raw: string
}

export interface ScriptedServer<Response> {
  /** Base URL, including the API's path prefix when it has one. */
  url: string
  requests: RecordedRequest[]
  enqueue: (...responses: Response[]) => void
  /** Responses left in the queue. */
  pending: () => number
  /** Stops the server and destroys every open connection. */
  close: () => Promise<void>
}

export interface ScriptedServerSpec<Response> {
  /** Used in error messages, e.g. `fake-anthropic`. */
  name: string
  /** Path prefix the URL carries (e.g. `/v1` for the openai client). */
  urlPath?: string
  /** Whether the request is for a route this API has. */
  routes: (request: RecordedRequest) => boolean
  /** Answers requests once the queue is empty. */
  fallback?: (request: RecordedRequest) => Response
  /** A reason this response cannot answer this request (answered as a 500), if any. */
  mismatch?: (request: RecordedRequest, response: Response) => string | undefined
  /** Write an error in the API's own JSON shape. */
  writeError: (res: ServerResponse, status: number, message: string) => void
  /** Write a scripted response. `later` runs a callback after a delay that `close()` cancels. */
  respond: (res: ServerResponse, response: Response, request: RecordedRequest, later: (ms: number, send: () => void) => void) => void
}

export async function startScriptedServer<Response>(spec: ScriptedServerSpec<Response>): Promise<ScriptedServer<Response>> {
  const queue: Response[] = []
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const later = (ms: number, send: () => void) => {
    if (!(ms > 0)) {
      send()
      return
    }
    const timer = setTimeout(() => {
      timers.delete(timer)
      send()
    }, ms)
    timers.add(timer)
  }

  const server = createServer((req, res) => {
    readBody(req).then((text) => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: flattenHeaders(req.headers),
        body: parseJson(text),
        raw: text,
      }
      requests.push(recorded)
      if (!spec.routes(recorded)) {
        spec.writeError(res, 404, `${spec.name}: no route for ${recorded.method} ${recorded.path}`)
        return
      }
      const response = queue.shift() ?? spec.fallback?.(recorded)
      if (response === undefined) {
        spec.writeError(res, 500, `${spec.name}: no scripted response left for ${recorded.method} ${recorded.path}`)
        return
      }
      const problem = spec.mismatch?.(recorded, response)
      if (problem) {
        spec.writeError(res, 500, `${spec.name}: ${problem}`)
        return
      }
      spec.respond(res, response, recorded, later)
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
    throw new Error(`${spec.name}: could not read the listening port`)

  return {
    url: `http://127.0.0.1:${address.port}${spec.urlPath ?? ''}`,
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

/** Start an event stream and write frames; `end: false` leaves it open (a stall). */
export function writeEventStream(res: ServerResponse, frames: readonly string[], end: boolean, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers })
  // Flush the headers even when no frame follows, so a stalled stream has visibly started.
  res.flushHeaders()
  for (const frame of frames)
    res.write(frame)
  if (end)
    res.end()
}

/** A JSON (or raw text) error response. */
export function writeJsonError(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
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
