/**
 * Structural checks of stored records, run on every load. They look only at
 * what the rest of the SDK dereferences (a turn's role and content array, each
 * block's `type` and the fields its kind is read by), with plain `typeof`
 * tests: loading 10,000 turns must stay cheap, so no schema library here.
 * Block types this build does not know pass, so a newer writer's additions
 * are not mistaken for damage.
 *
 * Each check answers `undefined` for a sound record, else what is wrong with
 * it, phrased to follow "turn 3 …" in an error message.
 *
 * How deep a record nests is checked apart (`nestsTooDeep`), once per stored
 * unit (a log line, a row), since it walks the whole record. A write checks
 * the same depth on the JSON it is about to store (`jsonTextNestsTooDeep`),
 * so a store never writes a record its next load would refuse.
 */

import { nestsDeeperThan } from '../../core/json-depth'
import { groupDigits } from '../../text/group-digits'
import { truncateText } from '../../text/truncate'

const TURN_ROLES = new Set(['system', 'user', 'assistant', 'command'])
const RUN_STATUSES = new Set(['running', 'completed', 'aborted', 'error'])

type Fields = Record<string, unknown>

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined)
    return String(value)
  if (Array.isArray(value))
    return 'an array'
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${truncateText(value, 40)}…` : value) : `a ${typeof value}`
}

/** What is wrong with a stored turn, or `undefined` when it is sound. */
export function turnProblem(turn: unknown): string | undefined {
  if (!isRecord(turn))
    return `is ${describeValue(turn)}, not a turn object`
  if (typeof turn.id !== 'string')
    return 'has no string id'
  if (typeof turn.role !== 'string')
    return 'has no string role'
  if (!TURN_ROLES.has(turn.role))
    return `has an unknown role ${describeValue(turn.role)}`
  // JSON has no NaN or Infinity: stored, such a time would come back as null.
  if (typeof turn.createdAt !== 'number' || !Number.isFinite(turn.createdAt))
    return 'has no numeric createdAt'
  if (!Array.isArray(turn.content))
    return turn.content === undefined ? 'has no content' : `has content that is ${describeValue(turn.content)}, not an array`
  if (turn.runId !== undefined && typeof turn.runId !== 'string')
    return 'has a runId that is not a string'
  if (turn.usage !== undefined && !isRecord(turn.usage))
    return 'has usage that is not an object'
  const content = turn.content as unknown[]
  for (let i = 0; i < content.length; i++) {
    const problem = blockProblem(content[i])
    if (problem !== undefined)
      return `has content block ${i} that ${problem}`
  }
  return undefined
}

function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block))
    return `is ${describeValue(block)}`
  // Each case tests the sound shape first and only builds a message when it fails: this runs per block.
  switch (block.type) {
    case 'text':
    case 'thinking':
      return typeof block.text === 'string' ? undefined : noString(block, 'text')
    case 'image':
    case 'document':
      if (typeof block.data !== 'string' && typeof block.ref !== 'string')
        return `(${block.type}) has neither data nor ref`
      return typeof block.mediaType === 'string' ? undefined : noString(block, 'mediaType')
    case 'audio':
    case 'video':
      if (typeof block.data !== 'string')
        return noString(block, 'data')
      return typeof block.mediaType === 'string' ? undefined : noString(block, 'mediaType')
    case 'redacted_thinking':
      return typeof block.data === 'string' ? undefined : noString(block, 'data')
    case 'tool_call':
      if (typeof block.id !== 'string')
        return noString(block, 'id')
      if (typeof block.name !== 'string')
        return noString(block, 'name')
      return isRecord(block.input) ? undefined : '(tool_call) has an input that is not an object'
    case 'tool_result':
      if (typeof block.callId !== 'string')
        return noString(block, 'callId')
      return typeof block.output === 'string' ? undefined : outputProblem(block.output)
    case 'server_tool_use':
      if (typeof block.id !== 'string')
        return noString(block, 'id')
      return typeof block.name === 'string' ? undefined : noString(block, 'name')
    case 'server_tool_result':
      return typeof block.toolUseId === 'string' ? undefined : noString(block, 'toolUseId')
    case 'compact-summary':
      if (typeof block.summary !== 'string')
        return noString(block, 'summary')
      return Array.isArray(block.replacesTurnIds) ? undefined : '(compact-summary) has no replacesTurnIds array'
    default:
      return typeof block.type === 'string' ? undefined : 'has no string type'
  }
}

function noString(block: Fields, field: string): string {
  return `(${String(block.type)}) has no string ${field}`
}

function outputProblem(output: unknown): string | undefined {
  if (typeof output === 'string')
    return undefined
  if (!Array.isArray(output))
    return `(tool_result) has an output that is ${describeValue(output)}`
  for (let i = 0; i < output.length; i++) {
    const part: unknown = output[i]
    if (!isRecord(part) || typeof part.type !== 'string')
      return `(tool_result) has output part ${i} that is not a content block`
  }
  return undefined
}

/** What is wrong with a stored run record, or `undefined` when it is sound. */
export function runProblem(run: unknown): string | undefined {
  if (!isRecord(run))
    return `is ${describeValue(run)}, not a run object`
  if (typeof run.id !== 'string')
    return 'has no string id'
  if (typeof run.status !== 'string')
    return 'has no string status'
  if (!RUN_STATUSES.has(run.status))
    return `has an unknown status ${describeValue(run.status)}`
  if (typeof run.startedAt !== 'number' || !Number.isFinite(run.startedAt))
    return 'has no numeric startedAt'
  return run.origin === undefined ? undefined : runOriginProblem(run.origin)
}

/** What is wrong with a run's `origin`, or `undefined` when it is an object whose `display`, when set, is a string. */
export function runOriginProblem(origin: unknown): string | undefined {
  if (!isRecord(origin))
    return `has an origin that is ${describeValue(origin)}, not an object`
  if (origin.display !== undefined && typeof origin.display !== 'string')
    return `has an origin display that is ${describeValue(origin.display)}, not a string`
  return undefined
}

/** What is wrong with stored session metadata (absent is fine), or `undefined`. */
export function metadataProblem(metadata: unknown): string | undefined {
  return metadata === undefined || isRecord(metadata) ? undefined : `has metadata that is ${describeValue(metadata)}, not an object`
}

/**
 * How many levels of objects and arrays a stored turn, run or metadata may
 * nest. Far past what a run writes (tool inputs and values kept from a
 * provider stop at 100 levels), and far inside what `JSON.stringify` and
 * `structuredClone` recurse through before the stack runs out (3,000 to 4,000
 * levels): a deeper record would load, then overflow the stack on its next
 * save or request. A value from the host can still nest deeper (a hook's tool
 * result metadata, a run origin, session metadata): writing one is refused
 * (`writable-json.ts`), so no store holds a record its load would refuse.
 */
export const MAX_RECORD_DEPTH = 1000

/** The problem of a record past `MAX_RECORD_DEPTH`, phrased like the checks above. */
export const TOO_DEEP = `is nested more than ${groupDigits(MAX_RECORD_DEPTH)} levels deep`

/** Containers the fast walk visits before it hands over to `nestsDeeperThan`, which is safe on shared values. */
const WALK_BUDGET = 1_000_000

/**
 * Whether `value` nests past `MAX_RECORD_DEPTH` (plus `levelsAbove`, for a
 * record inside a wrapper such as a log line), without recursion. A value
 * `parsed` from JSON text is a tree, walked once. Any other value (from a
 * custom store) may share objects, which a tree walk would visit again and
 * again: past `WALK_BUDGET` containers the check goes on with
 * `nestsDeeperThan`, which remembers what it has seen. Linear either way.
 */
export function nestsTooDeep(value: unknown, levelsAbove = 0, parsed = false): boolean {
  if (typeof value !== 'object' || value === null)
    return false
  const max = MAX_RECORD_DEPTH + levelsAbove
  const pending: object[] = [value]
  const levels: number[] = [1]
  for (let visits = 0; pending.length > 0; visits++) {
    if (visits === WALK_BUDGET && !parsed)
      return nestsDeeperThan(value, max)
    const container = pending.pop()!
    const level = levels.pop()!
    if (level > max)
      return true
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const member: unknown = container[i]
        if (typeof member === 'object' && member !== null) {
          pending.push(member)
          levels.push(level + 1)
        }
      }
      continue
    }
    for (const key in container) {
      const member: unknown = (container as Fields)[key]
      if (typeof member === 'object' && member !== null) {
        pending.push(member)
        levels.push(level + 1)
      }
    }
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5C
const OPEN_BRACKET = 0x5B
const CLOSE_BRACKET = 0x5D
const OPEN_BRACE = 0x7B
const CLOSE_BRACE = 0x7D

/**
 * Whether JSON text, as `JSON.stringify` writes it, nests objects and arrays
 * past `MAX_RECORD_DEPTH` (plus `levelsAbove`, for records inside a wrapper):
 * the depth `nestsTooDeep` finds once the text is parsed, read off the text a
 * store is about to write, so `toJSON` methods and dropped fields count as
 * they will be stored. One pass without recursion: brackets are counted,
 * strings skipped with `indexOf`.
 */
export function jsonTextNestsTooDeep(text: string, levelsAbove = 0): boolean {
  const max = MAX_RECORD_DEPTH + levelsAbove
  // Each level takes an opening and a closing bracket.
  if (text.length <= 2 * max)
    return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      i = closingQuote(text, i)
    }
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > max)
        return true
    }
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/**
 * Where the string opened at `open` ends: the next quote not escaped by an
 * odd run of backslashes (or the end of the text). Each run is counted once,
 * back to the quote before it, so the whole text costs one pass.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH)
      backslashes++
    if (backslashes % 2 === 0)
      return at
  }
  return text.length
}
