/**
 * How `edit` and `multi_edit` find `old_string`: pure functions over the
 * file's text. An exact match is tried first; two recoveries follow for the
 * usual ways a model's copy differs from the bytes on disk (line-number
 * prefixes pasted from `read_file`, LF where the file has CRLF).
 */

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
  = | { ok: true, content: string, count: number, mode: MatchMode, lines: number[] }
    | { ok: false, reason: 'not-found' }
    | { ok: false, reason: 'ambiguous', count: number, lines: number[] }

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

function occurrences(content: string, needle: string): number[] {
  const found: number[] = []
  let from = 0
  for (;;) {
    const index = content.indexOf(needle, from)
    if (index === -1)
      return found
    found.push(index)
    from = index + needle.length
  }
}

function lineAt(content: string, index: number): number {
  let line = 1
  for (let i = content.indexOf('\n'); i !== -1 && i < index; i = content.indexOf('\n', i + 1))
    line++
  return line
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
 */
export function applyEdit(content: string, edit: EditSpec): EditApplication {
  for (const candidate of candidates(content, edit)) {
    if (candidate.old === '')
      continue
    const found = occurrences(content, candidate.old)
    if (found.length === 0)
      continue
    const lines = found.map(index => lineAt(content, index))
    if (found.length > 1 && !edit.replace_all)
      return { ok: false, reason: 'ambiguous', count: found.length, lines }
    // Slicing, not String.replace: `$&` and friends in new_string must stay literal.
    let next = ''
    let from = 0
    for (const index of found) {
      next += content.slice(from, index) + candidate.replacement
      from = index + candidate.old.length
    }
    next += content.slice(from)
    return { ok: true, content: next, count: found.length, mode: candidate.mode, lines }
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

/** Character bigrams with counts, keyed by the two UTF-16 units packed in one number (no substring allocation). */
function bigrams(text: string): Map<number, number> {
  const grams = new Map<number, number>()
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.charCodeAt(i) * 0x10000 + text.charCodeAt(i + 1)
    grams.set(gram, (grams.get(gram) ?? 0) + 1)
  }
  return grams
}

/** Sørensen–Dice similarity of two normalized lines (at least two characters each) over character bigrams. */
function similarity(a: string, b: string, gramsA: Map<number, number>, gramsB: Map<number, number>): number {
  let shared = 0
  for (const [gram, count] of gramsA) {
    const other = gramsB.get(gram)
    if (other)
      shared += Math.min(count, other)
  }
  return (2 * shared) / (a.length - 1 + b.length - 1)
}

/** Past this many line comparisons, only windows anchored on the best-matching lines are scored. */
const FULL_SCAN_BUDGET = 400_000

/**
 * The window of the file most like `needle`, line for line, to show the model
 * what it probably meant. `undefined` when the file or the needle is empty.
 */
export function nearestMatch(content: string, needle: string): NearestMatch | undefined {
  const fileLines = content.split('\n').map(line => line.endsWith('\r') ? line.slice(0, -1) : line)
  const needleLines = needle.split('\n').map(line => line.endsWith('\r') ? line.slice(0, -1) : line)
  while (needleLines.length > 1 && needleLines[0].trim() === '') needleLines.shift()
  while (needleLines.length > 1 && needleLines.at(-1)?.trim() === '') needleLines.pop()
  if (fileLines.length === 0 || needleLines.every(line => line.trim() === ''))
    return undefined

  const k = Math.min(needleLines.length, fileLines.length)
  const fileNorm = fileLines.map(normalize)
  const needleNorm = needleLines.slice(0, k).map(normalize)
  // File bigrams are built on first use: most lines of a big file are never scored past their first comparison.
  const fileGrams: (Map<number, number> | undefined)[] = Array.from({ length: fileNorm.length })
  const needleGrams = needleNorm.map(bigrams)
  const lineScore = (fileIndex: number, needleIndex: number) => {
    const a = fileNorm[fileIndex]
    const b = needleNorm[needleIndex]
    if (a === b)
      return 1
    if (a.length < 2 || b.length < 2)
      return 0
    // Dice can be no higher than this length ratio; skip the bigram count when it cannot matter.
    if ((2 * Math.min(a.length, b.length) - 2) / (a.length + b.length - 2) < 0.2)
      return 0
    fileGrams[fileIndex] ??= bigrams(a)
    return similarity(a, b, fileGrams[fileIndex], needleGrams[needleIndex])
  }

  const starts = windowStarts(fileLines.length, k, needleNorm, lineScore)
  let best = { start: 0, score: -1 }
  for (const start of starts) {
    let total = 0
    // Stop once even perfect remaining lines could not beat the best window.
    for (let j = 0; j < k && total + (k - j) > best.score * k; j++)
      total += lineScore(start + j, j)
    const score = total / k
    if (score > best.score)
      best = { start, score }
  }
  return {
    startLine: best.start + 1,
    endLine: best.start + k,
    score: best.score,
    lines: fileLines.slice(best.start, best.start + k),
  }
}

function windowStarts(fileCount: number, k: number, needleNorm: string[], lineScore: (fileIndex: number, needleIndex: number) => number): number[] {
  const lastStart = fileCount - k
  if ((lastStart + 1) * k <= FULL_SCAN_BUDGET)
    return Array.from({ length: lastStart + 1 }, (_, i) => i)
  // Anchor on the longest needle line (the most distinctive one) and keep the windows around its best matches.
  let anchor = 0
  needleNorm.forEach((line, index) => {
    if (line.length > needleNorm[anchor].length)
      anchor = index
  })
  const scored: { start: number, score: number }[] = []
  for (let i = 0; i < fileCount; i++) {
    const start = i - anchor
    if (start >= 0 && start <= lastStart)
      scored.push({ start, score: lineScore(i, anchor) })
  }
  scored.sort((a, b) => b.score - a.score)
  return scored.slice(0, 64).map(entry => entry.start)
}
