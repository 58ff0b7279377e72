import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Timer } from '../core/timer'
import type { FakeModelTurn } from './fake-model-wire'
import { createServer } from 'node:http'
import { withGetters } from '../core/fast-accessors'
import { startTimer } from '../core/timer'
import { anthropicFrames, chatFrames } from './fake-model-wire'

export type { FakeModelTurn } from './fake-model-wire'

/** Which API a request to the fake model server came in on. */
export type FakeModelWire = 'anthropic' | 'openai-chat'

/** One request the fake model server received. */
export interface FakeModelRequest {
  /** `'anthropic'` for `POST /v1/messages`, `'openai-chat'` for `POST /v1/chat/completions`. */
  wire: FakeModelWire
  /** The request body, parsed from JSON, exactly as the provider's client sent it. */
  body: Record<string, unknown>
  /** Header names in lower case. */
  headers: Record<string, string>
  /** The text of each tool result the request ends with, in call order: what the tools just returned. */
  toolResults: string[]
}

/** A step of the script: a fixed answer, or one computed from the request. */
export type FakeModelStep = FakeModelTurn | ((request: FakeModelRequest) => FakeModelTurn)

/** Options of `startFakeModelServer`. */
export interface FakeModelServerOptions {
  /** The answers, one per model request, in order. A request past the end is answered with a 400 error. */
  script: FakeModelStep[]
  /** Port to listen on, on 127.0.0.1. Default 0: any free port. */
  port?: number
}

/** A running fake model server. */
export interface FakeModelServer extends AsyncDisposable {
  /** Base URL for `anthropic({ baseURL })`: `http://127.0.0.1:<port>`. */
  readonly url: string
  /** Base URL for `openai({ baseURL })` and `openaiCompat({ baseURL })`: `url` + `/v1`. */
  readonly openaiURL: string
  /** Every model request received, in order. */
  readonly requests: readonly FakeModelRequest[]
  /** Script steps not played yet. */
  readonly remaining: number
  /** Stop listening and drop every open connection. */
  close: () => Promise<void>
}

const ROUTES: Readonly<Record<string, FakeModelWire>> = {
  '/v1/messages': 'anthropic',
  '/v1/chat/completions': 'openai-chat',
}

/**
 * Start a local HTTP server on 127.0.0.1 that plays a scripted model over the
 * real streaming wire of the Anthropic Messages API and the OpenAI Chat
 * Completions API. Point a real provider at it (`anthropic({ baseURL: server.url,
 * apiKey: 'fake' })`, `openai({ baseURL: server.openaiURL, apiKey: 'fake' })`)
 * and a program runs end to end, HTTP client included, with no key and no
 * network. Unlike `scriptedProvider`, which replaces the provider, this tests
 * the provider configuration a program ships with.
 */
export async function startFakeModelServer(options: FakeModelServerOptions): Promise<FakeModelServer> {
  const script = [...options.script]
  const requests: FakeModelRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<Timer>()

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        writeError(res, 'anthropic', 500, `fake model server: ${String(error)}`)
      else
        res.destroy()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]
    const wire = req.method === 'POST' ? ROUTES[path] : undefined
    const text = await readBody(req)
    if (!wire) {
      writeError(res, 'openai-chat', 404, `fake model server: no route for ${req.method} ${path}`)
      return
    }
    const body = JSON.parse(text) as Record<string, unknown>
    const request: FakeModelRequest = { wire, body, headers: flattenHeaders(req.headers), toolResults: toolResultsOf(wire, body) }
    requests.push(request)
    const step = script.shift()
    if (!step) {
      writeError(res, wire, 400, `fake model server: no scripted turn left for request ${requests.length}`)
      return
    }
    const turn = typeof step === 'function' ? step(request) : step
    const model = typeof body.model === 'string' ? body.model : 'fake-model'
    const frames = wire === 'anthropic'
      ? anthropicFrames(turn, model, requests.length)
      : chatFrames(turn, model, requests.length, isUsageRequested(body))
    const send = () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      for (const frame of frames)
        res.write(frame)
      res.end()
    }
    if (!(turn.delayMs && turn.delayMs > 0)) {
      send()
      return
    }
    const timer = startTimer(turn.delayMs, () => {
      timers.delete(timer)
      send()
    })
    timers.add(timer)
  }

  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (!address || typeof address === 'string')
    throw new Error('fake model server: could not read the listening port')
  const url = `http://127.0.0.1:${address.port}`

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const timer of timers)
        timer.clear()
      timers.clear()
      server.close(() => resolve())
      for (const socket of sockets)
        socket.destroy()
    })
    return closing
  }

  return withGetters<FakeModelServer, 'remaining'>({
    url,
    openaiURL: `${url}/v1`,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  }, { remaining: () => script.length })
}

function isUsageRequested(body: Record<string, unknown>): boolean {
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined
  return streamOptions?.include_usage === true
}

/** The texts of the tool results at the end of the conversation, on either wire. */
function toolResultsOf(wire: FakeModelWire, body: Record<string, unknown>): string[] {
  const messages = Array.isArray(body.messages) ? body.messages as { role?: unknown, content?: unknown }[] : []
  if (wire === 'anthropic') {
    const last = messages.at(-1)
    if (last?.role !== 'user' || !Array.isArray(last.content))
      return []
    return (last.content as { type?: unknown, content?: unknown }[])
      .filter(block => block.type === 'tool_result')
      .map(block => textOf(block.content))
  }
  const trailing: string[] = []
  for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--)
    trailing.unshift(textOf(messages[i].content))
  return trailing
}

/** A string, or the joined text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === 'string')
    return content
  if (!Array.isArray(content))
    return ''
  return (content as { type?: unknown, text?: unknown }[])
    .map(part => part.type === 'text' && typeof part.text === 'string' ? part.text : '')
    .join('')
}

/** An error in the API's own JSON shape, so the client raises its usual error for the status. */
function writeError(res: ServerResponse, wire: FakeModelWire, status: number, message: string): void {
  const type = status === 404 ? 'not_found_error' : status === 400 ? 'invalid_request_error' : 'api_error'
  const body = wire === 'anthropic'
    ? { type: 'error', error: { type, message } }
    : { error: { message, type, param: null, code: null } }
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}
