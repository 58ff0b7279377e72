/**
 * How large tool results are, and how they are cut to a size: one result to
 * `TOOL_OUTPUT_LIMITS.maxChars` (see `checkToolOutput`), and the results of
 * one turn together, with the arguments of the nested calls recorded on them
 * and their metadata, to `TOOL_OUTPUT_LIMITS.maxTurnChars` (`fitTurnResults`).
 * Sizes are UTF-16 units, which cost nothing to count (arguments and
 * metadata: units of their JSON text).
 */

import type { SessionContentBlock, ToolResultBlock, ToolResultContent } from '../core/content'
import { mergeObjects } from '../core/merge-objects'
import { TOOL_OUTPUT_LIMITS } from '../core/tool-io'
import { truncateText } from '../text/truncate'

/**
 * `text` cut to `TOOL_OUTPUT_LIMITS.maxChars` on a code point boundary, with
 * a note saying how much went; `text` itself when it fits. The cut is made
 * before anything else reads the text, so the hooks, the session and every
 * later request see at most the limit.
 */
export function capResultText(text: string, what: 'output' | 'message' = 'output'): string {
  const max = TOOL_OUTPUT_LIMITS.maxChars
  if (text.length <= max)
    return text
  const kept = truncateText(text, max)
  return `${kept}\n\n[Truncated: the ${what} was ${text.length} characters; the first ${kept.length} are kept, as a tool result holds at most ${max}.]`
}

/** The characters a block holds: its text or payload, media type and name. */
function blockChars(block: ToolResultContent): number {
  if (block.type === 'text')
    return block.text.length
  const source = block.data ?? block.ref ?? ''
  const name = 'name' in block && block.name !== undefined ? block.name.length : 0
  return source.length + block.mediaType.length + name
}

/** The characters a result's output holds. */
function outputChars(output: string | readonly ToolResultContent[]): number {
  if (typeof output === 'string')
    return output.length
  let total = 0
  for (const block of output)
    total += blockChars(block)
  return total
}

/**
 * `blocks` cut to `limit` characters in all, or `blocks` itself when they
 * fit: blocks are kept in order while they fit, a text block that does not is
 * cut, and a media block that does not is left out (half an image is no
 * image); a last text block, `note(total, kept)`, says what went.
 */
export function cutBlocks(blocks: readonly ToolResultContent[], limit: number, note: (total: number, kept: number) => string): ToolResultContent[] {
  const total = outputChars(blocks)
  if (total <= limit)
    return blocks as ToolResultContent[]
  const kept: ToolResultContent[] = []
  let left = limit
  for (const block of blocks) {
    const size = blockChars(block)
    if (size <= left) {
      kept.push(block)
      left -= size
      continue
    }
    if (block.type === 'text' && left > 0)
      kept.push({ type: 'text', text: truncateText(block.text, left) })
    break
  }
  kept.push({ type: 'text', text: note(total, kept.length) })
  return kept
}

/**
 * The tool results of one turn held to `TOOL_OUTPUT_LIMITS.maxTurnChars`
 * together, in call order. Each result is already capped on its own, but a
 * turn's results are stored together (the file store writes them as one log
 * line, in JSON, where a control character takes six characters), and a few
 * maximal ones could make a line longer than JavaScript can build: the write
 * would fail and the turn would be lost. Results are kept while they fit, the
 * one that crosses the budget is cut with a note, and each later one is
 * replaced by an error result saying it did not fit, so every call keeps its
 * result. The arguments of the nested calls recorded on the results get what
 * the results leave (`fitNestedCalls`), and the results' metadata what is
 * left after them (`fitMetadata`). Returns `content` itself when all of it
 * fits, which it almost always does: the check is a sum of lengths.
 */
export function fitTurnResults<T extends SessionContentBlock>(content: T[]): T[] {
  const max = TOOL_OUTPUT_LIMITS.maxTurnChars
  let total = 0
  for (const block of content) {
    if (block.type === 'tool_result')
      total += outputChars(block.output)
  }
  if (total <= max)
    return fitMetadata(fitNestedCalls(content, max - total, max), max)
  let left = max
  const fitted = content.map((block) => {
    if (block.type !== 'tool_result')
      return block
    const size = outputChars(block.output)
    if (size <= left) {
      left -= size
      return block
    }
    const room = left
    left = 0
    return withOutput(block, room, total, max) as T
  })
  return fitMetadata(fitNestedCalls(fitted, 0, max), max)
}

/** Blocks fitted so far, and the characters of the turn's budget they leave. */
interface Fitted<T> {
  content: T[]
  left: number
}

/**
 * The key of the input a nested call's record keeps when its arguments did
 * not fit in its turn; its value is a note saying so. Chosen, like
 * `INVALID_TOOL_INPUT_KEY`, so it cannot clash with a real argument name.
 */
export const OMITTED_INPUT_KEY = '__omittedInput'

/**
 * The only key of the metadata a result keeps when the metadata it was given
 * could not be stored (see `storable-metadata.ts`) or did not fit in its
 * turn; its value is a note saying why. Chosen, like `OMITTED_INPUT_KEY`, so
 * it cannot clash with a real key.
 */
export const DROPPED_METADATA_KEY = '__droppedMetadata'

/**
 * The nested calls recorded on a turn's results (`calls`) held to `room`
 * characters of arguments in all. Each record carries the call's arguments
 * and is written on the turn's line: a codemode script may pass millions of
 * characters of them, so a turn of many scripts made a line no string could
 * hold. Arguments are kept in call order while they fit; from the first call
 * whose arguments do not, every record keeps its id, name and outcome (each
 * call stays paired with its result) and its arguments are replaced by a
 * note. Once past the budget nothing is measured, so the work stays within
 * it. Gives `content` itself when all the arguments fit, with the room left.
 */
function fitNestedCalls<T extends SessionContentBlock>(content: T[], room: number, max: number): Fitted<T> {
  let left = room
  for (const [at, block] of content.entries()) {
    if (block.type !== 'tool_result' || !block.calls)
      continue
    for (const [index, record] of block.calls.entries()) {
      const size = jsonChars(record.input)
      if (size > left)
        return { content: omitInputsFrom(content, at, index, max), left: 0 }
      left -= size
    }
  }
  return { content, left }
}

/**
 * The metadata of a turn's results held to what the results and the nested
 * calls' arguments left of its budget. Each value was checked alone to be
 * storable, but one may be hundreds of millions of characters (a transform
 * hook copying a page into it), and several together made a line the session
 * could not write. Metadata is kept in call order while it fits; from the
 * first that does not, each result's metadata is replaced by a note under
 * `DROPPED_METADATA_KEY`, and the result itself is kept.
 */
function fitMetadata<T extends SessionContentBlock>({ content, left }: Fitted<T>, max: number): T[] {
  let room = left
  for (const [at, block] of content.entries()) {
    if (block.type !== 'tool_result' || block.metadata === undefined)
      continue
    const size = jsonChars(block.metadata)
    if (size > room)
      return dropMetadataFrom(content, at, max)
    room -= size
  }
  return content
}

/** `content` with the metadata of every result from block `at` on replaced by a note. */
function dropMetadataFrom<T extends SessionContentBlock>(content: T[], at: number, max: number): T[] {
  const note = `[Dropped: this turn's tool results, the arguments of its nested calls and its results' metadata came to more than ${max} characters, and one turn holds at most ${max}; the metadata of this result was not recorded.]`
  return content.map((block, i) => {
    if (i < at || block.type !== 'tool_result' || block.metadata === undefined)
      return block
    return withMetadataDropped(block, note) as T
  })
}

/** `content` with the arguments of every nested call from `calls[index]` of block `at` on replaced by a note. */
function omitInputsFrom<T extends SessionContentBlock>(content: T[], at: number, index: number, max: number): T[] {
  const note = `[Omitted: this turn's tool results and the arguments of its nested calls came to more than ${max} characters, and one turn holds at most ${max}; the arguments of this call were not recorded.]`
  return content.map((block, i) => {
    if (i < at || block.type !== 'tool_result' || !block.calls)
      return block
    return withInputsOmitted(block, i === at ? index : 0, note) as T
  })
}

/** `block` with its metadata replaced by `note` (under `DROPPED_METADATA_KEY`). */
function withMetadataDropped(block: ToolResultBlock, note: string): ToolResultBlock {
  return mergeObjects(block, { metadata: { [DROPPED_METADATA_KEY]: note } })
}

/** `block` with the arguments of its nested calls from `calls[from]` on replaced by `note` (under `OMITTED_INPUT_KEY`). */
function withInputsOmitted(block: ToolResultBlock, from: number, note: string): ToolResultBlock {
  const calls = (block.calls ?? []).map((record, index) => index < from ? record : mergeObjects(record, { input: { [OMITTED_INPUT_KEY]: note } }))
  return mergeObjects(block, { calls })
}

/** The UTF-16 units of `value` as JSON; with no JSON form (it could not be written either), more than any budget. */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0
  }
  catch {
    return Number.POSITIVE_INFINITY
  }
}

/** `block` with its output cut to `room` characters, or replaced by an error note when no room is left. */
function withOutput(block: ToolResultBlock, room: number, total: number, max: number): ToolResultBlock {
  const why = `this turn's tool results came to ${total} characters, and one turn holds at most ${max}`
  if (room === 0)
    return Object.assign({}, block, { output: `[Omitted: ${why}; this result did not fit.]`, isError: true })
  const output = typeof block.output === 'string'
    ? `${truncateText(block.output, room)}\n\n[Truncated: ${why}; the first ${room} characters of this result are kept.]`
    : cutBlocks(block.output, room, (_, kept) => `[Truncated: ${why}; ${kept} blocks of this result are kept.]`)
  return Object.assign({}, block, { output })
}
