import type { SessionMessage, SessionTurn } from '../core/content'

/**
 * The provider-neutral wire view of a conversation: user and assistant turns
 * only (`system` and `command` turns never reach a model, and an assistant
 * turn cut off by a crash is shown to people but not replayed, and an empty
 * turn, such as an empty `pause_turn`, has nothing to replay). A pure
 * function of the turns: the same turns always give the same messages, which
 * is what keeps the request prefix byte-stable for prompt caches. The loop
 * builds it through the wire pipeline's memo (`memoWireView`), which applies
 * the same rule to the turns it has not seen yet.
 */
export function buildWireMessages(turns: readonly SessionTurn[]): SessionMessage[] {
  const messages: SessionMessage[] = []
  for (const turn of turns) {
    const message = wireMessageOf(turn)
    if (message)
      messages.push(message)
  }
  return messages
}

/** The message one turn gives on the wire, if any; it shares the turn's content array. */
export function wireMessageOf(turn: SessionTurn): SessionMessage | undefined {
  if (turn.role !== 'user' && turn.role !== 'assistant')
    return undefined
  if (turn.aborted || turn.content.length === 0)
    return undefined
  return { role: turn.role, content: turn.content }
}

/** The same items, by identity, in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length)
    return false
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i])
      return false
  }
  return true
}
