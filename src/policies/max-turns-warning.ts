import type { AgentBehavior } from '../knobs/behavior'
import type { BehaviorPolicy } from './policy'
import { nudge } from './policy'

function defaultMessage(remaining: number) {
  return `You have ${remaining} turn${remaining === 1 ? '' : 's'} left before this run stops. `
    + 'Finish the most important remaining step, then reply with a short summary of what is done and what is not.'
}

function warnsAt(behavior: Readonly<AgentBehavior>): { maxTurns: number, warnAt: number } | undefined {
  const { maxTurns, maxTurnsWarning: warnAt } = behavior
  if (maxTurns === undefined || !Number.isFinite(maxTurns) || warnAt === undefined)
    return undefined
  if (!(warnAt > 0) || warnAt >= maxTurns)
    return undefined
  return { maxTurns, warnAt }
}

/** Whether `max-turns-warning` has already warned in this run. */
export interface MaxTurnsWarningState {
  readonly warned: boolean
}

/**
 * `maxTurnsWarning`: once, after the turn that leaves exactly that many turns,
 * tell the model to wrap up, so a run that meets `maxTurns` ends with an
 * answer instead of mid-task.
 */
export const maxTurnsWarning: BehaviorPolicy<MaxTurnsWarningState> = {
  name: 'max-turns-warning',
  enabled: behavior => warnsAt(behavior) !== undefined,
  initialState: () => ({ warned: false }),
  afterTurn({ behavior, state, run }) {
    const { maxTurns, warnAt } = warnsAt(behavior)!
    const remaining = maxTurns - run.turnCount
    if (state.warned || remaining !== warnAt)
      return
    const message = behavior.maxTurnsWarningMessage
    const text = typeof message === 'function' ? message({ maxTurns, remaining }) : message ?? defaultMessage(remaining)
    return { state: { warned: true }, decision: nudge(text, 'max-turns-warning') }
  },
}
