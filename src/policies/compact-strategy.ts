import type { AgentBehavior } from '../knobs/behavior'
import type { PolicyWireStage } from '../wire/stage'
import type { BehaviorPolicy } from './policy'
import { COMPACTION_DEFAULTS } from '../knobs/compaction-knobs'
import { tailCompactionStage } from '../wire/stages/tail-compaction'

/** The tail stage's config from the knobs (unset ones at their defaults). */
function stagesOf(behavior: Readonly<AgentBehavior>): readonly PolicyWireStage[] {
  const strategy = behavior.compactStrategy ?? COMPACTION_DEFAULTS.compactStrategy
  if (typeof strategy === 'function')
    return [{ name: 'compact-function', slot: 'sent', apply: (messages, ctx) => strategy(messages, ctx) }]
  if (strategy !== 'tail')
    return []
  return [tailCompactionStage({
    threshold: behavior.compactThreshold ?? COMPACTION_DEFAULTS.compactThreshold,
    windowFraction: behavior.compactThresholdWindowFraction,
    keepTurns: behavior.compactKeepTurns ?? COMPACTION_DEFAULTS.compactKeepTurns,
    lowWaterFraction: behavior.compactLowWaterFraction,
    skip: behavior.compactSkip,
  })]
}

/**
 * `compactStrategy`: client-side compaction of what is sent. `'tail'` adds
 * the tail stage (older tool outputs stubbed past a byte threshold, the
 * frontier a pure function of the message prefix); a `CompactFunction` is
 * run in its place. Both sit after the host's `context:transform`, so they
 * measure the request as it is sent, and neither touches the recorded turns.
 */
export const compactStrategy: BehaviorPolicy<null> = {
  name: 'compact-strategy',
  enabled: behavior => stagesOf(behavior).length > 0,
  wireStages: stagesOf,
}
