/**
 * The built-in `web_search` tool: one query to a pluggable search backend,
 * answered as a numbered list the model can pick URLs from (and hand to
 * `fetch_url`). The backend's endpoint is held to the same egress allowlist as
 * `fetch_url`.
 */

import type { ToolDef } from '../types'
import type { WebSearchBackend, WebSearchResult } from './types'
import { z } from 'zod'
import { startTimer } from '../../core/timer'
import { untilAborted } from '../../core/until-aborted'
import { truncateText } from '../../text/truncate'
import { hostAllowed, numberOption, webToolBehaviorOf } from '../fetch-url/settings'
import { tool } from '../tool'
import { duckDuckGoBackend } from './duckduckgo'
import { isUsableResultUrl } from './result-url'

export { MAX_SEARCH_URL_CHARS } from './result-url'

const WHITESPACE_RUN = /\s+/g

/** Results returned when the call gives no limit. */
export const DEFAULT_WEB_SEARCH_LIMIT = 5
/** The most results one call may ask for. */
export const MAX_WEB_SEARCH_LIMIT = 20
/**
 * The longest query one call may send, in UTF-16 units. Search services
 * take a few hundred characters; a query of megabytes would be sent in a URL
 * and echoed whole in the result.
 */
export const MAX_WEB_SEARCH_QUERY_CHARS = 2_000
export const DEFAULT_WEB_SEARCH_TIMEOUT_MS = 20_000
/**
 * The longest title and snippet a result shows, in UTF-16 units; longer ones
 * are cut with `…`. Real ones are a line or two: a backend that sends
 * megabytes in one field would otherwise fill the model's context with it.
 */
export const MAX_SEARCH_TITLE_CHARS = 300
export const MAX_SEARCH_SNIPPET_CHARS = 1_000

/** The arguments of the `web_search` tool. */
export interface WebSearchInput {
  query: string
  limit?: number
}

/** Options of `createWebSearchTool`. */
export interface WebSearchToolOptions {
  /** Where queries go. Default: DuckDuckGo's HTML results page (no key needed). */
  backend?: WebSearchBackend
  /** Results when the call gives no `limit`. Default 5. */
  defaultLimit?: number
  /** Deadline for one search. Default 20000. */
  timeoutMs?: number
}

/** The `web_search` tool: query a search backend and return titles, links and snippets. */
export function createWebSearchTool(options: WebSearchToolOptions = {}): ToolDef<WebSearchInput> {
  const backend = options.backend ?? duckDuckGoBackend()
  const defaultLimit = numberOption('web_search', 'defaultLimit', options.defaultLimit, DEFAULT_WEB_SEARCH_LIMIT, { min: 1, max: MAX_WEB_SEARCH_LIMIT, integer: true })
  const timeoutMs = numberOption('web_search', 'timeoutMs', options.timeoutMs, DEFAULT_WEB_SEARCH_TIMEOUT_MS, { min: 1 })

  return tool({
    name: 'web_search',
    description: 'Search the web and return a numbered list of results, each with its title, URL and a short snippet. '
      + 'Use fetch_url on a result URL to read the page.',
    input: z.object({
      query: z.string().trim().min(1).max(MAX_WEB_SEARCH_QUERY_CHARS).describe('What to search for.'),
      limit: z.number().int().min(1).max(MAX_WEB_SEARCH_LIMIT).optional().describe(`Most results to return (default ${defaultLimit}).`),
    }),
    isConcurrencySafe: true,
    async execute({ query, limit }, ctx) {
      const { allowHosts } = webToolBehaviorOf(ctx.behavior)
      const host = endpointHost(backend)
      if (!hostAllowed(host, allowHosts))
        throw new Error(`web_search refused: the ${backend.name} backend's host "${host}" is not covered by fetchUrlAllowHosts`)

      const deadline = new AbortController()
      let timedOut = false
      const timer = startTimer(timeoutMs, () => {
        timedOut = true
        deadline.abort(new Error('timed out'))
      })
      try {
        const signal = AbortSignal.any([ctx.signal, deadline.signal])
        // A backend is host code that may ignore its signal; the deadline must hold all the same.
        const results = await untilAborted(backend.search(query, { limit: limit ?? defaultLimit, signal }), signal)
        // Unusable results are left out before the cut, so they do not take the place of usable ones.
        return formatSearchResults(query, backend.name, results.filter(hasUsableUrl).slice(0, limit ?? defaultLimit))
      }
      catch (error) {
        if (ctx.signal.aborted)
          throw new Error(`${backend.name} search was aborted`)
        if (timedOut)
          throw new Error(`${backend.name} search timed out after ${timeoutMs} ms`)
        throw error
      }
      finally {
        timer.clear()
      }
    },
  })
}

/** The default `web_search` tool, on DuckDuckGo. */
export const webSearch: ToolDef<WebSearchInput> = createWebSearchTool()

/** Results as the model sees them: a header, then `n. title`, the URL and the snippet, indented. */
export function formatSearchResults(query: string, backendName: string, results: readonly WebSearchResult[]): string {
  const shown = results.filter(hasUsableUrl)
  if (shown.length === 0)
    return `No results for "${query}" (${backendName}).`
  const items = shown.map((result, i) => {
    const lines = [`${i + 1}. ${oneLine(result.title, MAX_SEARCH_TITLE_CHARS) || result.url}`, `   ${result.url}`]
    const snippet = oneLine(result.snippet, MAX_SEARCH_SNIPPET_CHARS)
    if (snippet)
      lines.push(`   ${snippet}`)
    return lines.join('\n')
  })
  return `Results for "${query}" (${backendName}):\n\n${items.join('\n\n')}`
}

function hasUsableUrl(result: WebSearchResult): boolean {
  return isUsableResultUrl(result.url)
}

/** `text` on one line, cut to `maxChars` (the `…` included) without splitting a character. */
function oneLine(text: string, maxChars: number): string {
  const line = text.replace(WHITESPACE_RUN, ' ').trim()
  return line.length <= maxChars ? line : `${truncateText(line, maxChars - 1).trimEnd()}…`
}

function endpointHost(backend: WebSearchBackend): string {
  try {
    return new URL(backend.endpoint).hostname
  }
  catch {
    throw new Error(`web_search: the ${backend.name} backend has an invalid endpoint "${backend.endpoint}"`)
  }
}
