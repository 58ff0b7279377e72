export { blockedAddress, parseIpLiteral, parseIPv4, parseIPv6 } from './address'
export type { BlockedAddress, IpLiteral } from './address'
export { createFetchCache, FETCH_CACHE_MAX_BYTES, FETCH_CACHE_MAX_ENTRIES } from './cache'
export type { FetchCache, FetchCacheOptions } from './cache'
export {
  createFetchUrlTool,
  DEFAULT_FETCH_MAX_OUTPUT_CHARS,
  DEFAULT_FETCH_MAX_REDIRECTS,
  DEFAULT_FETCH_MAX_RESPONSE_BYTES,
  DEFAULT_FETCH_TIMEOUT_MS,
  fetchUrl,
  MAX_FETCH_TITLE_CHARS,
  MAX_FETCH_URL_CHARS,
} from './fetch-url'
export type { FetchUrlInput, FetchUrlToolOptions } from './fetch-url'
export { htmlToText } from './html-to-text'
export type { HtmlText } from './html-to-text'
export { hostAllowed, normalizeAllowHosts, webToolBehaviorOf } from './settings'
export type { WebToolBehavior } from './settings'
export { checkTarget, FetchRefusedError, systemResolver } from './target-guard'
export type { HostResolver, ResolvedAddress } from './target-guard'
