/**
 * How large tool results are, and how they are cut to a size: one result to
 * `TOOL_OUTPUT_LIMITS.maxChars` (see `checkToolOutput`), and the results of
 * one turn together to `TOOL_OUTPUT_LIMITS.maxTurnChars` (`fitTurnResults`).
 * Sizes are UTF-16 units, which cost nothing to count.
 */

import type { SessionContentBlock, ToolResultBlock, ToolResultContent } from '../core/content'
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
 * result. Returns `content` itself when the results fit, which they almost
 * always do: the check is a sum of lengths.
 */
export function fitTurnResults<T extends SessionContentBlock>(content: T[]): T[] {
  const max = TOOL_OUTPUT_LIMITS.maxTurnChars
  let total = 0
  for (const block of content) {
    if (block.type === 'tool_result')
      total += outputChars(block.output)
  }
  if (total <= max)
    return content
  let left = max
  return content.map((block) => {
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
