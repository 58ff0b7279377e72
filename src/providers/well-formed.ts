/**
 * Text on its way into a request body, made well-formed. A JavaScript string
 * can hold a lone surrogate (half of a UTF-16 pair: a tool that cut a string
 * in the middle of an emoji, an MCP server with a broken encoder, a bad
 * paste); `JSON.stringify` then writes an unpaired `\ud800` escape, which the
 * APIs refuse with a 400, and since the session keeps the text, every later
 * request of that session would be refused too. Every wire builder therefore
 * replaces lone surrogates with U+FFFD where text enters the body: prompts,
 * tool outputs, tool inputs of replayed calls, thinking, the system prompt
 * and the tool definitions. The session keeps what it recorded.
 *
 * Cheap on the hot path: a block or tool definition is checked once and the
 * answer is remembered for as long as the object lives (session turns do not
 * change once recorded; hooks that rewrite a request assign new objects).
 * `isWellFormed` answers at once for one-byte strings, which most text is.
 */

import type { SessionContentBlock } from '../core/content'
import type { ToolSpec } from './types'
import { wellFormedText } from '../text/well-formed-text'

/**
 * `value` with every string and object key well-formed, at any depth. Objects
 * and arrays are copied only where something changed, so a clean value comes
 * back as the same reference. Two other things a JSON body cannot carry, and
 * on which `JSON.stringify` would throw for every later request, become text:
 * a `bigint` its decimal digits, and an object that contains itself
 * `[circular reference]` where it recurs.
 */
export function wellFormedValue<T>(value: T): T {
  return scrub(value, undefined, []) as T
}

const CIRCULAR = '[circular reference]'

/** What each checked block or tool definition became: itself when clean, else its scrubbed copy. */
const checked = new WeakMap<object, object>()

/**
 * A session block ready for the wire: every text well-formed. The id of a
 * tool call and the `callId` of a tool result are left as they are: the wire
 * builder maps them with the API's id rule, which keeps ids that differ only
 * in a broken surrogate apart.
 */
export function wellFormedBlock(block: SessionContentBlock): SessionContentBlock {
  const known = checked.get(block) as SessionContentBlock | undefined
  if (known)
    return known
  const keep = block.type === 'tool_call' ? 'id' : block.type === 'tool_result' ? 'callId' : undefined
  const result = scrub(block, keep, []) as SessionContentBlock
  checked.set(block, result)
  return result
}

/** A tool definition with its name, description and schema well-formed. */
export function wellFormedTool(tool: ToolSpec): ToolSpec {
  const known = checked.get(tool) as ToolSpec | undefined
  if (known)
    return known
  const result = scrub(tool, undefined, []) as ToolSpec
  checked.set(tool, result)
  return result
}

/**
 * `keep` names a top-level key whose value is passed through untouched;
 * `path` holds the objects being walked, to tell a cycle from a shared value.
 */
function scrub(value: unknown, keep: string | undefined, path: object[]): unknown {
  if (typeof value === 'string')
    return wellFormedText(value)
  if (typeof value === 'bigint')
    return value.toString()
  if (typeof value !== 'object' || value === null)
    return value
  if (path.includes(value))
    return CIRCULAR
  path.push(value)
  const result = Array.isArray(value) ? scrubArray(value, path) : scrubRecord(value as Record<string, unknown>, keep, path)
  path.pop()
  return result
}

function scrubArray(value: unknown[], path: object[]): unknown[] {
  let copy: unknown[] | undefined
  for (let i = 0; i < value.length; i++) {
    const item = scrub(value[i], undefined, path)
    if (item !== value[i]) {
      copy ??= value.slice()
      copy[i] = item
    }
  }
  return copy ?? value
}

function scrubRecord(record: Record<string, unknown>, keep: string | undefined, path: object[]): Record<string, unknown> {
  const keys = Object.keys(record)
  let copy: Record<string, unknown> | undefined
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const inner = record[key]
    const cleanKey = wellFormedText(key)
    const cleanInner = key === keep ? inner : scrub(inner, undefined, path)
    if (!copy && (cleanKey !== key || cleanInner !== inner)) {
      // Rebuilt from the start, so the keys keep their order and the bytes stay stable.
      copy = {}
      for (let j = 0; j < i; j++)
        copy[keys[j]] = record[keys[j]]
    }
    if (copy)
      copy[cleanKey] = cleanInner
  }
  return copy ?? record
}
