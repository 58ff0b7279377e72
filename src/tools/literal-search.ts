/**
 * Searching a text for a literal needle the model wrote, in time linear in
 * both whatever they hold (shared by `edit`'s exact and recovered matches).
 */

/** Line numbers an ambiguous match reports; the count still says how many there were in all. */
export const AMBIGUOUS_LINES_LISTED = 20

/**
 * Needles up to this long are searched with `String.prototype.indexOf`.
 * V8's search is fast on ordinary text but not linear: a periodic needle
 * against periodic text costs text × needle (a 200 KB `abab…` old_string took
 * 67 s on a 4 MB file of `abab…c` runs). Past this length the needle's first
 * characters are found natively and the rest is followed by Knuth–Morris–Pratt,
 * so a search costs at most text × this constant, plus text + needle.
 */
const NATIVE_NEEDLE_CHARS = 32

/** Finds one needle in texts, in time linear in the text and the needle whatever they hold. */
export class LiteralSearch {
  private readonly prefix: string
  /** KMP failure function of the needle, for needles longer than the native prefix. */
  private readonly failure: Int32Array | undefined

  constructor(readonly needle: string) {
    this.prefix = needle.slice(0, NATIVE_NEEDLE_CHARS)
    this.failure = needle.length > NATIVE_NEEDLE_CHARS ? failureFunction(needle) : undefined
  }

  /** The first occurrence in `text` at or after `from`, or -1. */
  indexIn(text: string, from: number): number {
    const failure = this.failure
    if (failure === undefined)
      return text.indexOf(this.needle, from)
    const needle = this.needle
    const length = needle.length
    let position = from
    // How much of the needle ends just before `position`.
    let matched = 0
    for (;;) {
      if (matched === 0) {
        // Every occurrence starts with the prefix: jump to its next occurrence natively.
        const at = text.indexOf(this.prefix, position)
        if (at === -1)
          return -1
        position = at + this.prefix.length
        matched = this.prefix.length
      }
      if (text.length - position < length - matched)
        return -1
      const unit = text.charCodeAt(position++)
      while (matched > 0 && needle.charCodeAt(matched) !== unit)
        matched = failure[matched - 1]
      if (needle.charCodeAt(matched) === unit)
        matched++
      if (matched === length)
        return position - length
    }
  }
}

/** `failure[i]`: length of the longest proper prefix of `needle` that ends at `i`. */
function failureFunction(needle: string): Int32Array {
  const failure = new Int32Array(needle.length)
  for (let i = 1, k = 0; i < needle.length; i++) {
    const unit = needle.charCodeAt(i)
    while (k > 0 && needle.charCodeAt(k) !== unit)
      k = failure[k - 1]
    if (needle.charCodeAt(k) === unit)
      k++
    failure[i] = k
  }
  return failure
}

export interface Occurrences {
  count: number
  first: number
  /** 1-based lines of the first `AMBIGUOUS_LINES_LISTED` occurrences. */
  lines: number[]
}

/** Count the non-overlapping occurrences, noting the lines of the first few: one pass, nothing kept per occurrence. */
export function findOccurrences(content: string, search: LiteralSearch): Occurrences {
  const lines: number[] = []
  let count = 0
  let first = -1
  let line = 1
  let nextNewline = content.indexOf('\n')
  for (let at = search.indexIn(content, 0); at !== -1; at = search.indexIn(content, at + search.needle.length)) {
    if (count === 0)
      first = at
    count++
    if (lines.length < AMBIGUOUS_LINES_LISTED) {
      while (nextNewline !== -1 && nextNewline < at) {
        line++
        nextNewline = content.indexOf('\n', nextNewline + 1)
      }
      lines.push(line)
    }
  }
  return { count, first, lines }
}
