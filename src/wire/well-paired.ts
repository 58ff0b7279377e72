import type { SessionMessage } from '../session/content'

/**
 * Whether a wire view already has the shape `repairToolPairing` produces, so
 * the repair pass would change nothing: tool calls only in assistant messages,
 * with ids unique across the conversation, each answered exactly once by a
 * result in the user message right after it, and no other results anywhere.
 *
 * The loop checks this before planning repairs on every turn. It is one pass
 * with one set of ids and no per-block objects, where the planner tracks every
 * call site; a healthy conversation, the common case, never needs more. When
 * the answer is `false` the planner runs as before and says what is wrong.
 */
export function isWellPaired(messages: readonly SessionMessage[]): boolean {
  const seen = new Set<string>()
  // Calls of the previous assistant message not answered yet (a few ids, so an array).
  const open: string[] = []
  for (let m = 0; m < messages.length; m++) {
    const message = messages[m]
    if (message.role === 'assistant') {
      if (open.length > 0)
        return false
      for (let b = 0; b < message.content.length; b++) {
        const block = message.content[b]
        if (block.type === 'tool_result')
          return false
        if (block.type === 'tool_call') {
          if (seen.has(block.id))
            return false
          seen.add(block.id)
          open.push(block.id)
        }
      }
      continue
    }
    if (message.role !== 'user')
      return false
    // Only the user message right after the calls may answer them.
    const answering = open.length > 0
    for (let b = 0; b < message.content.length; b++) {
      const block = message.content[b]
      if (block.type === 'tool_call')
        return false
      if (block.type === 'tool_result') {
        const at = answering ? open.indexOf(block.callId) : -1
        if (at < 0)
          return false
        // Order does not matter here: the last id takes the answered one's place.
        const last = open.pop()!
        if (at < open.length)
          open[at] = last
      }
    }
    if (open.length > 0)
      return false
  }
  return open.length === 0
}
