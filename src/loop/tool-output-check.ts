import type { ToolResultContent } from '../core/content'
import type { ToolOutput } from '../tools/types'

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
 * - an array of valid `ToolResultContent` blocks is kept as it is;
 * - an array with an element that claims a block `type` but is malformed
 *   becomes an error result naming each problem (it was meant as content);
 * - any other array (`[1, 2]`, `[{ foo: 1 }]`, `[]`), and any other value, is
 *   data: its JSON text (bigints as decimal strings, `Map` as an object, `Set`
 *   as an array); numbers and other primitives become their string form;
 * - a value with no JSON form (circular, a function, a throwing `toJSON`)
 *   becomes an error result saying so; a returned `Error` becomes an error
 *   result with its message.
 *
 * `tool` is the name the model knows the tool by, used in messages.
 */
export function checkToolOutput(value: unknown, tool: string): CheckedToolOutput {
  if (typeof value === 'string')
    return { output: value }
  if (value === undefined || value === null)
    return { output: '' }
  if (Array.isArray(value)) {
    if (value.length > 0 && isContentArray(value))
      return { output: value as ToolResultContent[] }
    const problems = blockProblems(value)
    if (problems.length > 0)
      return invalid(`Error: tool "${tool}" returned malformed content blocks: ${listProblems(problems)}.`)
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || typeof value === 'symbol')
    return { output: String(value) }
  if (typeof value === 'function')
    return invalid(`Error: tool "${tool}" returned a function, which is not a result. Tools return a string or content blocks.`)
  if (value instanceof Error)
    return invalid(`Error: ${value.message || value.name}`)
  return jsonText(value, tool)
}

function invalid(message: string): CheckedToolOutput {
  return { output: message, isError: true }
}

function jsonText(value: unknown, tool: string): CheckedToolOutput {
  let text: string | undefined
  try {
    text = JSON.stringify(value, jsonReplacer)
  }
  catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return invalid(`Error: tool "${tool}" returned a value that cannot be written as JSON (${reason}). Tools return a string or content blocks.`)
  }
  if (text === undefined)
    return invalid(`Error: tool "${tool}" returned a value with no JSON form. Tools return a string or content blocks.`)
  return { output: text }
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint')
    return value.toString()
  if (value instanceof Map)
    return Object.fromEntries(value)
  if (value instanceof Set)
    return [...value]
  return value
}

/** Every element a well-formed content block (a fast pass: no messages are built). */
function isContentArray(items: readonly unknown[]): boolean {
  for (const item of items) {
    if (blockProblem(item) !== undefined)
      return false
  }
  return true
}

/** Problems of the elements that claim to be content blocks; empty when none does. */
function blockProblems(items: readonly unknown[]): string[] {
  const problems: string[] = []
  items.forEach((item, index) => {
    if (!isRecord(item) || typeof item.type !== 'string' || !BLOCK_TYPES.has(item.type))
      return
    const problem = blockProblem(item)
    if (problem !== undefined)
      problems.push(`item ${index} (${item.type}) ${problem}`)
  })
  return problems
}

function listProblems(problems: readonly string[]): string {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ')
  const rest = problems.length - MAX_LISTED_PROBLEMS
  return rest > 0 ? `${shown}; and ${rest} more` : shown
}

/** Why `item` is not a `ToolResultContent` block, or `undefined` when it is one. */
function blockProblem(item: unknown): string | undefined {
  if (!isRecord(item))
    return 'is not an object'
  if (item.name !== undefined && typeof item.name !== 'string')
    return 'has a "name" that is not a string'
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? undefined : 'needs "text" as a string'
    case 'audio':
    case 'video':
      return typeof item.mediaType !== 'string' ? 'needs "mediaType" as a string' : typeof item.data === 'string' ? undefined : 'needs "data" as a base64 string'
    case 'image':
      return typeof item.mediaType !== 'string' ? 'needs "mediaType" as a string' : sourceProblem(item)
    case 'document':
      if (typeof item.mediaType !== 'string')
        return 'needs "mediaType" as a string'
      if (item.encoding !== 'text' && item.encoding !== 'base64')
        return 'needs "encoding" as "text" or "base64"'
      return sourceProblem(item)
    default:
      return 'has no known block "type" (text, image, audio, video or document)'
  }
}

/** Media carried inline (`data`) or by reference (`ref`): exactly one of them, as a string. */
function sourceProblem(item: Record<string, unknown>): string | undefined {
  const hasData = item.data !== undefined
  const hasRef = item.ref !== undefined
  if (hasData === hasRef)
    return 'needs exactly one of "data" and "ref"'
  if (hasData ? typeof item.data !== 'string' : typeof item.ref !== 'string')
    return `needs "${hasData ? 'data' : 'ref'}" as a string`
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
