import type { BlockOf, SessionMessage } from '../../core/content'
import type { WireStage } from '../stage'

/** The latest compaction summary of a view and the message carrying it. */
export interface LatestSummary {
  readonly index: number
  readonly block: BlockOf<'compact-summary'>
}

/** The last `compact-summary` block of the messages, if any (summaries travel in user messages). */
export function latestCompactSummary(messages: readonly SessionMessage[]): LatestSummary | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message.role !== 'user')
      continue
    for (let j = message.content.length - 1; j >= 0; j--) {
      const block = message.content[j]
      if (block.type === 'compact-summary')
        return { index: i, block }
    }
  }
  return undefined
}

/**
 * The compaction view: when the session holds a `compact-summary`, the model
 * sees the conversation from the latest one on. The message that carries it
 * (the summary, and the files put back with it) comes first; then every
 * message whose turn the summary does not replace, in order. Earlier
 * summaries are among the replaced turns. The recorded turns stay as they
 * are. A frontier step by design: the request after a compaction rewrites
 * the prefix once, and the ones after it extend it again.
 */
export const compactSummaryViewStage: WireStage = {
  name: 'compact-summary-view',
  apply(messages, ctx) {
    const latest = latestCompactSummary(messages)
    if (!latest)
      return messages
    const replaced = new Set(latest.block.replacesTurnIds)
    const carrier = messages[latest.index]
    const out: SessionMessage[] = [carrier]
    for (let i = 0; i < messages.length; i++) {
      if (i === latest.index)
        continue
      const id = ctx.turnIdOf?.(messages[i])
      if (id !== undefined && replaced.has(id))
        continue
      out.push(messages[i])
    }
    return out
  },
}
