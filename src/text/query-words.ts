/**
 * The words of a search query from the model or a script. Searches score
 * each word against every entry on the agent's thread, so a query is cut
 * before the work starts: its first `MAX_QUERY_CHARS` characters, and at most
 * `MAX_QUERY_WORDS` distinct words of them (a megabyte of query held the
 * thread for half a minute).
 */

/** Characters of a query read; the rest is ignored. */
export const MAX_QUERY_CHARS = 2000
/** Distinct words of a query scored; later ones are ignored. */
export const MAX_QUERY_WORDS = 32

const WORD_BREAK = /[^a-z0-9]+/

/** The distinct lower-case words of `query`'s start, each at least `minLength` long, in order. */
export function queryWords(query: string, minLength = 1): string[] {
  const words = query.slice(0, MAX_QUERY_CHARS).toLowerCase().split(WORD_BREAK).filter(word => word.length >= minLength)
  return [...new Set(words)].slice(0, MAX_QUERY_WORDS)
}
