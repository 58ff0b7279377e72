/** Search through the Tavily API (`POST /search`), keyed by `TAVILY_API_KEY`. */

import type { WebSearchBackend } from './types'
import { apiKeyFrom, jsonField, parseJson, requestText, stringField, withSlash } from './http'
import { isUsableResultUrl } from './result-url'

export const TAVILY_ENDPOINT = 'https://api.tavily.com'

/** Options of `tavilyBackend`. */
export interface TavilyBackendOptions {
  /** Default: `TAVILY_API_KEY`, read at search time. */
  apiKey?: string
  /** API base URL; tests point it at a local server. Default `https://api.tavily.com`. */
  endpoint?: string
  /** Tavily's `search_depth`. Default `'basic'`. */
  searchDepth?: 'basic' | 'advanced'
}

/** A `web_search` backend on the Tavily API (needs a key). */
export function tavilyBackend(options: TavilyBackendOptions = {}): WebSearchBackend {
  const endpoint = options.endpoint ?? TAVILY_ENDPOINT
  return {
    name: 'Tavily',
    endpoint,
    async search(query, { limit, signal }) {
      const apiKey = apiKeyFrom(options.apiKey, ['TAVILY_API_KEY'])
      if (!apiKey)
        throw new Error('Tavily search is not configured: pass apiKey or set TAVILY_API_KEY')
      const body = await requestText('Tavily', new URL('search', withSlash(endpoint)), {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', 'authorization': `Bearer ${apiKey}` },
        body: JSON.stringify({ query, max_results: limit, search_depth: options.searchDepth ?? 'basic' }),
      })
      // `null` or a bare number is valid JSON too: read fields without assuming an object.
      const results = jsonField(parseJson('Tavily', body), 'results')
      if (!Array.isArray(results))
        throw new Error('Tavily search failed: the response has no results list')
      return results
        .map(item => ({ title: stringField(item, 'title'), url: stringField(item, 'url'), snippet: stringField(item, 'content') }))
        // Unusable URLs are dropped before the cut, so they do not take the place of usable results.
        .filter(result => isUsableResultUrl(result.url))
        .slice(0, limit)
    },
  }
}
