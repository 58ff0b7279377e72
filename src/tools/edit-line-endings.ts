/**
 * `edit`'s last recovery: an `old_string` that spans lines of a file which
 * ends some lines with CRLF and others with LF. A model copies text with LF
 * throughout (or with the endings of some other part of the file), so
 * neither the exact form nor the all-CRLF form of `old_string` occurs.
 *
 * The search runs on the content with every CRLF read as LF. Each
 * occurrence is mapped back to the file's own bytes, and the replacement
 * gives its n-th line break the ending of the n-th break of the text it
 * replaces (lines past the last take the last one's), so the lines around
 * the edit keep the endings they had. Work is linear in the content and the
 * edit: three passes, each over the content once.
 */

import { utf8ByteLength } from '../text/utf8-length'
import { findOccurrences, LiteralSearch } from './literal-search'

/** Occurrences found with line endings ignored. */
export interface EndingBlindMatch {
  count: number
  /** 1-based lines of the first occurrences (see `findOccurrences`). */
  lines: number[]
  /** UTF-8 bytes the replacement adds (negative: removes); only computed when it will be applied. */
  byteDelta: number
  /** The content with the replacement made (every occurrence, or the one). */
  replace: () => string
}

/** `text` with CRLF read as LF, and where each removed CR stood in the new text. */
interface Normalized {
  text: string
  /** Ascending positions, in `text`, of the LF each removed CR stood before. */
  crBefore: number[]
}

function normalize(content: string): Normalized {
  const pieces: string[] = []
  const crBefore: number[] = []
  let from = 0
  let length = 0
  for (let at = content.indexOf('\r\n'); at !== -1; at = content.indexOf('\r\n', at + 2)) {
    pieces.push(content.slice(from, at))
    length += at - from
    crBefore.push(length)
    from = at + 1
  }
  pieces.push(content.slice(from))
  return { text: pieces.join(''), crBefore }
}

/**
 * Maps positions of the normalized text back to the content. Positions must
 * be asked for in ascending order, which keeps each pass linear.
 */
class PositionMap {
  private next = 0
  constructor(private readonly crBefore: readonly number[]) {}

  /** Position in the content of normalized position `at`; a removed CR at `at` is counted before it, so a range starting at its LF starts at the CR. */
  original(at: number): number {
    while (this.next < this.crBefore.length && this.crBefore[this.next] < at)
      this.next++
    return at + this.next
  }
}

/** Whether each line break of `region` (a piece of the content) is CRLF, in order. */
function breakEndings(region: string): boolean[] {
  const crlf: boolean[] = []
  for (let at = region.indexOf('\n'); at !== -1; at = region.indexOf('\n', at + 1))
    crlf.push(at > 0 && region.charCodeAt(at - 1) === 0x0D)
  return crlf
}

/** `lines` (the replacement split at LF) joined with the endings of the text it replaces. */
function joinWithEndings(lines: readonly string[], endings: readonly boolean[]): string {
  const pieces = [lines[0]]
  for (let i = 1; i < lines.length; i++)
    pieces.push(endings[Math.min(i - 1, endings.length - 1)] ? '\r\n' : '\n', lines[i])
  return pieces.join('')
}

/** CRs `joinWithEndings` puts in a replacement of `breaks` line breaks. */
function crsAdded(breaks: number, endings: readonly boolean[]): number {
  let count = 0
  const paired = Math.min(breaks, endings.length)
  for (let i = 0; i < paired; i++)
    count += endings[i] ? 1 : 0
  if (breaks > paired && endings.at(-1) === true)
    count += breaks - paired
  return count
}

/**
 * Find `needle` in `content` with line endings ignored, or `undefined` when
 * it does not occur. `needle` and `replacement` may hold CRLF or LF; both
 * are read as LF. Only for a needle that spans lines (one that does not is
 * found by the exact search).
 */
export function matchIgnoringLineEndings(content: string, needle: string, replacement: string, replaceAll: boolean): EndingBlindMatch | undefined {
  const needleLf = needle.replaceAll('\r\n', '\n')
  if (!needleLf.includes('\n'))
    return undefined
  const normalized = normalize(content)
  const search = new LiteralSearch(needleLf)
  const found = findOccurrences(normalized.text, search)
  if (found.count === 0)
    return undefined
  const replacementLines = replacement.replaceAll('\r\n', '\n').split('\n')
  const applies = found.count === 1 || replaceAll
  // Each occurrence: where it stands in the content, and the endings of the lines it covers.
  const eachOccurrence = (visit: (start: number, end: number, endings: boolean[]) => void): void => {
    const map = new PositionMap(normalized.crBefore)
    for (let at = search.indexIn(normalized.text, 0); at !== -1; at = search.indexIn(normalized.text, at + needleLf.length)) {
      const start = map.original(at)
      const end = map.original(at + needleLf.length)
      visit(start, end, breakEndings(content.slice(start, end)))
    }
  }
  let byteDelta = 0
  if (applies) {
    const needleBytes = utf8ByteLength(needleLf)
    const replacementBytes = utf8ByteLength(replacementLines.join('\n'))
    eachOccurrence((start, end, endings) => {
      byteDelta += replacementBytes + crsAdded(replacementLines.length - 1, endings) - needleBytes - (end - start - needleLf.length)
    })
  }
  const replace = (): string => {
    const pieces: string[] = []
    let from = 0
    eachOccurrence((start, end, endings) => {
      pieces.push(content.slice(from, start), joinWithEndings(replacementLines, endings))
      from = end
    })
    pieces.push(content.slice(from))
    return pieces.join('')
  }
  return { count: found.count, lines: found.lines, byteDelta, replace }
}
