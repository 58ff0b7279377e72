/**
 * The closest-text preview `edit` and `multi_edit` show when `old_string` is
 * not found: the window of the file's lines most like the needle's, found in
 * bounded work (one linear pass, then at most `PREVIEW_WORK_BUDGET`
 * characters of scoring), so a miss in a big file of long lines stays cheap.
 */

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
