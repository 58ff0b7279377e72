/** The web tools' knobs (`fetch_url`, `web_search`). */

import { defineKnobs, isLimit, isStringList } from './define'

/** Egress and caching of the web tools. */
export interface WebKnobs {
  /** Egress allowlist for `fetch_url` and `web_search` (host suffix, case-insensitive; `[]` means unset). */
  fetchUrlAllowHosts?: readonly string[]
  /** TTL (ms) of `fetch_url`'s in-process response cache. Default off. */
  fetchUrlCacheTtlMs?: number
}

/** The web-tool slice: both knobs are off until set. */
export const WEB_KNOBS = defineKnobs<WebKnobs, object>('web tools', {}, {
  fetchUrlAllowHosts: { doc: 'Egress allowlist of `fetch_url` and `web_search` (host suffix, case-insensitive; `[]` is unset).', defaultLabel: 'off', check: isStringList },
  fetchUrlCacheTtlMs: { doc: 'Lifetime of `fetch_url`\'s in-process response cache; `0` is off.', defaultLabel: 'off', check: isLimit },
})
