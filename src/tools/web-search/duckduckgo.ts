/**
 * Keyless search through DuckDuckGo's HTML results page. The page is parsed
 * with the same tokenizer `fetch_url` uses: result titles are the `result__a`
 * links, snippets the `result__snippet` elements after them, and result links
 * go through a redirector whose `uddg` parameter holds the real URL.
 */

import type { WebSearchBackend, WebSearchResult } from './types'
import { decodeEntities, htmlTokens } from '../fetch-url/html-tokens'
import { requestText } from './http'
import { isUsableResultUrl } from './result-url'

const WHITESPACE_RUN = /\s+/g

export const DUCKDUCKGO_ENDPOINT = 'https://html.duckduckgo.com/html/'

/** Options of `duckDuckGoBackend`. */
export interface DuckDuckGoBackendOptions {
  /** Results page URL; tests point it at a local server. Default `https://html.duckduckgo.com/html/`. */
  endpoint?: string
  /** DuckDuckGo region code (`kl`), e.g. `'us-en'`. */
  region?: string
}

/** A `web_search` backend that reads DuckDuckGo's HTML results page (no key). */
export function duckDuckGoBackend(options: DuckDuckGoBackendOptions = {}): WebSearchBackend {
  const endpoint = options.endpoint ?? DUCKDUCKGO_ENDPOINT
  return {
    name: 'DuckDuckGo',
    endpoint,
    async search(query, { limit, signal }) {
      const url = new URL(endpoint)
      url.searchParams.set('q', query)
      if (options.region)
        url.searchParams.set('kl', options.region)
      const html = await requestText('DuckDuckGo', url, {
        signal,
        headers: { 'user-agent': 'Mozilla/5.0 (compatible; zidane-web_search)', 'accept': 'text/html' },
      })
      const results = parseDuckDuckGoResults(html, url.href)
      if (results.length === 0 && html.includes('anomaly-modal'))
        throw new Error('DuckDuckGo search failed: the service answered with a bot check instead of results; try again later or use another backend')
      // Unusable URLs are dropped before the cut, so they do not take the place of usable results.
      return results.filter(result => isUsableResultUrl(result.url)).slice(0, limit)
    },
  }
}

/** Results of a DuckDuckGo HTML page, ads left out, in page order. */
export function parseDuckDuckGoResults(html: string, pageUrl: string = DUCKDUCKGO_ENDPOINT): WebSearchResult[] {
  const results: WebSearchResult[] = []
  let capture: { field: 'title' | 'snippet', tag: string, depth: number, text: string } | undefined
  let current: WebSearchResult | undefined

  for (const token of htmlTokens(html)) {
    if (capture) {
      if (token.type === 'text') {
        capture.text += token.text
      }
      else if (token.name === capture.tag && !(token.type === 'open' && token.selfClosing)) {
        capture.depth += token.type === 'open' ? 1 : -1
        if (capture.depth === 0) {
          if (current)
            current[capture.field] = clean(capture.text)
          capture = undefined
        }
      }
      continue
    }
    if (token.type !== 'open')
      continue
    const classes = (token.attrs.class ?? '').split(WHITESPACE_RUN)
    if (classes.includes('result__a')) {
      const url = resultUrl(token.attrs.href ?? '', pageUrl)
      current = url ? { title: '', url, snippet: '' } : undefined
      if (current)
        results.push(current)
      capture = { field: 'title', tag: token.name, depth: 1, text: '' }
    }
    else if (classes.includes('result__snippet')) {
      capture = { field: 'snippet', tag: token.name, depth: 1, text: '' }
    }
  }
  return results.filter(result => result.title !== '')
}

/** The destination of a result link: the `uddg` target of DuckDuckGo's redirector, else the link itself. Ads yield `undefined`. */
function resultUrl(href: string, pageUrl: string): string | undefined {
  let link: URL
  try {
    link = new URL(href, pageUrl)
  }
  catch {
    return undefined
  }
  if (link.pathname === '/y.js' || link.searchParams.has('ad_domain'))
    return undefined
  const target = link.searchParams.get('uddg')
  if (target)
    return target
  return link.protocol === 'http:' || link.protocol === 'https:' ? link.href : undefined
}

function clean(text: string): string {
  return decodeEntities(text).replace(WHITESPACE_RUN, ' ').trim()
}
