import type { ToolResultContent } from '../core/content'
import type { ToolOutput } from '../tools/types'
import { TOOL_OUTPUT_LIMITS } from '../core/tool-io'
import { errorMessage } from './call-answer'
import { capResultText, cutBlocks } from './result-size'

/** A tool's (or a hook's) return value made into something every wire can carry. */
export interface CheckedToolOutput {
  output: ToolOutput
  /** Set when the value could not be used: `output` then says what was wrong. */
  isError?: true
}

const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'video', 'document'])
/** Problems listed in an error result before the rest are counted. */
const MAX_LISTED_PROBLEMS = 5

/**
 * Turn whatever a tool returned into a `ToolOutput`, so nothing reaches the
 * session that a wire builder would choke on, and nothing is silently lost:
 *
 * - a string is kept as it is; `undefined` and `null` become `''`;
 * - an array of valid `ToolResultContent` blocks is kept, each block copied
 *   with only the fields of its type (see `readBlock`);
 * - an array with an element that claims a block `type` but is malformed
 *   (base64 `data` that is not base64 included) becomes an error result
 *   naming each problem (it was meant as content);
 * - any other array (`[1, 2]`, `[{ foo: 1 }]`, `[]`), and any other value, is
 *   data: its JSON text (bigints as decimal strings, `Map` as an object, `Set`
 *   as an array); numbers and other primitives become their string form;
 * - a value with no JSON form (circular, a function, a throwing `toJSON`,
 *   nested deeper than `JSON.stringify` can go) becomes an error result
 *   saying so; a returned `Error` becomes an error result with its message;
 * - a value that throws when it is read (a getter, a Proxy trap) becomes an
 *   error result saying so: this function never throws;
 * - whatever is kept is cut to `TOOL_OUTPUT_LIMITS.maxChars`, with a note.
 *
 * `tool` is the name the model knows the tool by, used in messages.
 */
export function checkToolOutput(value: unknown, tool: string): CheckedToolOutput {
  try {
    return readOutput(value, tool)
  }
  catch (error) {
    return invalid(`Error: tool "${tool}" returned a value that could not be read (${errorMessage(error)}). Tools return a string or content blocks.`)
  }
}

function readOutput(value: unknown, tool: string): CheckedToolOutput {
  if (typeof value === 'string')
    return { output: capResultText(value) }
  if (value === undefined || value === null)
    return { output: '' }
  if (Array.isArray(value)) {
    const blocks = value.length > 0 ? contentBlocks(value) : undefined
    if (blocks)
      return { output: capBlocks(blocks) }
    const problems = blockProblems(value)
    if (problems.length > 0)
      return invalid(`Error: tool "${tool}" returned malformed content blocks: ${listProblems(problems)}.`)
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || typeof value === 'symbol')
    return { output: String(value) }
  if (typeof value === 'function')
    return invalid(`Error: tool "${tool}" returned a function, which is not a result. Tools return a string or content blocks.`)
  if (value instanceof Error)
    return invalid(`Error: ${errorMessage(value) || value.name}`)
  return jsonText(value, tool)
}

function invalid(message: string): CheckedToolOutput {
  return { output: capResultText(message), isError: true }
}

function jsonText(value: unknown, tool: string): CheckedToolOutput {
  let text: string | undefined
  try {
    text = JSON.stringify(value, jsonReplacer)
  }
  catch (error) {
    return invalid(`Error: tool "${tool}" returned a value that cannot be written as JSON (${errorMessage(error)}). Tools return a string or content blocks.`)
  }
  if (text === undefined)
    return invalid(`Error: tool "${tool}" returned a value with no JSON form. Tools return a string or content blocks.`)
  return { output: capResultText(text) }
}

/** How a tool's data becomes JSON text; a durable journal writes its copy the same way, so both runs see the same result. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint')
    return value.toString()
  if (value instanceof Map)
    return Object.fromEntries(value)
  if (value instanceof Set)
    return [...value]
  return value
}

/**
 * The elements as fresh content blocks, or `undefined` when one is not a
 * well-formed block (a fast pass: no messages are built).
 */
function contentBlocks(items: readonly unknown[]): ToolResultContent[] | undefined {
  const blocks: ToolResultContent[] = []
  for (const item of items) {
    const block = readBlock(item)
    if (typeof block === 'string')
      return undefined
    blocks.push(block)
  }
  return blocks
}

/** Problems of the elements that claim to be content blocks; empty when none does. */
function blockProblems(items: readonly unknown[]): string[] {
  const problems: string[] = []
  items.forEach((item, index) => {
    if (!isRecord(item))
      return
    const type = item.type
    if (typeof type !== 'string' || !BLOCK_TYPES.has(type))
      return
    const problem = readBlock(item)
    if (typeof problem === 'string')
      problems.push(`item ${index} (${type}) ${problem}`)
  })
  return problems
}

function listProblems(problems: readonly string[]): string {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ')
  const rest = problems.length - MAX_LISTED_PROBLEMS
  return rest > 0 ? `${shown}; and ${rest} more` : shown
}

/** Standard base64 (what every provider's API decodes): the alphabet, then at most two `=` of padding. */
const BASE64 = /^[A-Z0-9+/]*={0,2}$/i

/** Why base64 `data` was refused: a provider's API rejects the whole request, and every later one of the session, over it. */
const NOT_BASE64 = 'needs "data" as base64 (A-Z, a-z, 0-9, "+" and "/", "=" padding; no spaces, line breaks or "data:" prefix), which every provider decodes'

/**
 * `item` as a `ToolResultContent` block, or why it is not one. Each field is
 * read once, and the block is a new object holding only the fields its type
 * has: what the tool's object also carried (a cyclic or deeply nested
 * property, a bigint, a getter) would otherwise be recorded with it and break
 * writing the session and every later request; and a getter that answers
 * differently on each read cannot pass the check with one value and be
 * recorded with another.
 */
function readBlock(item: unknown): ToolResultContent | string {
  if (!isRecord(item))
    return 'is not an object'
  const { type, name } = item
  if (name !== undefined && typeof name !== 'string')
    return 'has a "name" that is not a string'
  const named = name === undefined ? {} : { name }
  switch (type) {
    case 'text': {
      const text = item.text
      return typeof text === 'string' ? { type, text } : 'needs "text" as a string'
    }
    case 'audio':
    case 'video': {
      const { mediaType, data } = item
      if (typeof mediaType !== 'string')
        return 'needs "mediaType" as a string'
      if (typeof data !== 'string')
        return 'needs "data" as a base64 string'
      return BASE64.test(data) ? { type, mediaType, data } : NOT_BASE64
    }
    case 'image': {
      const mediaType = item.mediaType
      if (typeof mediaType !== 'string')
        return 'needs "mediaType" as a string'
      const source = readSource(item, true)
      return typeof source === 'string' ? source : { type, mediaType, ...source, ...named }
    }
    case 'document': {
      const { mediaType, encoding } = item
      if (typeof mediaType !== 'string')
        return 'needs "mediaType" as a string'
      if (encoding !== 'text' && encoding !== 'base64')
        return 'needs "encoding" as "text" or "base64"'
      const source = readSource(item, encoding === 'base64')
      return typeof source === 'string' ? source : { type, mediaType, encoding, ...source, ...named }
    }
    default:
      return 'has no known block "type" (text, image, audio, video or document)'
  }
}

/** Media carried inline (`data`) or by reference (`ref`): exactly one of them, as a string; inline base64 must be base64. */
function readSource(item: Record<string, unknown>, base64: boolean): { data: string } | { ref: string } | string {
  const { data, ref } = item
  const hasData = data !== undefined
  if (hasData === (ref !== undefined))
    return 'needs exactly one of "data" and "ref"'
  if (hasData) {
    if (typeof data !== 'string')
      return 'needs "data" as a string'
    return !base64 || BASE64.test(data) ? { data } : NOT_BASE64
  }
  return typeof ref === 'string' ? { ref } : 'needs "ref" as a string'
}

/** Blocks cut to `TOOL_OUTPUT_LIMITS.maxChars` in all (`cutBlocks`), with a note saying what went. */
function capBlocks(blocks: ToolResultContent[]): ToolResultContent[] {
  const max = TOOL_OUTPUT_LIMITS.maxChars
  return cutBlocks(blocks, max, (total, kept) => `[Truncated: the result was ${total} characters in ${blocks.length} blocks; ${kept} blocks are kept, as a tool result holds at most ${max}.]`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
