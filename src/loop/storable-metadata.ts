/**
 * A tool result's metadata made safe to store. The transform hooks may attach
 * anything (a value from an MCP server or a web page, a cyclic object, a
 * BigInt), and the session writes the result, metadata included, as JSON in
 * the turn that holds it. A value that cannot be written that way used to
 * fail the write of the whole turn: the run rejected, its tool results were
 * lost and the model's calls were left without stored results. Such metadata
 * is now replaced by a note under `DROPPED_METADATA_KEY`, and the run goes on.
 */

import type { ToolResultMetadata } from '../core/content'
import { MAX_RECORD_DEPTH } from '../session/stores/record-checks'
import { groupDigits } from '../text/group-digits'
import { truncateText } from '../text/truncate'
import { errorMessage } from './call-answer'
import { DROPPED_METADATA_KEY } from './result-size'

/**
 * Levels of a stored turn above a result's metadata: the turn, its `content`
 * array and the `tool_result` block. A load refuses a turn nested past
 * `MAX_RECORD_DEPTH`, and a store refuses to write one.
 */
const LEVELS_ABOVE_METADATA = 3

/** How many levels of objects and arrays a result's metadata may nest (`{}` is 1), as written. */
export const MAX_METADATA_DEPTH = MAX_RECORD_DEPTH - LEVELS_ABOVE_METADATA

/**
 * The longest string V8 builds on a 64-bit host (2^29 − 24 UTF-16 units):
 * `JSON.stringify` fails on metadata whose text would be longer. Reaching it
 * also ends the walk below, so its work stays within what `JSON.stringify`
 * itself would do before failing.
 */
const MAX_JSON_CHARS = 2 ** 29 - 24

/** The prototypes of boxed primitives, which `JSON.stringify` writes as the primitive inside. */
const BOXED_PROTOTYPES = new Set<unknown>([Number.prototype, String.prototype, Boolean.prototype, BigInt.prototype])

/** A key written after a dot in a note's path; any other is quoted. */
const IDENTIFIER = /^[A-Z_$][\w$]*$/i

/**
 * The metadata to hand on for a result: `undefined` when there is none (no
 * own enumerable key, as before), `metadata` itself when the session can
 * store it, otherwise `{ [DROPPED_METADATA_KEY]: note }`. Storable means:
 * `JSON.stringify` writes it (no cycle, no BigInt, no `toJSON` or getter that
 * throws, a text short enough for a string) and what it writes nests at most
 * `MAX_METADATA_DEPTH` levels, so the turn holding it stays within
 * `MAX_RECORD_DEPTH`. Valid metadata is not copied or changed.
 */
export function storableMetadata(metadata: ToolResultMetadata): ToolResultMetadata | undefined {
  let problem: string | undefined
  try {
    if (Object.keys(metadata).length === 0)
      return undefined
    problem = jsonProblem(metadata, 'metadata', MAX_METADATA_DEPTH)
  }
  catch (error) {
    // A proxy whose traps throw, say: what the store would have met too.
    problem = `reading it threw (${thrownMessage(error)})`
  }
  return problem === undefined ? metadata : { [DROPPED_METADATA_KEY]: droppedNote(problem) }
}

function droppedNote(problem: string): string {
  return `[Dropped: the metadata attached to this result could not be stored: ${problem}.]`
}

/** A container being written: its own keys (`undefined` for an array), how many members, the next one to read. */
interface Frame {
  container: object
  keys: readonly string[] | undefined
  length: number
  next: number
  /** Levels of containers below it written so far. */
  below: number
  /** `chars` before its opening bracket. */
  charsBefore: number
}

/** A container written whole: how many levels it takes (itself included), and its share of the text's length. */
interface Written {
  levels: number
  chars: number
}

const TOO_LONG = `its JSON text would be longer than a string can hold (${groupDigits(MAX_JSON_CHARS)} characters)`

/**
 * Why `JSON.stringify` could not write `value` (held under `rootKey`), or
 * why what it writes nests past `maxDepth`; `undefined` when neither. The
 * walk follows `JSON.stringify` step by step, without recursion: it reads
 * the members in the same order, calling getters and `toJSON` as it does (so
 * the depth is that of the text written: a `toJSON` that flattens a cyclic
 * value passes), and stops at the first problem.
 *
 * A container reached a second time (shared, not a cycle) is not walked
 * again: what it took the first time counts again, as `JSON.stringify`
 * writes it again. The work is thus one visit per container and member, even
 * for a few arrays that hold each other twice over and would write a text of
 * 2^40 characters (on which `JSON.stringify` spins for minutes). A getter or
 * `toJSON` that answers differently on its second call is not asked again.
 */
export function jsonProblem(value: unknown, rootKey: string, maxDepth: number): string | undefined {
  const frames: Frame[] = []
  // The containers on the way down to the member being read: reaching one again is a cycle.
  const writing = new Set<object>()
  const written = new Map<object, Written>()
  // A lower bound of the text's length, never above it: an array takes its
  // brackets and a separator per member but one; an object its opening
  // bracket, and per member written a separator or its closing bracket, the
  // key and three (`"key":`); a value a character or more.
  let chars = 0
  let member: unknown = value
  let key: string | number = rootKey
  let inArray = false
  for (;;) {
    let problem: string | undefined
    try {
      member = jsonValueOf(member, key)
    }
    catch (error) {
      problem = `${hasToJSON(member) ? 'the toJSON of' : 'reading'} ${pathOf(rootKey, frames)} threw (${thrownMessage(error)})`
    }
    if (problem === undefined) {
      switch (typeof member) {
        case 'string':
          chars += member.length + 2
          break
        case 'number':
        case 'boolean':
          chars += 1
          break
        case 'bigint':
          problem = `a BigInt at ${pathOf(rootKey, frames)}, which JSON cannot write`
          break
        case 'object':
          if (member === null)
            chars += 4
          else
            problem = enter(member)
          break
        default:
          // `undefined`, a function or a symbol: left out of an object, `null` in an array.
          if (inArray)
            chars += 4
          else if (typeof key === 'string' && frames.length > 0)
            chars -= key.length + 4
      }
    }
    if (problem === undefined && chars > MAX_JSON_CHARS)
      problem = TOO_LONG
    if (problem !== undefined)
      return problem

    // The next member to read: the next of the innermost container with members left.
    let frame = frames.at(-1)
    while (frame !== undefined && frame.next === frame.length) {
      leave(frame)
      frame = frames.at(-1)
    }
    if (frame === undefined)
      return undefined
    const index = frame.next++
    try {
      if (frame.keys === undefined) {
        inArray = true
        key = index
        member = (frame.container as unknown[])[index]
      }
      else {
        // A separator (or the closing bracket) and `"key":`, taken back when the member is left out.
        inArray = false
        key = frame.keys[index]
        chars += key.length + 4
        member = (frame.container as Record<string, unknown>)[key]
      }
    }
    catch (error) {
      return `reading ${pathOf(rootKey, frames)} threw (${thrownMessage(error)})`
    }
  }

  /** Start writing `container` at the next level, or count it whole when it was written before; the problem, if any. */
  function enter(container: object): string | undefined {
    if (writing.has(container))
      return `a cycle at ${pathOf(rootKey, frames)} (the value contains itself)`
    const before = written.get(container)
    const levels = before?.levels ?? 1
    if (frames.length + levels > maxDepth)
      return `it nests more than ${groupDigits(maxDepth)} levels of objects and arrays (a stored turn may nest ${groupDigits(MAX_RECORD_DEPTH)}, and a result's metadata sits ${LEVELS_ABOVE_METADATA} levels inside its turn)`
    if (before !== undefined) {
      chars += before.chars
      const parent = frames.at(-1)
      if (parent !== undefined && parent.below < levels)
        parent.below = levels
      return undefined
    }
    let frame: Frame
    try {
      frame = openContainer(container, chars)
    }
    catch (error) {
      return `reading ${pathOf(rootKey, frames)} threw (${thrownMessage(error)})`
    }
    frames.push(frame)
    writing.add(container)
    // An array's brackets and separators at once (so a sparse array of length 2^32 is too long at once); an object's opening bracket.
    chars += frame.keys === undefined ? frame.length + 1 : 1
    return undefined
  }

  /** `frame`'s container is written whole: remember what it took, for the next time it is reached. */
  function leave(frame: Frame): void {
    frames.pop()
    writing.delete(frame.container)
    const levels = frame.below + 1
    written.set(frame.container, { levels, chars: chars - frame.charsBefore })
    const parent = frames.at(-1)
    if (parent !== undefined && parent.below < levels)
      parent.below = levels
  }
}

/**
 * What `JSON.stringify` writes in place of `value`, before it looks at its
 * type: the result of its `toJSON` when it has one, a primitive for a
 * `Number`, `String`, `Boolean` or `BigInt` object (of this realm).
 */
function jsonValueOf(value: unknown, key: string | number): unknown {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'bigint')
    return value
  const toJSON = (value as { toJSON?: unknown }).toJSON
  let written: unknown = value
  if (typeof toJSON === 'function')
    written = toJSON.call(value, String(key)) as unknown
  if (typeof written !== 'object' || written === null || Array.isArray(written))
    return written
  // Boxed primitives are written as their primitive (a boxed BigInt fails as a BigInt does).
  const prototype: unknown = Object.getPrototypeOf(written)
  return BOXED_PROTOTYPES.has(prototype) ? (written as { valueOf: () => unknown }).valueOf() : written
}

/** Whether `value` has a `toJSON` method, to name what threw; a getter that throws reads as none. */
function hasToJSON(value: unknown): boolean {
  try {
    return typeof (value as { toJSON?: unknown } | null | undefined)?.toJSON === 'function'
  }
  catch {
    return false
  }
}

/** A container to write: an array by its length, anything else by its own enumerable keys (either may run a proxy's traps). */
function openContainer(container: object, charsBefore: number): Frame {
  if (Array.isArray(container))
    return { container, keys: undefined, length: container.length, next: 0, below: 0, charsBefore }
  const keys = Object.keys(container)
  return { container, keys, length: keys.length, next: 0, below: 0, charsBefore }
}

/** Where the walk is, for a note: `metadata.report[2].items`, cut to a readable length. */
function pathOf(rootKey: string, frames: readonly Frame[]): string {
  let path = rootKey
  for (const frame of frames) {
    const index = frame.next - 1
    if (index < 0)
      break
    if (frame.keys === undefined) {
      path += `[${index}]`
    }
    else {
      const key = frame.keys[index]
      path += IDENTIFIER.test(key) ? `.${truncateText(key, 40)}` : `[${JSON.stringify(truncateText(key, 40))}]`
    }
    if (path.length > 200)
      return `${truncateText(path, 200)}…`
  }
  return path
}

/** A thrown value's text (`errorMessage` never throws), cut for a note. */
function thrownMessage(error: unknown): string {
  const text = errorMessage(error)
  return text.length > 200 ? `${truncateText(text, 200)}…` : text
}
