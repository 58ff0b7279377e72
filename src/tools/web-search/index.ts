export { BRAVE_ENDPOINT, braveBackend } from './brave'
export type { BraveBackendOptions } from './brave'
export { DUCKDUCKGO_ENDPOINT, duckDuckGoBackend, parseDuckDuckGoResults } from './duckduckgo'
export type { DuckDuckGoBackendOptions } from './duckduckgo'
export { TAVILY_ENDPOINT, tavilyBackend } from './tavily'
export type { TavilyBackendOptions } from './tavily'
export type { WebSearchBackend, WebSearchOptions, WebSearchResult } from './types'
export {
  createWebSearchTool,
  DEFAULT_WEB_SEARCH_LIMIT,
  DEFAULT_WEB_SEARCH_TIMEOUT_MS,
  formatSearchResults,
  MAX_SEARCH_URL_CHARS,
  MAX_WEB_SEARCH_LIMIT,
  MAX_WEB_SEARCH_QUERY_CHARS,
  webSearch,
} from './web-search'
export type { WebSearchInput, WebSearchToolOptions } from './web-search'
