/**
 * The one HTTP call the search backends make. Endpoints are configured by the
 * host, never chosen by the model, so the global `fetch` is enough here; the
 * SSRF guard of `fetch_url` exists for model-chosen URLs.
 */

import { truncateText } from '../../text/truncate'

const MAX_ERROR_EXCERPT = 200
const WHITESPACE_RUN = /\s+/g

/** Send `init` to `url` and return the body; a non-2xx answer throws with the backend's name and status. */
export async function requestText(backend: string, url: URL, init: RequestInit & { signal: AbortSignal }): Promise<string> {
  const response = await fetch(url, init)
  const body = await response.text()
  if (!response.ok) {
    const excerpt = truncateText(body.replace(WHITESPACE_RUN, ' ').trim(), MAX_ERROR_EXCERPT)
    throw new Error(`${backend} search failed: HTTP ${response.status}${excerpt ? ` (${excerpt})` : ''}`)
  }
  return body
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

/** A string field of an untyped JSON object, or `''`. */
export function stringField(value: unknown, key: string): string {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
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
