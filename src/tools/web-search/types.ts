/** One search hit, as every backend reports it. */
export interface WebSearchResult {
  title: string
  url: string
  /** A short excerpt of the page; may be empty. */
  snippet: string
}

/** What a backend gets with each query. */
export interface WebSearchOptions {
  /** Most results wanted; a backend may return fewer. */
  limit: number
  /** Aborted with the run or when the tool's timeout expires. */
  signal: AbortSignal
}

/**
 * A search service `web_search` can query. `endpoint` is the base URL the
 * backend sends its requests to: `web_search` checks its host against
 * `fetchUrlAllowHosts` before calling `search`, so a backend must not send
 * requests anywhere else.
 */
export interface WebSearchBackend {
  /** Shown in the results header and in errors. */
  name: string
  endpoint: string
  /** Run one query and return up to `options.limit` results. */
  search: (query: string, options: WebSearchOptions) => Promise<WebSearchResult[]>
}
