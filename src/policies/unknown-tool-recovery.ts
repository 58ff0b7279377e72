import type { AgentBehavior } from '../knobs/behavior'
import type { UnknownToolRecoveryConfig } from '../knobs/nudge-knobs'
import type { BehaviorPolicy, SteerDecision } from './policy'
import { UNKNOWN_TOOL_RECOVERY_DEFAULTS } from '../knobs/nudge-knobs'
import { quoteClipped } from '../text/clip-echo'
import { nudge } from './policy'
import { suggestToolNames } from './tool-name-suggestions'

function configOf(behavior: Readonly<AgentBehavior>): UnknownToolRecoveryConfig | undefined {
  const value = behavior.unknownToolRecovery
  return typeof value === 'object' && value !== null ? value : undefined
}

function defaultMessage(called: string, suggestions: readonly string[]): string {
  return suggestions.length > 0
    ? `There is no tool named ${quoteClipped(called)}. Did you mean ${suggestions.map(name => `"${name}"`).join(' or ')}? Call the tool you meant by its exact name.`
    : `There is no tool named ${quoteClipped(called)}. Call only the tools this run offers, by their exact names.`
}

function maxNudgesOf(behavior: Readonly<AgentBehavior>): number {
  return configOf(behavior)!.maxNudges ?? UNKNOWN_TOOL_RECOVERY_DEFAULTS.maxNudges
}

/** Nudges sent so far in the run, and the unknown names called this turn (as the model wrote them). */
export interface UnknownToolRecoveryState {
  readonly nudges: number
  readonly pending: readonly string[]
}

/**
 * `unknownToolRecovery`: a call of a tool name that is not registered keeps
 * its error result (the loop's, listing what exists); at the turn boundary
 * this adds a short nudge naming the closest advertised tools, so a model
 * that misremembers a name (`readFile`, `Read`) recovers on the next turn
 * instead of guessing again. Bounded by `maxNudges` per run.
 */
export const unknownToolRecovery: BehaviorPolicy<UnknownToolRecoveryState> = {
  name: 'unknown-tool-recovery',
  enabled: behavior => configOf(behavior) !== undefined,
  initialState: () => ({ nudges: 0, pending: [] }),
  result({ behavior, run, call, isError, state }) {
    if (!isError || run.tools.names.includes(call.name) || state.pending.includes(call.displayName))
      return
    // Only the names the run can still nudge about are kept: a turn of 20,000 unknown calls grew the list by
    // one per call, each growth copied and checked whole (16 s); now it stops at the nudges left.
    if (state.pending.length >= maxNudgesOf(behavior) - state.nudges)
      return
    return { state: { nudges: state.nudges, pending: [...state.pending, call.displayName] } }
  },
  afterTurn({ behavior, run, state }) {
    if (state.pending.length === 0)
      return
    const config = configOf(behavior)!
    const maxNudges = maxNudgesOf(behavior)
    const maxSuggestions = config.maxSuggestions ?? UNKNOWN_TOOL_RECOVERY_DEFAULTS.maxSuggestions
    const advertised = run.tools.specs.map(spec => spec.name)
    const decisions: SteerDecision[] = []
    for (const called of state.pending.slice(0, Math.max(0, maxNudges - state.nudges))) {
      const suggestions = suggestToolNames(called, advertised, maxSuggestions)
      const message = config.message
      const text = typeof message === 'function' ? message({ called, suggestions }) : message ?? defaultMessage(called, suggestions)
      decisions.push(nudge(text, 'unknown-tool-recovery'))
    }
    return { state: { nudges: state.nudges + decisions.length, pending: [] }, decision: decisions }
  },
}
