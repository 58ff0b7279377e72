/**
 * How `edit` and `multi_edit` find `old_string`: pure functions over the
 * file's text. An exact match is tried first; recoveries follow for the
 * usual ways a model's copy differs from the bytes on disk (line-number
 * prefixes pasted from `read_file`, LF where the file has CRLF, line endings
 * that differ line by line in a file that mixes them).
 */

import { utf8ByteLength } from '../text/utf8-length'
import { matchIgnoringLineEndings } from './edit-line-endings'
import { findOccurrences, LiteralSearch } from './literal-search'

export interface EditSpec {
  old_string: string
  new_string: string
  replace_all?: boolean
}

/**
 * How the match was found. `exact` and `line-numbers` match the file's bytes
 * verbatim; `line-endings` (LF written for a CRLF file) and
 * `mixed-line-endings` (line endings ignored in a file that mixes them) are
 * recoveries, so they do not count as verbatim when the file changed since
 * it was read.
 */
export type MatchMode = 'exact' | 'line-numbers' | 'line-endings' | 'mixed-line-endings'

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
  return content.includes('\r\n') ? applyIgnoringLineEndings(content, edit, limits) : { ok: false, reason: 'not-found' }
}

/**
 * The last recovery, for a file that mixes CRLF and LF: `old_string` (or its
 * form without line numbers) matched with every line ending read as LF.
 */
function applyIgnoringLineEndings(content: string, edit: EditSpec, limits: EditLimits): EditApplication {
  const strippedOld = stripLineNumbers(edit.old_string, true)
  const forms = [{ old: edit.old_string, replacement: edit.new_string }]
  if (strippedOld !== undefined)
    forms.push({ old: strippedOld, replacement: stripLineNumbers(edit.new_string, false) ?? edit.new_string })
  for (const form of forms) {
    const match = matchIgnoringLineEndings(content, form.old, form.replacement, edit.replace_all === true)
    if (!match)
      continue
    if (match.count > 1 && !edit.replace_all)
      return { ok: false, reason: 'ambiguous', count: match.count, lines: match.lines }
    const bytes = limits.contentBytes + match.byteDelta
    if (bytes > limits.maxBytes)
      return { ok: false, reason: 'too-large', count: match.count, bytes }
    return { ok: true, content: match.replace(), count: match.count, mode: 'mixed-line-endings', bytes }
  }
  return { ok: false, reason: 'not-found' }
}
