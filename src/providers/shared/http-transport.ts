/**
 * The HTTP client under every vendor SDK client zidane builds: Node's own
 * `node:http` / `node:https`, handed to the SDK as its `fetch`, whenever the
 * platform's `fetch` is Node's untouched one; that `fetch` otherwise.
 *
 * Why: Node's `fetch` (undici) parses responses with a WebAssembly build of
 * llhttp. The first connection compiles it, and V8 then compiles it again in
 * the background for speed; a Node 20 process that made one request waits
 * for that second compile before it exits (about 60 ms here), and each
 * request pays undici's fetch machinery on top. `node:http` parses with the
 * native llhttp built into Node. Numbers and the rules below:
 * docs/decisions/2026-12-05-node-http-under-the-sdks.md.
 *
 * The SDKs get a real `Response` (status, headers, a streamed body), with
 * the behaviour of `fetch` a caller can see kept: the request aborts with
 * the signal's reason, a failed connection rejects with
 * `TypeError('fetch failed', { cause })`, a body cut short errors its
 * stream, gzip / deflate / brotli bodies are decoded, an idle connection
 * gives up after five minutes (undici's default), and a redirect is handed
 * to the platform's `fetch`, which follows it as the spec says.
 *
 * The platform's `fetch` carries the request instead when a host has
 * changed how requests go out and would expect zidane's to follow:
 * `globalThis.fetch` replaced (a test's mock, a tracing wrapper), a global
 * undici dispatcher set (a proxy agent, a mock agent), Node's proxy
 * variables switched on, or `ZIDANE_HTTP_CLIENT=fetch` in the environment.
 */

import type { ClientRequest, IncomingMessage } from 'node:http'
import type { Transform } from 'node:stream'
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/** Idle time after which a request in flight gives up: undici's headers and body timeouts. */
export const HTTP_IDLE_TIMEOUT_MS = 300_000

/** How long a free keep-alive connection is kept for the next request: undici's default. */
const KEEP_ALIVE_MS = 4_000

/** High-water mark of a response body's stream: how far the socket is read ahead of the reader. */
const BODY_HIGH_WATER_BYTES = 64 * 1024

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

/** Where undici (Node's copy and the npm package alike) keeps the process's global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

const agents = {
  http: new HttpAgent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
  https: new HttpsAgent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
}

/** Settings of one call of `nodeHttpFetch`; tests shorten the idle timeout. */
export interface NodeHttpSettings {
  idleTimeoutMs: number
}

const DEFAULTS: NodeHttpSettings = { idleTimeoutMs: HTTP_IDLE_TIMEOUT_MS }

/** `fetch`, carried by `node:http` when nothing says otherwise (see the file's header). */
export function transportFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = nodeHttpCanCarry(input, init)
  return url ? nodeHttpFetch(url, init, DEFAULTS) : fetch(input, init)
}

/** The request's URL when `node:http` can carry it as `fetch` would; `undefined` to leave it to `fetch`. */
function nodeHttpCanCarry(input: string | URL | Request, init: RequestInit | undefined): URL | undefined {
  if (typeof input !== 'string' && !(input instanceof URL))
    return undefined
  const body = init?.body
  if (body != null && typeof body !== 'string' && !ArrayBuffer.isView(body) && !(body instanceof ArrayBuffer))
    return undefined
  if ((init?.redirect !== undefined && init.redirect !== 'follow') || (init as { dispatcher?: unknown } | undefined)?.dispatcher !== undefined)
    return undefined
  if (!platformFetchIsNodes())
    return undefined
  let url: URL
  try {
    url = new URL(input)
  }
  catch {
    return undefined
  }
  // A URL with credentials in it is refused by fetch; node:http would send them as Basic auth.
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' ? url : undefined
}

/** Node's own proxy support (Node 24's `NODE_USE_ENV_PROXY`, `--use-env-proxy`), read by Node once at start. */
const NODE_PROXY_ON = Boolean(process.env.NODE_USE_ENV_PROXY)
  || process.execArgv.includes('--use-env-proxy')
  || (process.env.NODE_OPTIONS ?? '').includes('--use-env-proxy')

/** The last `globalThis.fetch` found to be Node's own, so the check reads its source once. */
let knownNodeFetch: unknown
/** The last global dispatcher found to be a default one, so the check runs once per dispatcher. */
let knownPlainDispatcher: unknown

/** Whether requests made with `fetch` would go out exactly as Node sends them by default. */
function platformFetchIsNodes(): boolean {
  if (NODE_PROXY_ON || process.env.ZIDANE_HTTP_CLIENT === 'fetch')
    return false
  const platformFetch = globalThis.fetch
  if (platformFetch !== knownNodeFetch) {
    // Node defines `fetch` as a function loading its internal undici; no code outside Node can require that path.
    if (typeof platformFetch !== 'function' || !Function.prototype.toString.call(platformFetch).includes('internal/deps/undici/undici'))
      return false
    knownNodeFetch = platformFetch
  }
  const dispatcher = (globalThis as { [GLOBAL_DISPATCHER]?: unknown })[GLOBAL_DISPATCHER]
  if (dispatcher === undefined || dispatcher === knownPlainDispatcher)
    return true
  if (!isPlainAgent(dispatcher))
    return false
  knownPlainDispatcher = dispatcher
  return true
}

/**
 * Whether a global dispatcher is undici's `Agent` built with no options: the
 * one undici installs when it loads (the SDKs load Node's copy to build their
 * headers), which connects straight to the server as `node:http` does. Any
 * other (a proxy or mock agent, a composed one, an agent with a CA or
 * timeouts of its own), or one whose shape this cannot read, is a host's
 * choice that `fetch` keeps.
 */
function isPlainAgent(dispatcher: unknown): boolean {
  if (typeof dispatcher !== 'object' || dispatcher === null || dispatcher.constructor?.name !== 'Agent')
    return false
  const optionsKey = Object.getOwnPropertySymbols(dispatcher).find(key => key.description === 'options')
  const options = optionsKey && (dispatcher as Record<symbol, unknown>)[optionsKey]
  return typeof options === 'object' && options !== null && Object.values(options).every(value => value === undefined)
}

/** One request over `node:http` / `node:https`, answered as `fetch` answers. */
export function nodeHttpFetch(url: URL, init: RequestInit | undefined, settings: NodeHttpSettings): Promise<Response> {
  const signal = init?.signal ?? undefined
  if (signal?.aborted)
    return Promise.reject(signal.reason)
  let method: string
  let headers: Record<string, string>
  let body: Buffer | undefined
  try {
    method = (init?.method ?? 'GET').toUpperCase()
    headers = requestHeaders(init?.headers, url)
    body = requestBody(init?.body)
    if (body !== undefined)
      headers['content-length'] = String(body.byteLength)
  }
  catch (error) {
    return Promise.reject(new TypeError('fetch failed', { cause: error }))
  }
  return new Promise<Response>((resolve, reject) => {
    let settled = false
    let request: ClientRequest
    let response: IncomingMessage | undefined
    let abortBody: ((reason: unknown) => void) | undefined
    const finish = (): void => signal?.removeEventListener('abort', onAbort)
    function onAbort(): void {
      const reason = signal!.reason
      finish()
      request.destroy()
      response?.destroy()
      abortBody?.(reason)
      if (!settled) {
        settled = true
        reject(reason)
      }
    }

    const send = (retryOnStaleSocket: boolean): void => {
      request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        agent: url.protocol === 'https:' ? agents.https : agents.http,
      })
      request.setTimeout(settings.idleTimeoutMs, () => {
        request.destroy(Object.assign(new Error(`no bytes for ${settings.idleTimeoutMs} ms`), { code: 'ETIMEDOUT' }))
      })
      // `on`, not `once`: a socket can fail more than once, and an error with no listener would end the process.
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (settled)
          return
        // A kept-alive connection the server closed as it was reused: nothing reached the server, so one fresh try.
        if (retryOnStaleSocket && request.reusedSocket && response === undefined && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          send(false)
          return
        }
        settled = true
        finish()
        reject(new TypeError('fetch failed', { cause: error }))
      })
      request.once('response', (incoming) => {
        response = incoming
        const status = incoming.statusCode ?? 0
        if (REDIRECT_STATUSES.has(status) && incoming.headers.location !== undefined) {
          // The spec's redirect rules (method changes, dropped credentials across origins) are the platform's to apply.
          drain(incoming)
          settled = true
          finish()
          resolve(fetch(url, init))
          return
        }
        let answer: Response
        try {
          answer = buildResponse(incoming, url, method, (abort) => {
            abortBody = abort
          }, () => {
            abortBody = undefined
            finish()
          })
        }
        catch (error) {
          incoming.destroy()
          settled = true
          finish()
          reject(new TypeError('fetch failed', { cause: error }))
          return
        }
        settled = true
        resolve(answer)
      })
      request.end(body)
    }

    signal?.addEventListener('abort', onAbort)
    send(true)
  })
}

/** The request's headers for `node:http`: names in lower case, repeated ones joined as `Headers` joins them. */
function requestHeaders(given: RequestInit['headers'], url: URL): Record<string, string> {
  const headers: Record<string, string> = {}
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase()
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`
  }
  if (given instanceof Headers) {
    given.forEach((value, name) => add(name, value))
  }
  else if (Array.isArray(given)) {
    for (const [name, value] of given) add(name!, value!)
  }
  else if (given) {
    for (const [name, value] of Object.entries(given as Record<string, string>)) add(name, value)
  }
  // What fetch asks for when the caller did not say.
  headers['accept-encoding'] ??= url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate'
  return headers
}

/** The body's bytes; every kind `nodeHttpCanCarry` lets through. */
function requestBody(body: RequestInit['body']): Buffer | undefined {
  if (body == null)
    return undefined
  if (typeof body === 'string')
    return Buffer.from(body, 'utf8')
  if (body instanceof ArrayBuffer)
    return Buffer.from(body)
  const view = body as ArrayBufferView
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength)
}

/** A `Response` over `incoming`: its status, its headers, and its body decoded and read as the reader pulls. */
function buildResponse(
  incoming: IncomingMessage,
  url: URL,
  method: string,
  onBodyStart: (abort: (reason: unknown) => void) => void,
  onBodyEnd: () => void,
): Response {
  const status = incoming.statusCode ?? 0
  const headers = new Headers()
  const raw = incoming.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i]!, raw[i + 1]!)
  const noBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD'
  if (noBody) {
    drain(incoming)
    onBodyEnd()
  }
  const body = noBody ? null : bodyStream(incoming, decoderFor(headers.get('content-encoding')), onBodyStart, onBodyEnd)
  let response: Response
  try {
    response = new Response(body, { status, statusText: incoming.statusMessage ?? '', headers })
  }
  catch (error) {
    // A reason phrase `Response` refuses is dropped; a status it refuses (outside 200-599) fails the request.
    if (!(error instanceof TypeError))
      throw error
    response = new Response(body, { status, headers })
  }
  // `url` is read by the SDKs' logs; a constructed Response has none of its own.
  Object.defineProperty(response, 'url', { value: url.href })
  return response
}

/** Read and drop what is left of a body nobody reads; a failure there has nobody to tell. */
function drain(incoming: IncomingMessage): void {
  incoming.on('error', () => {})
  incoming.resume()
}

/** The stream that decodes a `content-encoding` fetch decodes; `undefined` for identity and unknown codings. */
function decoderFor(contentEncoding: string | null): Transform | undefined {
  switch (contentEncoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip()
    case 'deflate':
      return createInflate()
    case 'br':
      return createBrotliDecompress()
    default:
      return undefined
  }
}

/**
 * The body as a web stream that reads the socket only as fast as its reader
 * takes bytes: past the high-water mark the socket is paused, so a reader
 * that stops early (a capped read) holds at most that much.
 */
function bodyStream(
  incoming: IncomingMessage,
  decoder: Transform | undefined,
  onStart: (abort: (reason: unknown) => void) => void,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const source = decoder ? incoming.pipe(decoder) : incoming
  let done = false
  const end = (): void => {
    done = true
    onEnd()
  }
  const stop = (): void => {
    incoming.destroy()
    decoder?.destroy()
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const errorWith = (error: unknown): void => {
        if (done)
          return
        end()
        stop()
        controller.error(error)
      }
      onStart(errorWith)
      const fail = (error: unknown): void => errorWith(new TypeError('terminated', { cause: error }))
      source.on('data', (chunk: Buffer) => {
        if (done)
          return
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        if ((controller.desiredSize ?? 0) <= 0)
          source.pause()
      })
      source.once('end', () => {
        if (done)
          return
        end()
        controller.close()
      })
      source.on('error', fail)
      if (decoder)
        incoming.on('error', fail)
      // A socket closed before the body's end, with no error raised for it.
      incoming.once('close', () => {
        if (!incoming.complete)
          fail(Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }))
      })
    },
    pull() {
      source.resume()
    },
    cancel() {
      end()
      stop()
    },
  }, { highWaterMark: BODY_HIGH_WATER_BYTES, size: chunk => chunk.byteLength })
}
