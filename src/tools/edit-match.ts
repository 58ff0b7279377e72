/**
 * How `edit` and `multi_edit` find `old_string`: pure functions over the
 * file's text. An exact match is tried first; two recoveries follow for the
 * usual ways a model's copy differs from the bytes on disk (line-number
 * prefixes pasted from `read_file`, LF where the file has CRLF).
 */

import { utf8ByteLength } from '../text/utf8-length'

export interface EditSpec {
  old_string: string
  new_string: string
  replace_all?: boolean
}

/**
 * How the match was found. `exact` and `line-numbers` match the file's bytes
 * verbatim; `line-endings` is a recovery, so it does not count as verbatim
 * when the file changed since it was read.
 */
export type MatchMode = 'exact' | 'line-numbers' | 'line-endings'

export type EditApplication
  = | { ok: true, content: string, count: number, mode: MatchMode, bytes: number }
    | { ok: false, reason: 'not-found' }
    | { ok: false, reason: 'ambiguous', count: number, lines: number[] }
    | { ok: false, reason: 'too-large', count: number, bytes: number }

/** How big the text may get, in UTF-8 bytes (what lands on disk). */
export interface EditLimits {
  /** UTF-8 size of the content the edit applies to. */
  contentBytes: number
  /** Largest edited content allowed. */
  maxBytes: number
}

/** Line numbers an ambiguous match reports; the count still says how many there were in all. */
export const AMBIGUOUS_LINES_LISTED = 20

const NUMBER_PREFIX = /^ *(\d+)\t/

/**
 * `text` without the `N<TAB>` prefix `read_file` puts on each line, or
 * `undefined` unless every line has one. For an `old_string` the numbers must
 * also be consecutive, which real content (a TSV column of ids) rarely is.
 */
export function stripLineNumbers(text: string, requireConsecutive: boolean): string | undefined {
  const lines = text.split('\n')
  const numbers: number[] = []
  const stripped: string[] = []
  for (const line of lines) {
    const match = NUMBER_PREFIX.exec(line)
    if (!match)
      return undefined
    numbers.push(Number(match[1]))
    stripped.push(line.slice(match[0].length))
  }
  if (requireConsecutive && numbers.some((n, i) => i > 0 && n !== numbers[i - 1] + 1))
    return undefined
  return stripped.join('\n')
}

// --- literal search ------------------------------------------------------------

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
class LiteralSearch {
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

interface Occurrences {
  count: number
  first: number
  /** 1-based lines of the first `AMBIGUOUS_LINES_LISTED` occurrences. */
  lines: number[]
}

/** Count the non-overlapping occurrences, noting the lines of the first few: one pass, nothing kept per occurrence. */
function findOccurrences(content: string, search: LiteralSearch): Occurrences {
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

/** Pieces joined per batch while building a replacement, so millions of occurrences never make a rope millions deep. */
const JOIN_BATCH = 4096

function replaceEvery(content: string, search: LiteralSearch, replacement: string): string {
  const batches: string[] = []
  let pieces: string[] = []
  let from = 0
  for (let at = search.indexIn(content, 0); at !== -1; at = search.indexIn(content, from)) {
    pieces.push(content.slice(from, at), replacement)
    from = at + search.needle.length
    if (pieces.length >= JOIN_BATCH) {
      batches.push(pieces.join(''))
      pieces = []
    }
  }
  pieces.push(content.slice(from))
  batches.push(pieces.join(''))
  return batches.join('')
}

interface Candidate {
  old: string
  replacement: string
  mode: MatchMode
}

function candidates(content: string, edit: EditSpec): Candidate[] {
  const list: Candidate[] = [{ old: edit.old_string, replacement: edit.new_string, mode: 'exact' }]
  const strippedOld = stripLineNumbers(edit.old_string, true)
  if (strippedOld !== undefined) {
    const strippedNew = stripLineNumbers(edit.new_string, false) ?? edit.new_string
    list.push({ old: strippedOld, replacement: strippedNew, mode: 'line-numbers' })
  }
  if (content.includes('\r\n')) {
    for (const candidate of [...list]) {
      if (candidate.old.includes('\n') && !candidate.old.includes('\r')) {
        list.push({
          old: candidate.old.replaceAll('\n', '\r\n'),
          replacement: candidate.replacement.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n'),
          mode: 'line-endings',
        })
      }
    }
  }
  return list
}

/**
 * Apply one replacement to `content`. The first form of `old_string` that
 * occurs decides: once found, more than one occurrence without `replace_all`
 * is an ambiguity, not a reason to try a looser form.
 *
 * Work is linear in the content and the edit. The size of the result is
 * computed from the count before it is built (`too-large` past
 * `limits.maxBytes`): a one-character `old_string` replaced everywhere by a
 * long `new_string` would otherwise build gigabytes, and V8 throws past
 * 2^29 characters anyway.
 */
export function applyEdit(content: string, edit: EditSpec, limits: EditLimits = { contentBytes: utf8ByteLength(content), maxBytes: Number.POSITIVE_INFINITY }): EditApplication {
  for (const candidate of candidates(content, edit)) {
    if (candidate.old === '')
      continue
    const search = new LiteralSearch(candidate.old)
    const found = findOccurrences(content, search)
    if (found.count === 0)
      continue
    if (found.count > 1 && !edit.replace_all)
      return { ok: false, reason: 'ambiguous', count: found.count, lines: found.lines }
    const bytes = limits.contentBytes + found.count * (utf8ByteLength(candidate.replacement) - utf8ByteLength(candidate.old))
    if (bytes > limits.maxBytes)
      return { ok: false, reason: 'too-large', count: found.count, bytes }
    // Slicing, not String.replace: `$&` and friends in new_string must stay literal.
    const next = found.count === 1
      ? content.slice(0, found.first) + candidate.replacement + content.slice(found.first + candidate.old.length)
      : replaceEvery(content, search, candidate.replacement)
    return { ok: true, content: next, count: found.count, mode: candidate.mode, bytes }
  }
  return { ok: false, reason: 'not-found' }
}
