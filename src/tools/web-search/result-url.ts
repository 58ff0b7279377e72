/**
 * Which result URLs `web_search` shows. A URL cannot be cut and still lead
 * anywhere, so a result whose URL is too long, not http(s), unparseable, or
 * holding whitespace or control characters is left out rather than shown:
 * a line break in it would let a backend write result lines of its own.
 */

/** The longest result URL shown, in UTF-16 units. */
export const MAX_SEARCH_URL_CHARS = 2_048

const UNSAFE_URL_CHARACTER = /[\s\p{Cc}]/u
const HTTP_URL = /^https?:\/\//i

/** A URL the model can hand to `fetch_url` and that stays on its own line. */
export function isUsableResultUrl(url: unknown): url is string {
  return typeof url === 'string' && url.length <= MAX_SEARCH_URL_CHARS && HTTP_URL.test(url) && !UNSAFE_URL_CHARACTER.test(url) && URL.canParse(url)
}
