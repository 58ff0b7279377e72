import type { BehaviorPolicy } from './policy'
import { AUTO_COMPACT_DEFAULTS, autoCompactConfig } from '../knobs/compaction-knobs'
import { compactConversation } from './compact-summary'

/**
 * Reactive recovery from a `context_exceeded` error, always on: the older
 * turns are summarized (from a small view of them, since the full one just
 * overflowed) and the turn runs again, once, with the summary in front of
 * the kept tail. A kept summary is always smaller than the turns it replaces
 * (`compactConversation` refuses any other), so the retry is a smaller
 * request. When there is nothing older to summarize, or the summary call
 * fails or stalls past its watchdogs, or its summary is refused, or the retry
 * overflows too, the run ends with `AgentContextExceededError` as it would
 * without this policy: the same request is never sent again.
 */
export const contextRecovery: BehaviorPolicy<null> = {
  name: 'context-recovery',
  events: ['compact:start', 'compact:end'],
  async providerError({ run, behavior, kind, retried }) {
    if (kind !== 'context_exceeded' || retried)
      return
    // Recovery without autoCompact set keeps as many turns, and restores as much, as the defaults say.
    const { keepTurns, restore } = autoCompactConfig(behavior.autoCompact) ?? AUTO_COMPACT_DEFAULTS
    const compaction = await compactConversation(run, {
      trigger: 'context-exceeded',
      keepTurns,
      restore,
      cheap: true,
    })
    if (!compaction)
      return
    return { decision: { type: 'retry', message: compaction.message } }
  },
}
