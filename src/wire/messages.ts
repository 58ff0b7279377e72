import type { SessionContentBlock, SessionMessage, SessionTurn } from '../session/content'

/**
 * The provider-neutral wire view of a conversation: user and assistant turns
 * only (`system` and `command` turns never reach a model, and an assistant
 * turn cut off by a crash is shown to people but not replayed, and an empty
 * turn, such as an empty `pause_turn`, has nothing to replay). A pure
 * function of the turns: the same turns always give the same messages, which
 * is what keeps the request prefix byte-stable for prompt caches.
 */
export function buildWireMessages(turns: readonly SessionTurn[]): SessionMessage[] {
  const messages: SessionMessage[] = []
  for (const turn of turns) {
    if (turn.role !== 'user' && turn.role !== 'assistant')
      continue
    if (turn.aborted || turn.content.length === 0)
      continue
    messages.push({ role: turn.role, content: turn.content })
  }
  return messages
}

/**
 * Rename tool calls from canonical names to the names the model knows them
 * by. Messages without a renamed call are passed through as the same objects.
 */
export function applyWireToolNames(messages: SessionMessage[], toWire: (canonical: string) => string): SessionMessage[] {
  return messages.map((message) => {
    if (message.role !== 'assistant' || !message.content.some(block => block.type === 'tool_call' && toWire(block.name) !== block.name))
      return message
    const content: SessionContentBlock[] = message.content.map(block =>
      block.type === 'tool_call' ? { ...block, name: toWire(block.name) } : block)
    return { role: message.role, content }
  })
}
