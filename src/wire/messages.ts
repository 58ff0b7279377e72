import type { SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'

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
    if (message.role !== 'assistant' || !renamesACall(message.content, toWire))
      return message
    return { role: message.role, content: renamedContent(message.content, toWire) }
  })
}

/**
 * The renamed copy of a message's content, made once per content and naming
 * rather than on every turn. A renamed message so keeps one content array
 * from turn to turn, as a message with nothing to rename does, and a wire
 * builder that remembers what it converted (Chat Completions) finds it again.
 */
interface RenamedContent {
  toWire: (canonical: string) => string
  /** The original blocks when copied, so that content changed in place is copied afresh. */
  blocks: readonly SessionContentBlock[]
  content: SessionContentBlock[]
}

const renamedCopies = new WeakMap<readonly SessionContentBlock[], RenamedContent>()

function renamedContent(blocks: SessionContentBlock[], toWire: (canonical: string) => string): SessionContentBlock[] {
  const known = renamedCopies.get(blocks)
  if (known && known.toWire === toWire && sameItems(known.blocks, blocks))
    return known.content
  const content: SessionContentBlock[] = blocks.map(block =>
    block.type === 'tool_call' ? { ...block, name: toWire(block.name) } : block)
  renamedCopies.set(blocks, { toWire, blocks: [...blocks], content })
  return content
}

/** A plain loop: it runs for every assistant message on every turn, and most rename nothing. */
function renamesACall(blocks: readonly SessionContentBlock[], toWire: (canonical: string) => string): boolean {
  for (const block of blocks) {
    if (block.type === 'tool_call' && toWire(block.name) !== block.name)
      return true
  }
  return false
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
