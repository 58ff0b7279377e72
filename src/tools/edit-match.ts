/**
 * How `edit` and `multi_edit` find `old_string`: pure functions over the
 * file's text. An exact match is tried first; two recoveries follow for the
 * usual ways a model's copy differs from the bytes on disk (line-number
 * prefixes pasted from `read_file`, LF where the file has CRLF).
 */

import { Buffer } from 'node:buffer'

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

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
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
export function applyEdit(content: string, edit: EditSpec, limits: EditLimits = { contentBytes: utf8Length(content), maxBytes: Number.POSITIVE_INFINITY }): EditApplication {
  for (const candidate of candidates(content, edit)) {
    if (candidate.old === '')
      continue
    const search = new LiteralSearch(candidate.old)
    const found = findOccurrences(content, search)
    if (found.count === 0)
      continue
    if (found.count > 1 && !edit.replace_all)
      return { ok: false, reason: 'ambiguous', count: found.count, lines: found.lines }
    const bytes = limits.contentBytes + found.count * (utf8Length(candidate.replacement) - utf8Length(candidate.old))
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

// --- nearest match -----------------------------------------------------------

export interface NearestMatch {
  /** 1-based first and last line of the closest window. */
  startLine: number
  endLine: number
  /** Mean line similarity, 0 … 1. */
  score: number
  lines: string[]
}

const WHITESPACE_RUN = /\s+/g

function normalize(line: string): string {
  return line.trim().replace(WHITESPACE_RUN, ' ')
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** Character bigrams, each the two UTF-16 units packed in one number, sorted so that two lines compare in one merge. */
function bigrams(text: string): Uint32Array {
  const grams = new Uint32Array(Math.max(0, text.length - 1))
  for (let i = 0; i < grams.length; i++)
    grams[i] = text.charCodeAt(i) * 0x10000 + text.charCodeAt(i + 1)
  return grams.sort()
}

/** Sørensen–Dice similarity of two lines (at least two characters each) over their bigram multisets. */
function similarity(a: Uint32Array, b: Uint32Array): number {
  let shared = 0
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      shared++
      i++
      j++
    }
    else if (a[i] < b[j]) {
      i++
    }
    else {
      j++
    }
  }
  return (2 * shared) / (a.length + b.length)
}

/** Past this many line comparisons, only windows anchored on the best-matching lines are scored. */
const FULL_SCAN_BUDGET = 400_000

/** Windows scored around the best matches of the anchor line. */
const ANCHOR_WINDOWS = 64

/**
 * Characters `nearestMatch` may read while scoring windows (normalizing a
 * file line, comparing two lines) before it settles for the best window
 * found so far. A comparison costs the lines' length, so without a bound a
 * miss on a file of hundreds of thousands of long lines blocked the process
 * for minutes; the preview is a hint, never worth that. Finding the anchors
 * of a big file is one linear pass outside this budget.
 */
export const PREVIEW_WORK_BUDGET = 16_000_000

interface FileLine {
  norm: string
  grams?: Uint32Array
}

/** Line-against-needle-line scores, counting the characters they read. */
class LineScorer {
  work = 0
  private readonly needleGrams: Uint32Array[]

  constructor(readonly needleNorm: readonly string[]) {
    this.needleGrams = needleNorm.map(bigrams)
  }

  line(text: string): FileLine {
    this.work += text.length
    return { norm: normalize(text) }
  }

  score(line: FileLine, j: number): number {
    const a = line.norm
    const b = this.needleNorm[j]
    this.work += 1
    if (a.length === b.length) {
      this.work += a.length
      if (a === b)
        return 1
    }
    if (a.length < 2 || b.length < 2)
      return 0
    // Dice can be no higher than this length ratio; skip the bigram count when it cannot matter.
    if (lengthBound(a.length, b.length) < 0.2)
      return 0
    if (line.grams === undefined) {
      this.work += a.length
      line.grams = bigrams(a)
    }
    this.work += a.length + b.length
    return similarity(line.grams, this.needleGrams[j])
  }
}

function lengthBound(a: number, b: number): number {
  return (2 * Math.min(a, b) - 2) / (a + b - 2)
}

/** JavaScript's `\s` (what `trim` and `normalize` take for space), for one UTF-16 unit. */
function isSpace(unit: number): boolean {
  return unit === 0x20 || (unit >= 0x09 && unit <= 0x0D) || unit === 0xA0 || unit === 0x1680 || (unit >= 0x2000 && unit <= 0x200A)
    || unit === 0x2028 || unit === 0x2029 || unit === 0x202F || unit === 0x205F || unit === 0x3000 || unit === 0xFEFF
}

const SLOTS = 0x10000

/** A bigram's slot in the anchor tables: exact for two Latin-1 units, hashed otherwise. */
function slot(first: number, second: number): number {
  return first < 0x100 && second < 0x100 ? (first << 8) | second : (Math.imul(first, 0x9E3779B1) ^ second) >>> 16
}

/**
 * Scores raw file lines against the anchor (a normalized needle line) as
 * `LineScorer.score` would, in one pass over each line and without
 * allocating: the line is normalized on the fly and its bigrams counted in
 * tables indexed by slot. A hash collision can only flatter a line, and the
 * window scoring that follows uses the exact measure.
 */
class AnchorScorer {
  private readonly counts = new Uint16Array(SLOTS)
  private readonly used = new Uint16Array(SLOTS)
  private readonly stamps = new Int32Array(SLOTS)
  private stamp = 0

  constructor(private readonly anchor: string) {
    for (let i = 0; i + 1 < anchor.length; i++) {
      const at = slot(anchor.charCodeAt(i), anchor.charCodeAt(i + 1))
      if (this.counts[at] < 0xFFFF)
        this.counts[at]++
    }
  }

  /** The similarity of `content[from, to)`, a line without its terminator. */
  score(content: string, from: number, to: number): number {
    const b = this.anchor.length
    if (b < 2)
      return this.isAnchor(content, from, to) ? 1 : 0
    // Normalizing only shortens a line: one this much shorter cannot score.
    if (to - from < b && lengthBound(to - from, b) < 0.2)
      return 0
    // Longer than this, the length bound is under 0.2 too.
    const longest = 9 * b - 8
    const stamp = ++this.stamp
    let length = 0
    let hits = 0
    let previous = -1
    let space = false
    for (let i = from; i < to; i++) {
      const unit = content.charCodeAt(i)
      if (isSpace(unit)) {
        // A run of spaces is one space, and none at the start or the end.
        space = previous !== -1
        continue
      }
      if (space) {
        hits += this.take(previous, 0x20, stamp)
        previous = 0x20
        length++
        space = false
      }
      if (previous !== -1)
        hits += this.take(previous, unit, stamp)
      previous = unit
      if (++length > longest)
        return 0
    }
    if (length < 2 || lengthBound(length, b) < 0.2)
      return 0
    return (2 * hits) / (length - 1 + b - 1)
  }

  /** Whether the line normalizes to a one-character anchor: that character and spaces around it. */
  private isAnchor(content: string, from: number, to: number): boolean {
    let found = false
    for (let i = from; i < to; i++) {
      const unit = content.charCodeAt(i)
      if (isSpace(unit))
        continue
      if (found || unit !== this.anchor.charCodeAt(0))
        return false
      found = true
    }
    return found
  }

  /** 1 when the anchor has this bigram once more than the line has used so far. */
  private take(first: number, second: number, stamp: number): number {
    const at = slot(first, second)
    if (this.stamps[at] !== stamp) {
      this.stamps[at] = stamp
      this.used[at] = 0
    }
    if (this.used[at] >= this.counts[at])
      return 0
    this.used[at]++
    return 1
  }
}

function countLines(content: string): number {
  let count = 1
  for (let i = content.indexOf('\n'); i !== -1; i = content.indexOf('\n', i + 1))
    count++
  return count
}

interface Window {
  start: number
  score: number
}

/**
 * The window of the file most like `needle`, line for line, to show the model
 * what it probably meant. `undefined` when the needle is blank. Time and
 * memory are bounded whatever the file: small searches score every window,
 * big ones only the windows around the best matches of the needle's longest
 * line, and every search stops after `budget` characters of work.
 */
export function nearestMatch(content: string, needle: string, budget = PREVIEW_WORK_BUDGET): NearestMatch | undefined {
  const needleLines = needle.split('\n').map(withoutCr)
  while (needleLines.length > 1 && needleLines[0].trim() === '') needleLines.shift()
  while (needleLines.length > 1 && needleLines.at(-1)?.trim() === '') needleLines.pop()
  if (needleLines.every(line => line.trim() === ''))
    return undefined

  const fileCount = countLines(content)
  const k = Math.min(needleLines.length, fileCount)
  const scorer = new LineScorer(needleLines.slice(0, k).map(normalize))
  const lastStart = fileCount - k
  // Scoring every window compares each file line with each needle line.
  const fullScanWork = (2 + k) * content.length + fileCount * needle.length
  const best = (lastStart + 1) * k <= FULL_SCAN_BUDGET && fullScanWork <= budget
    ? scanAll(content.split('\n'), k, scorer, budget)
    : scanAnchored(content, fileCount, k, scorer, budget)
  if (best === undefined)
    return undefined
  return {
    startLine: best.start + 1,
    endLine: best.start + k,
    score: best.score,
    lines: linesFrom(content, best.start, k),
  }
}

/** Score every window (the file has few enough lines for that), stopping when the budget is spent. */
function scanAll(rawLines: readonly string[], k: number, scorer: LineScorer, budget: number): Window | undefined {
  const lines: (FileLine | undefined)[] = Array.from({ length: rawLines.length })
  const lineScore = (index: number, j: number) => scorer.score(lines[index] ??= scorer.line(withoutCr(rawLines[index])), j)
  let best: Window | undefined
  for (let start = 0; start + k <= rawLines.length && scorer.work <= budget; start++) {
    const score = windowScore(k, best, j => lineScore(start + j, j))
    if (best === undefined || score > best.score)
      best = { start, score }
  }
  return best
}

/** The mean score of a window, cut short once even perfect remaining lines could not beat `best`. */
function windowScore(k: number, best: Window | undefined, lineScore: (j: number) => number): number {
  const floor = best === undefined ? -1 : best.score
  let total = 0
  for (let j = 0; j < k && total + (k - j) > floor * k; j++)
    total += lineScore(j)
  return total / k
}

/**
 * Score the needle's longest line (the most distinctive one) against every
 * file line, in one linear pass that keeps only the best `ANCHOR_WINDOWS`
 * positions, then score the windows around them within the budget.
 */
function scanAnchored(content: string, fileCount: number, k: number, scorer: LineScorer, budget: number): Window | undefined {
  let anchor = 0
  scorer.needleNorm.forEach((line, index) => {
    if (line.length > scorer.needleNorm[anchor].length)
      anchor = index
  })
  const lastStart = fileCount - k
  let kept: (Window & { offset: number })[] = []
  // Once the list is full, a line must beat its worst to enter: a later tie would lose anyway.
  let floor = Number.NEGATIVE_INFINITY
  // Stable sort, best first, keep the head: the same windows as sorting every line at once.
  const compact = () => {
    kept.sort((a, b) => b.score - a.score)
    kept = kept.slice(0, ANCHOR_WINDOWS)
    if (kept.length === ANCHOR_WINDOWS)
      floor = kept[ANCHOR_WINDOWS - 1].score
  }
  const anchorScorer = new AnchorScorer(scorer.needleNorm[anchor])
  let offset = 0
  for (let index = 0; index < fileCount; index++) {
    const newline = content.indexOf('\n', offset)
    const end = newline === -1 ? content.length : newline
    const start = index - anchor
    if (start >= 0 && start <= lastStart) {
      const score = anchorScorer.score(content, offset, end > offset && content.charCodeAt(end - 1) === 0x0D ? end - 1 : end)
      if (score > floor)
        kept.push({ start, score, offset })
      if (kept.length >= 4 * ANCHOR_WINDOWS)
        compact()
    }
    offset = end + 1
  }
  compact()

  let best: Window | undefined
  for (const candidate of kept) {
    if (scorer.work > budget)
      break
    // Back from the anchor line to the window's first line.
    let from = candidate.offset
    for (let back = 0; back < anchor; back++)
      from = from <= 1 ? 0 : content.lastIndexOf('\n', from - 2) + 1
    scorer.work += candidate.offset - from
    const window = new LineCursor(content, from)
    const score = windowScore(k, best, j => scorer.score(scorer.line(window.lineAt(j)), j))
    if (best === undefined || score > best.score)
      best = { start: candidate.start, score }
  }
  return best
}

/** Reads the lines of `content` from an offset on, in order, each once. */
class LineCursor {
  private next = 0

  constructor(private readonly content: string, private offset: number) {}

  /** Line `j` after the start; called with j = 0, 1, 2, … */
  lineAt(j: number): string {
    while (this.next < j)
      this.take()
    return this.take()
  }

  private take(): string {
    const newline = this.content.indexOf('\n', this.offset)
    const end = newline === -1 ? this.content.length : newline
    const line = withoutCr(this.content.slice(this.offset, end))
    this.offset = end + 1
    this.next++
    return line
  }
}

/** `count` lines of `content` from 0-based line `start`, without their terminators. */
function linesFrom(content: string, start: number, count: number): string[] {
  let offset = 0
  for (let line = 0; line < start; line++)
    offset = content.indexOf('\n', offset) + 1
  const cursor = new LineCursor(content, offset)
  return Array.from({ length: count }, (_, j) => cursor.lineAt(j))
}
