import type { TurnUsage } from '../core/stats'
import type { BehaviorPolicy, TurnPhaseContext } from './policy'
import { debugLog } from '../debug'
import { AUTO_COMPACT_DEFAULTS, autoCompactConfig } from '../knobs/compaction-knobs'
import { compactConversation, promptTokens, shouldAutoCompact } from './compact-summary'

/** The turn of the last compaction attempt (0: none yet), so a tail that alone still crosses the line is not summarized every turn. */
interface AutoCompactState {
  readonly lastTurn: number
}

/**
 * `autoCompact`: after a turn whose input crossed `threshold × window`
 * (`shouldAutoCompact`), the older turns are summarized by the model in a
 * call that reuses the cached prefix, and the summary joins the next user
 * turn as a `compact-summary` block (with the files the summarized turns
 * worked on, when `restore` is on). From then on the wire view starts at the
 * summary (the compaction view stage). Only when the run goes on: a turn that
 * ends the run is not worth a summary. A summary that fails or is refused
 * (`compactConversation`) changes nothing: the run goes on with its turns,
 * and the next attempt waits a turn. Inert without a known window, which
 * debug output says.
 */
export const autoCompact: BehaviorPolicy<AutoCompactState> = {
  name: 'auto-compact',
  events: ['compact:start', 'compact:end'],
  enabled(behavior, run) {
    if (!autoCompactConfig(behavior.autoCompact))
      return false
    if (run.contextWindow === undefined) {
      debugLog('autoCompact is on but no context window is known (set contextWindow or autoCompact.contextWindow); auto-compaction stays off for this run')
      return false
    }
    return true
  },
  initialState: () => ({ lastTurn: 0 }),
  // Synchronous until a compaction is due: a promise would make the runner race it against the run's signal on every turn.
  afterTurn({ run, behavior, state, turn, usage, toolResults, decided }) {
    if (decided.ending || (toolResults.length === 0 && !decided.continues))
      return
    if (state.lastTurn > 0 && turn - state.lastTurn < 2)
      return
    if (!shouldAutoCompact(usage, run.contextWindow, behavior.autoCompact))
      return
    return compactNow(run, behavior, turn, usage)
  },
}

async function compactNow(run: TurnPhaseContext<AutoCompactState>['run'], behavior: TurnPhaseContext<AutoCompactState>['behavior'], turn: number, usage: TurnUsage) {
  const { keepTurns, restore } = autoCompactConfig(behavior.autoCompact) ?? AUTO_COMPACT_DEFAULTS
  const compaction = await compactConversation(run, {
    trigger: 'threshold',
    keepTurns,
    restore,
    inputTokens: promptTokens(usage),
  })
  // A failed or refused summary is not asked for again on the very next turn either.
  if (!compaction)
    return { state: { lastTurn: turn } }
  return { decision: { type: 'steer' as const, message: compaction.message }, state: { lastTurn: turn } }
}
