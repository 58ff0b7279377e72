import type { SessionContentBlock, SessionMessage } from '../core/content'

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
 *
 * With a checkpoint from the previous turn, only the messages added since are
 * looked at, provided the earlier ones are still the same (same roles, same
 * content arrays, same lengths): recorded turns never change, so on a healthy
 * run the check costs a few new messages a turn rather than the whole history.
 */
export function isWellPaired(messages: readonly SessionMessage[], checkpoint?: PairingCheckpoint): boolean {
  if (!checkpoint)
    return scan(messages, 0, new Set())
  const start = resumeAt(messages, checkpoint)
  if (!scan(messages, start, checkpoint.seen)) {
    resetCheckpoint(checkpoint)
    return false
  }
  for (let m = start; m < messages.length; m++) {
    checkpoint.roles.push(messages[m].role)
    checkpoint.contents.push(messages[m].content)
    checkpoint.lengths.push(messages[m].content.length)
  }
  return true
}

/** What `isWellPaired` accepted so far: the messages (by identity) and their call ids. */
export interface PairingCheckpoint {
  readonly roles: SessionMessage['role'][]
  readonly contents: (readonly SessionContentBlock[])[]
  readonly lengths: number[]
  readonly seen: Set<string>
}

export function createPairingCheckpoint(): PairingCheckpoint {
  return { roles: [], contents: [], lengths: [], seen: new Set() }
}

/** Where checking can resume: after the checkpoint's messages if they lead `messages` unchanged, else at 0. */
function resumeAt(messages: readonly SessionMessage[], checkpoint: PairingCheckpoint): number {
  const count = checkpoint.contents.length
  if (count > messages.length) {
    resetCheckpoint(checkpoint)
    return 0
  }
  for (let m = 0; m < count; m++) {
    const message = messages[m]
    if (message.content !== checkpoint.contents[m] || message.content.length !== checkpoint.lengths[m] || message.role !== checkpoint.roles[m]) {
      resetCheckpoint(checkpoint)
      return 0
    }
  }
  return count
}

function resetCheckpoint(checkpoint: PairingCheckpoint): void {
  checkpoint.roles.length = 0
  checkpoint.contents.length = 0
  checkpoint.lengths.length = 0
  checkpoint.seen.clear()
}

/** Check `messages` from `start` on, where no call is open; `seen` holds the ids of the calls before `start` and gains the new ones. */
function scan(messages: readonly SessionMessage[], start: number, seen: Set<string>): boolean {
  // Calls of the previous assistant message not answered yet. A set: an answer may hold thousands of calls,
  // and looking each result up in a list made the check quadratic in them.
  const open = new Set<string>()
  for (let m = start; m < messages.length; m++) {
    const message = messages[m]
    if (message.role === 'assistant') {
      if (open.size > 0)
        return false
      for (let b = 0; b < message.content.length; b++) {
        const block = message.content[b]
        if (block.type === 'tool_result')
          return false
        if (block.type === 'tool_call') {
          if (seen.has(block.id))
            return false
          seen.add(block.id)
          open.add(block.id)
        }
      }
      continue
    }
    if (message.role !== 'user')
      return false
    // Only the user message right after the calls may answer them.
    const answering = open.size > 0
    for (let b = 0; b < message.content.length; b++) {
      const block = message.content[b]
      if (block.type === 'tool_call')
        return false
      if (block.type === 'tool_result') {
        if (!answering || !open.delete(block.callId))
          return false
      }
    }
    if (open.size > 0)
      return false
  }
  return open.size === 0
}
