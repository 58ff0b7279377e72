/**
 * One request over `node:http` / `node:https`, answered as Node's `fetch`
 * answers it: a real `Response`, the same rejections, the same redirects.
 * Why zidane sends this way, and when it does not: `http-transport.ts`.
 */

import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http'
import type { BodyReading } from './http-body'
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { mergeObjects } from '../../core/merge-objects'
import { startTimer, timerNow } from '../../core/timer'
import { codingsOf, readBody, releaseWhenCollected } from './http-body'

/** Idle time after which a request in flight gives up: undici's headers and body timeouts. */
export const HTTP_IDLE_TIMEOUT_MS = 300_000

/** How many times per idle period the idle timer looks for progress: the timeout is exact to a quarter of it. */
const IDLE_CHECKS = 4

/** How long a free keep-alive connection is kept for the next request: undici's default. */
const KEEP_ALIVE_MS = 4_000

/** Redirects followed for one request before it fails, as fetch counts them. */
const MAX_REDIRECTS = 20

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])
/** Methods fetch writes in capitals whatever case they came in; any other is sent as given. */
export const NORMALIZED_METHODS: ReadonlySet<string> = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'])
/** Headers that describe a body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']
/**
 * Headers dropped when a redirect leads to another origin: fetch's list, and
 * the API-key headers of the vendor APIs, which a redirecting server should
 * not be able to send elsewhere.
 */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']
const NON_ASCII = /[\u0080-\uFFFF]/
/** Methods fetch refuses to send. */
const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK'])
/** Headers about the connection itself, which fetch refuses from a caller: they would make the request malformed. */
const CONNECTION_HEADERS = ['transfer-encoding', 'keep-alive', 'upgrade']

const agents = {
  http: new HttpAgent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
  https: new HttpsAgent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
}

/** Settings of one call of `nodeHttpFetch`; tests shorten the idle timeout. */
export interface NodeHttpSettings {
  idleTimeoutMs: number
}

/** What goes out: checked and built before anything is sent. */
interface Outgoing {
  method: string
  headers: OutgoingHttpHeaders
  body: Buffer | undefined
}

/** One request over `node:http` / `node:https`, answered as `fetch` answers. */
export function nodeHttpFetch(url: URL, init: RequestInit | undefined, settings: NodeHttpSettings, redirects = 0): Promise<Response> {
  const signal = init?.signal ?? undefined
  if (signal?.aborted)
    return Promise.reject(signal.reason)
  let outgoing: Outgoing
  try {
    outgoing = outgoingOf(url, init)
  }
  catch (error) {
    return Promise.reject(error instanceof TypeError ? error : new TypeError('fetch failed', { cause: error }))
  }
  return new Promise<Response>((resolve, reject) => {
    // The promise's resolvers, dropped once it settles: the socket's and the timer's listeners outlive the
    // promise, and through the resolvers they would keep its Response from being collected.
    let pending: { resolve: (response: Response | Promise<Response>) => void, reject: (error: unknown) => void } | undefined = { resolve, reject }
    const settle = (): typeof pending => {
      const resolvers = pending
      pending = undefined
      return resolvers
    }
    let request: ClientRequest | undefined
    let response: IncomingMessage | undefined
    let body: BodyReading | undefined
    // The idle timer looks a few times per period for bytes moved either way on the connection.
    let seenBytes = -1
    let lastProgressAt = timerNow()

    // The server is waited for only while bytes stop moving and the reader is not the one holding them back.
    const idle = startTimer(settings.idleTimeoutMs / IDLE_CHECKS, () => {
      const socket = request?.socket
      // Before the answer's head only the upload counts: a server sending its headers a byte at a time is not progress.
      const bytes = socket ? socket.bytesWritten + (response ? socket.bytesRead : 0) : -1
      if (body?.paused() || bytes !== seenBytes) {
        seenBytes = bytes
        lastProgressAt = timerNow()
      }
      if (timerNow() - lastProgressAt < settings.idleTimeoutMs) {
        idle.refresh()
        return
      }
      const timeout = Object.assign(new Error(`no bytes for ${settings.idleTimeoutMs} ms`), { code: 'ETIMEDOUT' })
      body?.fail(new TypeError('terminated', { cause: timeout }))
      fail(new TypeError('fetch failed', { cause: timeout }))
      request?.destroy()
    }).unref()

    function finish(): void {
      signal?.removeEventListener('abort', onAbort)
      idle.clear()
    }
    function fail(error: unknown): void {
      const resolvers = settle()
      if (!resolvers)
        return
      finish()
      request?.destroy()
      resolvers.reject(error)
    }
    function onAbort(): void {
      const reason = signal!.reason
      finish()
      request?.destroy()
      response?.destroy()
      body?.fail(reason)
      fail(reason)
    }
    function send(fresh: boolean): void {
      const current = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: outgoing.method,
        headers: outgoing.headers,
        // The retry after a stale connection takes a new one of its own.
        agent: fresh ? false : url.protocol === 'https:' ? agents.https : agents.http,
      })
      request = current
      // What the connection had read before this request: a kept-alive one counts earlier answers too.
      let readBefore = 0
      current.once('socket', (socket) => {
        readBefore = socket.bytesRead
      })
      // `on`, not `once`: a socket can fail more than once, and an error with no listener would end the process.
      current.on('error', (error: NodeJS.ErrnoException) => {
        if (!pending || current !== request)
          return
        // A kept-alive connection the server had closed: nothing came back, so the server never took the request.
        if (!fresh && current.reusedSocket && response === undefined && (current.socket?.bytesRead ?? 0) === readBefore
          && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          send(true)
          return
        }
        fail(new TypeError('fetch failed', { cause: error }))
      })
      // An interim answer (100, 103) is the server at work.
      current.on('information', () => {
        lastProgressAt = timerNow()
      })
      // Closed with neither an answer nor an error: a `101` upgrade, which Node hands to nobody.
      current.once('close', () => {
        if (current === request && response === undefined)
          fail(new TypeError('fetch failed', { cause: new Error('the connection closed before an answer came') }))
      })
      current.once('response', (incoming) => {
        if (!pending || current !== request) {
          incoming.destroy()
          return
        }
        response = incoming
        answer(incoming)
      })
      current.end(outgoing.body)
    }

    function answer(incoming: IncomingMessage): void {
      const status = incoming.statusCode ?? 0
      const location = incoming.headers.location
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        // The redirect's own body is never read.
        incoming.on('error', () => {})
        incoming.destroy()
        finish()
        settle()?.resolve(redirect(url, init, status, location, settings, redirects))
        return
      }
      let built: Response
      try {
        built = buildResponse(incoming, url, outgoing.method, () => {
          finish()
          // A server that answered before reading the whole request: the rest is not sent.
          if (request && !request.writableFinished)
            request.destroy()
        }, (reading) => {
          body = reading
        })
      }
      catch (error) {
        incoming.destroy()
        fail(new TypeError('fetch failed', { cause: error }))
        return
      }
      settle()?.resolve(built)
    }

    signal?.addEventListener('abort', onAbort)
    try {
      send(false)
    }
    catch (error) {
      // `node:http` refuses a header or method it cannot write before anything is sent.
      fail(new TypeError('fetch failed', { cause: error }))
    }
  })
}

/** Method, headers and body as `fetch` would send them. */
function outgoingOf(url: URL, init: RequestInit | undefined): Outgoing {
  const given = init?.method ?? 'GET'
  const method = NORMALIZED_METHODS.has(given.toUpperCase()) ? given.toUpperCase() : given
  if (FORBIDDEN_METHODS.has(method.toUpperCase()))
    throw new TypeError(`'${method}' HTTP method is unsupported.`)
  const body = requestBody(init?.body)
  if (body !== undefined && (method === 'GET' || method === 'HEAD'))
    throw new TypeError('Request with GET/HEAD method cannot have body.')
  const headers = requestHeaders(init?.headers)
  const connection = headers.connection?.toLowerCase()
  if (CONNECTION_HEADERS.some(name => headers[name] !== undefined) || (connection !== undefined && connection !== 'close' && connection !== 'keep-alive'))
    throw new TypeError('fetch failed', { cause: new Error('a request may not set transfer-encoding, keep-alive, upgrade or connection') })
  // What fetch adds when the caller did not say.
  headers.accept ??= '*/*'
  headers['user-agent'] ??= 'node'
  headers['accept-encoding'] ??= url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate'
  if (typeof init?.body === 'string')
    headers['content-type'] ??= 'text/plain;charset=UTF-8'
  if (body !== undefined)
    headers['content-length'] = String(body.byteLength)
  return { method, headers, body }
}

/**
 * The request's headers as `Headers` reads them (names in lower case, values
 * trimmed, repeated ones joined, a bad value refused), from any form fetch
 * takes. The SDKs pass a `Headers` already, which is read without a copy.
 */
function requestHeaders(given: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {}
  if (given) {
    (given instanceof Headers ? given : new Headers(given)).forEach((value, name) => {
      headers[name] = value
    })
  }
  return headers
}

/** The body's bytes; every kind `transportFetch` sends this way. */
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

/**
 * Follow a redirect with the rules of fetch: a 303, or a 301 / 302 answering
 * a POST, becomes a GET without its body; credentials stay behind when the
 * next URL is of another origin; at most `MAX_REDIRECTS`.
 */
async function redirect(from: URL, init: RequestInit | undefined, status: number, location: string, settings: NodeHttpSettings, redirects: number): Promise<Response> {
  if (redirects >= MAX_REDIRECTS)
    throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) })
  let next: URL
  try {
    // Node reads header bytes as Latin-1; a location in UTF-8 is read again as UTF-8, as fetch reads it.
    next = new URL(NON_ASCII.test(location) ? Buffer.from(location, 'latin1').toString('utf8') : location, from)
  }
  catch (error) {
    throw new TypeError('fetch failed', { cause: error })
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new TypeError('fetch failed', { cause: new Error(`a redirect to a ${next.protocol} URL`) })
  // `node:http` would send a user name and password in the URL as Basic auth; fetch refuses such a redirect.
  if (next.username !== '' || next.password !== '')
    throw new TypeError('fetch failed', { cause: new Error('a redirect to a URL with credentials') })
  const headers = requestHeaders(init?.headers)
  const method = (init?.method ?? 'GET').toUpperCase()
  const toGet = status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST'
  if (toGet) {
    for (const name of BODY_HEADERS) delete headers[name]
  }
  if (next.origin !== from.origin) {
    for (const name of CREDENTIAL_HEADERS) delete headers[name]
  }
  const nextInit: RequestInit = mergeObjects(init ?? {}, toGet ? { headers, method: 'GET', body: null } : { headers })
  const answer = await nodeHttpFetch(next, nextInit, settings, redirects + 1)
  Object.defineProperty(answer, 'redirected', { value: true })
  return answer
}

/** A `Response` over `incoming`: its status, its headers, and its body decoded and read as the reader pulls. */
function buildResponse(
  incoming: IncomingMessage,
  url: URL,
  method: string,
  onBodyEnd: () => void,
  onBody: (reading: BodyReading) => void,
): Response {
  const status = incoming.statusCode ?? 0
  const headers = new Headers()
  const raw = incoming.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i]!, raw[i + 1]!)
  let reading: BodyReading | undefined
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    incoming.on('error', () => {})
    incoming.resume()
    onBodyEnd()
  }
  else {
    reading = readBody(incoming, codingsOf(headers.get('content-encoding') ?? undefined), onBodyEnd)
    onBody(reading)
  }
  const body = reading?.stream ?? null
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
  // `url` is read by the SDKs' logs; a constructed Response has none of its own. Fetch leaves the fragment out.
  Object.defineProperty(response, 'url', { value: url.hash === '' ? url.href : url.href.slice(0, -url.hash.length) })
  if (reading)
    releaseWhenCollected(response, reading)
  return response
}
