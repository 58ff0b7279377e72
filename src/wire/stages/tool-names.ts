import type { SessionContentBlock, SessionMessage } from '../../core/content'
import type { WireStage } from '../stage'
import { mergeObjects } from '../../core/merge-objects'

/**
 * The last stage: tool calls go out under the names the model knows the tools
 * by (`toolAliases`), while sessions and hooks keep canonical names. Messages
 * without a renamed call come through as the same objects. Message-scoped, so
 * the memo renames each message once per run, and a renamed message keeps one
 * copy from turn to turn, as a message with nothing to rename does.
 */
export const toolNamesStage: WireStage = {
  name: 'tool-names',
  scope: 'message',
  apply: (messages, ctx) => {
    let out: SessionMessage[] | undefined
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]
      if (message.role !== 'assistant' || !renamesACall(message.content, ctx.toolWireName))
        continue
      out ??= messages.slice()
      out[i] = { role: message.role, content: message.content.map(block => block.type === 'tool_call' ? mergeObjects(block, { name: ctx.toolWireName(block.name) }) : block) }
    }
    return out ?? messages
  },
}

/** A plain loop: it runs once for every new assistant message, and most rename nothing. */
function renamesACall(blocks: readonly SessionContentBlock[], toWire: (canonical: string) => string): boolean {
  for (const block of blocks) {
    if (block.type === 'tool_call' && toWire(block.name) !== block.name)
      return true
  }
  return false
}
