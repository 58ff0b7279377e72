/**
 * `pinHeaderOrigin`: the configured `headers` only ever reach the origin of
 * the configured URL. A plain fetch follows a redirect by itself and forwards
 * every custom header to wherever it leads, so a server (or anything that can
 * answer for it) could collect a token by redirecting to a host it owns.
 * Here redirects are followed one hop at a time, so each target is known
 * before any header goes out to it. From the first hop that leaves the
 * origin, the configured headers are gone for the rest of that request, even
 * when a later hop comes back.
 */

import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { McpServerConfig } from './types'
import { mergeObjects } from '../core/merge-objects'

/** Most redirects one request may follow (the limit the fetch standard uses). */
export const MAX_PINNED_REDIRECTS = 20

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** Credentials fetch itself removes when a redirect crosses origins; following by hand must not be weaker. */
const CROSS_ORIGIN_CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie']

/** Headers that describe a request body; they go when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']

/** Which headers `createPinnedFetch` keeps to the configured origin. */
export interface PinnedFetchOptions {
  /** The configured server URL. Its origin is the only one that receives `headerNames`. */
  url: string | URL
  /** Names of the headers to pin (compared case-insensitively). */
  headerNames: Iterable<string>
  /** The fetch doing the requests. Default: the global `fetch`. */
  fetch?: FetchLike
  /** Default `MAX_PINNED_REDIRECTS`. */
  maxRedirects?: number
}

function drop(headers: Headers, names: Iterable<string>): void {
  for (const name of names)
    headers.delete(name)
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {})
}

/** Whether a redirect with `status` turns a `method` request into a body-less GET (as fetch does). */
function becomesGet(status: number, method: string): boolean {
  if (status === 303)
    return method !== 'GET' && method !== 'HEAD'
  return (status === 301 || status === 302) && method === 'POST'
}

/**
 * A fetch that follows redirects itself and keeps `headerNames` to the
 * origin of `url`. Requests that ask for `redirect: 'manual'` or `'error'`
 * follow nothing, so they are passed on as they are (minus the pinned
 * headers when they do not go to that origin).
 */
export function createPinnedFetch(options: PinnedFetchOptions): FetchLike {
  const origin = new URL(options.url).origin
  const pinned = [...new Set(Array.from(options.headerNames, name => name.toLowerCase()))]
  const maxRedirects = options.maxRedirects ?? MAX_PINNED_REDIRECTS
  const base: FetchLike = options.fetch ?? ((url, init) => fetch(url, init))

  return async (input, init = {}) => {
    let url = new URL(input)
    const headers = new Headers(init.headers)
    let left = url.origin !== origin
    if (left)
      drop(headers, pinned)
    if (init.redirect === 'manual' || init.redirect === 'error')
      return base(url, mergeObjects(init, { headers }))

    let method = (init.method ?? 'GET').toUpperCase()
    let body = init.body
    for (let followed = 0; ; followed++) {
      const response = await base(url, mergeObjects(init, { method, body, headers, redirect: 'manual' }))
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null
      if (location === null)
        return response
      await discard(response)
      if (followed >= maxRedirects)
        throw new TypeError(`Too many redirects (more than ${maxRedirects}) from ${String(input)}`)
      let next: URL
      try {
        next = new URL(location, url)
      }
      catch {
        throw new TypeError(`Invalid redirect location ${JSON.stringify(location)} from ${url.origin}`)
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new TypeError(`Redirect to unsupported protocol ${next.protocol} from ${url.origin}`)

      if (becomesGet(response.status, method)) {
        method = 'GET'
        body = undefined
        drop(headers, BODY_HEADERS)
      }
      else if (body instanceof ReadableStream) {
        // A streamed body was consumed by the first hop; fetch refuses this redirect too.
        throw new TypeError(`Cannot follow a ${response.status} redirect with a streamed request body`)
      }

      if (next.origin !== url.origin)
        drop(headers, CROSS_ORIGIN_CREDENTIALS)
      if (!left && next.origin !== origin) {
        left = true
        drop(headers, pinned)
      }
      url = next
    }
  }
}

/**
 * Options for the SDK's HTTP transports of a `pinHeaderOrigin` server:
 * every request (the SSE event stream too) goes through the pinned fetch, and
 * the SDK's own redirect handling is switched off (`'follow'` leaves
 * redirects to the fetch) so the pinned fetch sees every hop.
 * `undefined` when the server does not pin.
 */
export function pinnedTransportOptions(config: McpServerConfig): { fetch: FetchLike, redirectPolicy: 'follow' } | undefined {
  if (!config.pinHeaderOrigin || !config.url)
    return undefined
  return {
    fetch: createPinnedFetch({ url: config.url, headerNames: Object.keys(config.headers ?? {}) }),
    redirectPolicy: 'follow',
  }
}
