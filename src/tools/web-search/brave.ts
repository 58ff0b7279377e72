/** Search through the Brave Search API (`GET /res/v1/web/search`), keyed by `BRAVE_SEARCH_API_KEY`. */

import type { WebSearchBackend } from './types'
import { decodeEntities } from '../fetch-url/html-tokens'
import { apiKeyFrom, jsonField, parseJson, requestText, stringField, withSlash } from './http'
import { isUsableResultUrl } from './result-url'

export const BRAVE_ENDPOINT = 'https://api.search.brave.com'

/** Brave's `count` parameter tops out at 20. */
const BRAVE_MAX_COUNT = 20

/** Options of `braveBackend`. */
export interface BraveBackendOptions {
  /** Default: `BRAVE_SEARCH_API_KEY`, then `BRAVE_API_KEY`, read at search time. */
  apiKey?: string
  /** API base URL; tests point it at a local server. Default `https://api.search.brave.com`. */
  endpoint?: string
}

/** A `web_search` backend on the Brave Search API (needs a key). */
export function braveBackend(options: BraveBackendOptions = {}): WebSearchBackend {
  const endpoint = options.endpoint ?? BRAVE_ENDPOINT
  return {
    name: 'Brave',
    endpoint,
    async search(query, { limit, signal }) {
      const apiKey = apiKeyFrom(options.apiKey, ['BRAVE_SEARCH_API_KEY', 'BRAVE_API_KEY'])
      if (!apiKey)
        throw new Error('Brave search is not configured: pass apiKey or set BRAVE_SEARCH_API_KEY')
      const url = new URL('res/v1/web/search', withSlash(endpoint))
      url.searchParams.set('q', query)
      url.searchParams.set('count', String(Math.min(limit, BRAVE_MAX_COUNT)))
      const body = await requestText('Brave', url, {
        signal,
        headers: { 'accept': 'application/json', 'x-subscription-token': apiKey },
      })
      // `null` or a bare number is valid JSON too: read fields without assuming an object.
      const results = jsonField(jsonField(parseJson('Brave', body), 'web'), 'results') ?? []
      if (!Array.isArray(results))
        throw new Error('Brave search failed: the response has no results list')
      return results
        .map(item => ({ title: plain(stringField(item, 'title')), url: stringField(item, 'url'), snippet: plain(stringField(item, 'description')) }))
        // Unusable URLs are dropped before the cut, so they do not take the place of usable results.
        .filter(result => isUsableResultUrl(result.url))
        .slice(0, limit)
    },
  }
}

/** Brave marks query terms with `<strong>` in titles and descriptions. */
function plain(text: string): string {
  return decodeEntities(stripMarkup(text))
}

/**
 * `text` without its tags: what `text.replace(/<[^>]*>/g, '')` gives, in one
 * forward pass. The regex scans to the end of the text from every `<` that
 * has no `>` after it, which is quadratic in a run of them; here the first
 * such `<` ends the scan, since no later one can be closed either.
 */
export function stripMarkup(text: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const open = text.indexOf('<', from)
    const close = open === -1 ? -1 : text.indexOf('>', open + 1)
    if (close === -1)
      return out + text.slice(from)
    out += text.slice(from, open)
    from = close + 1
  }
}
