/**
 * Which advertised tool names a mistyped one most likely meant. Names are
 * compared folded (lower case, `-`, `.`, spaces and camel humps read as `_`),
 * by edit distance with adjacent swaps, and by shared words, so `readFile`,
 * `Read`, `file_read` and `reed_file` all point to `read_file`.
 */

const CAMEL_HUMP = /([a-z0-9])([A-Z])/g
const SEPARATORS = /[\s.\-/:_]+/g
const EDGE_UNDERSCORES = /^_|_$/g

function fold(name: string): string {
  return name.replace(CAMEL_HUMP, '$1_$2').toLowerCase().replace(SEPARATORS, '_').replace(EDGE_UNDERSCORES, '')
}

/** Below this closeness a name is not worth suggesting. */
const MIN_CLOSENESS = 0.5

/** Edit distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: number[] = Array.from<number>({ length: rows * cols }).fill(0)
  for (let i = 0; i < rows; i++) d[i * cols] = i
  for (let j = 0; j < cols; j++) d[j] = j
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[(i - 2) * cols + j - 2] + 1)
      d[i * cols + j] = best
    }
  }
  return d[rows * cols - 1]
}

/**
 * Longest folded name the edit distance is computed for. The distance costs the product of the two lengths,
 * and the called name is the model's: one of 100,000 characters against a 64-character tool name took about a
 * second, one of a megabyte twelve. Names the APIs accept are at most 64 characters.
 */
const MAX_EDIT_NAME = 128

/** `1 - distance / longest`, or 0 when it cannot reach `MIN_CLOSENESS` or a name is too long to compare. */
function editCloseness(called: string, candidate: string): number {
  const longest = Math.max(called.length, candidate.length)
  // The distance is at least the length difference: past this bound the score is below the threshold anyway.
  if (longest > MAX_EDIT_NAME || Math.abs(called.length - candidate.length) > longest * (1 - MIN_CLOSENESS))
    return 0
  return 1 - distance(called, candidate) / longest
}

/** A score in [0, 1] for how close `called` is to `candidate` (1: the same once folded). */
function closeness(called: string, candidate: string): number {
  if (called === candidate)
    return 1
  const byEdits = editCloseness(called, candidate)
  const calledWords = new Set(called.split('_').filter(Boolean))
  const candidateWords = candidate.split('_').filter(Boolean)
  const shared = candidateWords.filter(word => calledWords.has(word)).length
  const byWords = shared === 0 ? 0 : shared / Math.max(calledWords.size, candidateWords.length)
  // One name inside the other (`read` in `read_file`, `bash` in `mcp__box__bash`) is a strong hint.
  const contained = called.length >= 3 && candidate.length >= 3 && (candidate.includes(called) || called.includes(candidate)) ? 0.6 : 0
  return Math.max(byEdits, byWords, contained)
}

/**
 * Up to `limit` of `advertised` closest to `called`, best first; names not
 * close enough to be a plausible intent are left out, so the list may be empty.
 */
export function suggestToolNames(called: string, advertised: readonly string[], limit: number): string[] {
  if (limit <= 0)
    return []
  const target = fold(called)
  const scored: { name: string, score: number, index: number }[] = []
  advertised.forEach((name, index) => {
    if (name === called)
      return
    const score = closeness(target, fold(name))
    if (score >= MIN_CLOSENESS)
      scored.push({ name, score, index })
  })
  scored.sort((a, b) => b.score - a.score || a.index - b.index)
  // A name that is the same once folded (`readFile` for `read_file`) is what was meant; the rest is noise.
  const exact = scored.filter(entry => entry.score === 1)
  return [...new Set((exact.length > 0 ? exact : scored).map(entry => entry.name))].slice(0, limit)
}
