/**
 * The order tool results go on the wire. Every API pairs a result with its
 * call by id, and some also insist that the results answering one assistant
 * message come first in the next message and in the order of the calls, so
 * every builder sends them that way.
 */

import type { SessionContentBlock, ToolResultBlock } from '../../core/content'

/**
 * The tool results among `blocks`, in the order of the calls in `answering`
 * (the content of the assistant message right before). Each result takes the
 * earliest call with its id that no earlier result took, so when an id
 * repeats, the first result answers the first call and the second the
 * second. Results answering no call keep their relative order, after the
 * others. Returns a new array; neither input is touched.
 */
export function orderToolResults(blocks: readonly SessionContentBlock[], answering: readonly SessionContentBlock[] | undefined): ToolResultBlock[] {
  const results: ToolResultBlock[] = []
  for (const block of blocks) {
    if (block.type === 'tool_result')
      results.push(block)
  }
  if (results.length < 2 || !answering)
    return results

  const positions = new Map<string, number[]>()
  let position = 0
  for (const block of answering) {
    if (block.type !== 'tool_call')
      continue
    const list = positions.get(block.id)
    if (list)
      list.push(position++)
    else
      positions.set(block.id, [position++])
  }
  const ranked = results.map((block, index) => ({ block, index, rank: positions.get(block.callId)?.shift() ?? Number.MAX_SAFE_INTEGER }))
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index)
  return ranked.map(entry => entry.block)
}
