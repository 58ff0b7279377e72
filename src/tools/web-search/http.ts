/**
 * The one HTTP call the search backends make. Endpoints are configured by the
 * host, never chosen by the model, so the global `fetch` is enough here; the
 * SSRF guard of `fetch_url` exists for model-chosen URLs.
 */

import { readTextPrefix } from '../../core/capped-body'
import { mergeObjects } from '../../core/merge-objects'
import { truncateText } from '../../text/truncate'

const MAX_ERROR_EXCERPT = 200
const WHITESPACE_RUN = /\s+/g

/**
 * Bytes of one backend answer read at most, after decompression. A results
 * page is tens of KiB; `fetch` inflates gzip and brotli on the fly, so a few
 * KiB on the wire can otherwise become gigabytes in `response.text()`, past
 * what a string can hold, and end the process.
 */
export const MAX_SEARCH_RESPONSE_BYTES = 4 * 1024 * 1024
/** Bytes of an error answer read for its excerpt. */
const MAX_ERROR_BYTES = 16 * 1024
/** Redirects followed within the endpoint's host before giving up. */
const MAX_SEARCH_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const HTTP_SCHEME = /^https?:$/

/**
 * Send `init` to `url` and return the body; a non-2xx answer throws with the
 * backend's name and status. Redirects are followed by hand, and only to the
 * host (and port) of `url`: `fetchUrlAllowHosts` was checked against the
 * endpoint, and `fetch` on its own would follow a redirect anywhere. A
 * request with a body (POST) is never re-sent.
 */
export async function requestText(backend: string, url: URL, init: RequestInit & { signal: AbortSignal }): Promise<string> {
  let target = url
  for (let hop = 0; ; hop++) {
    const response = await fetch(target, mergeObjects(init, { redirect: 'manual' as const })).catch((error: unknown) => {
      throw networkError(backend, error, init.signal)
    })
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null
    if (location === null)
      return readAnswer(backend, response)
    await response.body?.cancel()
    const next = URL.canParse(location, target.href) ? new URL(location, target) : undefined
    if (!next || next.host !== url.host || !HTTP_SCHEME.test(next.protocol) || init.body != null)
      throw new Error(`${backend} search failed: the service redirected to ${next?.href ?? `"${location}"`}; web_search follows redirects only within the endpoint's host, and never for a POST`)
    if (hop >= MAX_SEARCH_REDIRECTS)
      throw new Error(`${backend} search failed: too many redirects (more than ${MAX_SEARCH_REDIRECTS})`)
    target = next
  }
}

/**
 * `fetch` rejects with a bare "fetch failed" whatever went wrong (a refused
 * connection, a reset, a 101 answer); the reason is on its `cause`. An abort
 * is passed on as it is: the tool turns it into "aborted" or "timed out".
 */
function networkError(backend: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || !(error instanceof Error))
    return error
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return new Error(`${backend} search failed: ${cause && cause !== error.message ? `${error.message} (${cause})` : error.message}`, { cause: error })
}

async function readAnswer(backend: string, response: Response): Promise<string> {
  const { text, over } = await readTextPrefix(response, response.ok ? MAX_SEARCH_RESPONSE_BYTES : MAX_ERROR_BYTES)
  if (!response.ok) {
    const excerpt = truncateText(text.replace(WHITESPACE_RUN, ' ').trim(), MAX_ERROR_EXCERPT)
    throw new Error(`${backend} search failed: HTTP ${response.status}${excerpt ? ` (${excerpt})` : ''}`)
  }
  if (over)
    throw new Error(`${backend} search failed: the response is larger than ${MAX_SEARCH_RESPONSE_BYTES} bytes`)
  return text
}

/** Parse a JSON answer, naming the backend when it is not JSON. */
export function parseJson(backend: string, body: string): unknown {
  try {
    return JSON.parse(body)
  }
  catch {
    throw new Error(`${backend} search failed: the response was not JSON`)
  }
}

/** A field of an untyped JSON value, or `undefined` when the value is not an object (`null`, a number, a string). */
export function jsonField(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
}

/** A string field of an untyped JSON object, or `''`. */
export function stringField(value: unknown, key: string): string {
  const field = jsonField(value, key)
  return typeof field === 'string' ? field : ''
}

/** The API key from options, else the first environment variable set. */
export function apiKeyFrom(explicit: string | undefined, variables: readonly string[]): string | undefined {
  if (explicit)
    return explicit
  for (const name of variables) {
    const value = process.env[name]
    if (value)
      return value
  }
  return undefined
}

/** A base URL that relative paths extend rather than replace (`new URL('search', base)` drops a last segment without a slash). */
export function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}
