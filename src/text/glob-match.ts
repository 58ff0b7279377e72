/**
 * Glob matching that cannot backtrack. The model chooses the patterns of
 * `glob` and of `grep`'s `glob` argument, and a regular expression engine that
 * backtracks needs seconds for `*a*a*a*a*a*a*b` against a name of 60 `a`s, and
 * hours for a few more stars, all on the main thread where no abort can fire.
 *
 * So a pattern is parsed once into a small automaton (a Thompson NFA), and a
 * path is read one UTF-16 unit at a time while the set of states the automaton
 * may be in is kept, each state at most once. A match costs at most
 * (path length + 1) × 2 × automaton size steps (a step on a `[…]` set also
 * scans its ranges, no more than the pattern's length), and the automaton
 * grows linearly with the pattern, which is capped at 4,096 characters with
 * braces nested at most 32 deep.
 *
 * The syntax and its meaning are those of the RegExp translation this
 * replaced: `*` and `?` stay inside a segment; `**` followed by `/` at the
 * start of a segment matches zero or more whole directories, `**` ending the
 * pattern at the start of a segment matches the rest (any unit but a line
 * break, as `.` did), and any other `**` means `*`. `[…]` is a set of units and
 * ranges, negated by a leading `!` or `^`, where `\` is an ordinary unit; with
 * no closing `]` the `[` is literal, and a set starting with `]` (JavaScript's
 * empty `[]`) matches nothing. `{a,b}` picks one alternative, nestable; `,`
 * and `}` outside braces are literal. `\` makes the next unit literal.
 */

export class GlobSyntaxError extends Error {
  override name = 'GlobSyntaxError'
}

/** The longest pattern accepted, in UTF-16 units. */
export const MAX_GLOB_LENGTH = 4096
/** The deepest `{…}` nesting accepted. */
export const MAX_GLOB_BRACE_DEPTH = 32

const SLASH = 0x2F

/** Units as flat `[low, high, low, high, …]` ranges, or everything outside them. */
interface UnitSet {
  negated: boolean
  ranges: number[]
}

const NOT_SLASH: UnitSet = { negated: true, ranges: [SLASH, SLASH] }
const NOT_LINE_BREAK: UnitSet = { negated: true, ranges: [0x0A, 0x0A, 0x0D, 0x0D, 0x2028, 0x2029] }
const NOTHING: UnitSet = { negated: false, ranges: [] }

/** What a pattern is made of, in order. */
type Piece
  = | { kind: 'unit', code: number }
    | { kind: 'set', set: UnitSet }
    /** Any run of units from `set`: `*` (no `/`) or a final `**` (no line break). */
    | { kind: 'repeat', set: UnitSet }
    /** `**` + `/` at a segment start: zero or more whole directories. */
    | { kind: 'dirs' }
    | { kind: 'choice', branches: Piece[][] }

function parseGlob(pattern: string): Piece[] {
  if (pattern.length > MAX_GLOB_LENGTH)
    throw new GlobSyntaxError(`Invalid glob: the pattern is ${pattern.length} characters long; at most ${MAX_GLOB_LENGTH} are accepted.`)
  let i = 0
  const lastClose = pattern.lastIndexOf(']')
  // A reversed range is reported once the whole pattern is read, as the RegExp constructor did after the brace check.
  let badRange: string | undefined

  const readSet = (body: string): UnitSet => {
    if (body.startsWith(']'))
      return NOTHING
    const negated = body.startsWith('!') || body.startsWith('^')
    const ranges: number[] = []
    for (let k = negated ? 1 : 0; k < body.length;) {
      const low = body.charCodeAt(k)
      // `x-y` is a range when a unit follows the dash; a dash first or last is itself.
      if (body[k + 1] === '-' && k + 2 < body.length) {
        const high = body.charCodeAt(k + 2)
        if (low > high)
          badRange ??= `the range "${body.slice(k, k + 3)}" in "[${body}]" is out of order`
        ranges.push(low, high)
        k += 3
      }
      else {
        ranges.push(low, low)
        k++
      }
    }
    return { negated, ranges }
  }

  const readSequence = (depth: number): Piece[] => {
    const pieces: Piece[] = []
    while (i < pattern.length) {
      const char = pattern[i]
      if (depth > 0 && (char === ',' || char === '}'))
        return pieces
      if (char === '*') {
        const double = pattern[i + 1] === '*'
        // Whether the unit before is `/` as written, escaped or not, as before.
        const atSegmentStart = i === 0 || pattern[i - 1] === '/'
        const after = i + (double ? 2 : 1)
        if (double && atSegmentStart && pattern[after] === '/') {
          pieces.push({ kind: 'dirs' })
          i = after + 1
        }
        else {
          pieces.push({ kind: 'repeat', set: double && atSegmentStart && after === pattern.length ? NOT_LINE_BREAK : NOT_SLASH })
          i = after
        }
      }
      else if (char === '?') {
        pieces.push({ kind: 'set', set: NOT_SLASH })
        i++
      }
      else if (char === '[') {
        // With no `]` after it, a `[` is itself; `lastClose` keeps a run of such `[` from scanning again and again.
        const close = i + 2 > lastClose ? -1 : pattern.indexOf(']', i + 2)
        pieces.push(close === -1 ? { kind: 'unit', code: 0x5B } : { kind: 'set', set: readSet(pattern.slice(i + 1, close)) })
        i = close === -1 ? i + 1 : close + 1
      }
      else if (char === '{') {
        if (depth === MAX_GLOB_BRACE_DEPTH)
          throw new GlobSyntaxError(`Invalid glob: braces are nested more than ${MAX_GLOB_BRACE_DEPTH} deep.`)
        i++
        const branches = [readSequence(depth + 1)]
        while (pattern[i] === ',') {
          i++
          branches.push(readSequence(depth + 1))
        }
        if (i === pattern.length)
          throw new GlobSyntaxError(`Invalid glob "${pattern}": a "{" is never closed.`)
        i++ // the `}`
        pieces.push({ kind: 'choice', branches })
      }
      else {
        const escaped = char === '\\' && i + 1 < pattern.length
        pieces.push({ kind: 'unit', code: pattern.charCodeAt(escaped ? i + 1 : i) })
        i += escaped ? 2 : 1
      }
    }
    return pieces
  }

  const pieces = readSequence(0)
  if (badRange !== undefined)
    throw new GlobSyntaxError(`Invalid glob "${pattern}": ${badRange}.`)
  return pieces
}

/** A state reads one unit and moves to `next`, forks into several states without reading, or accepts. */
type State
  = | { kind: 'unit', code: number, next: number }
    | { kind: 'set', set: UnitSet, next: number }
    | { kind: 'fork', next: number[] }
    | { kind: 'match' }

interface Automaton {
  states: State[]
  start: number
  /** States plus fork edges: reading one unit costs at most twice this many steps. */
  size: number
}

const MATCH = 0

/** Build the automaton back to front, each piece leading to the state after it. */
function buildAutomaton(pieces: Piece[]): Automaton {
  const states: State[] = [{ kind: 'match' }]
  let size = 1
  const add = (state: State): number => {
    size += state.kind === 'fork' ? 1 + state.next.length : 1
    return states.push(state) - 1
  }
  const fork = (targets: number[]): number => add({ kind: 'fork', next: targets })
  const link = (id: number, targets: number[]): void => {
    const state = states[id]
    if (state.kind !== 'fork')
      return
    for (const target of targets)
      state.next.push(target)
    size += targets.length
  }

  function sequence(list: Piece[], next: number): number {
    for (let k = list.length - 1; k >= 0; k--)
      next = piece(list[k], next)
    return next
  }
  function piece(part: Piece, next: number): number {
    switch (part.kind) {
      case 'unit':
        return add({ kind: 'unit', code: part.code, next })
      case 'set':
        return add({ kind: 'set', set: part.set, next })
      case 'repeat': {
        const loop = fork([])
        link(loop, [add({ kind: 'set', set: part.set, next: loop }), next])
        return loop
      }
      case 'dirs': {
        // At a directory boundary: go on, or read one name and its `/` and come back.
        const boundary = fork([])
        const name = fork([])
        link(name, [add({ kind: 'set', set: NOT_SLASH, next: name }), add({ kind: 'unit', code: SLASH, next: boundary })])
        link(boundary, [next, name])
        return boundary
      }
      case 'choice':
        return fork(part.branches.map(branch => sequence(branch, next)))
    }
  }

  const start = sequence(pieces, MATCH)
  return { states, start, size }
}

function inSet(set: UnitSet, code: number): boolean {
  const { ranges } = set
  for (let k = 0; k < ranges.length; k += 2) {
    if (code >= ranges[k] && code <= ranges[k + 1])
      return !set.negated
  }
  return set.negated
}

/** Run the automaton over `path`; `work.steps` counts states visited and units tested. */
function runAutomaton(automaton: Automaton, path: string, work: { steps: number }): boolean {
  const { states } = automaton
  // `seen[id] === stamp` once state `id` is in the set for the current position.
  const seen = new Int32Array(states.length).fill(-1)
  const stack: number[] = []
  const enter = (from: number, stamp: number, into: number[]): void => {
    stack.push(from)
    while (stack.length > 0) {
      const id = stack.pop() as number
      work.steps++
      if (seen[id] === stamp)
        continue
      seen[id] = stamp
      const state = states[id]
      if (state.kind === 'fork') {
        for (const target of state.next)
          stack.push(target)
      }
      else {
        into.push(id)
      }
    }
  }

  let current: number[] = []
  enter(automaton.start, 0, current)
  for (let position = 0; position < path.length && current.length > 0; position++) {
    const code = path.charCodeAt(position)
    const next: number[] = []
    for (const id of current) {
      work.steps++
      const state = states[id]
      if ((state.kind === 'unit' && state.code === code) || (state.kind === 'set' && inSet(state.set, code)))
        enter(state.next, position + 1, next)
    }
    current = next
  }
  return current.includes(MATCH)
}

/**
 * A test for whole paths against a glob. The pattern is read here, so a bad
 * one throws `GlobSyntaxError` now rather than on the first path.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  const automaton = buildAutomaton(parseGlob(pattern))
  return path => runAutomaton(automaton, path, { steps: 0 })
}

/** One match with its cost, for tests: `steps` never exceeds `(path.length + 1) * 2 * size`. */
export function measureGlobMatch(pattern: string, path: string): { matched: boolean, steps: number, size: number } {
  const automaton = buildAutomaton(parseGlob(pattern))
  const work = { steps: 0 }
  const matched = runAutomaton(automaton, path, work)
  return { matched, steps: work.steps, size: automaton.size }
}
