import type { AgentBehavior } from '../knobs/behavior'
import { startTimer } from '../core/timer'
import { AgentBudgetExceededError } from '../errors'
import { activeLimit } from '../knobs/behavior'

/**
 * The real-time backstop of `maxWallMs`. The budget policy checks the run's
 * clock after each turn (replay-stable, but it cannot interrupt a turn); this
 * timer fires at the deadline itself and aborts the run with the budget
 * error, so a tool or a step that never settles cannot keep the run alive.
 */
export interface WallDeadline {
  /** The error the run was aborted with, once the deadline passed. */
  readonly error: AgentBudgetExceededError | undefined
  /** Rejects with the budget error at the deadline; never settles before it. */
  readonly expired: Promise<never>
  /** Real time (epoch ms) of the deadline. */
  readonly at: number
  clear: () => void
}

/** Arm the deadline `maxWallMs` after `startedAtMs`; `undefined` when no wall-clock budget is set. */
export function startWallDeadline(behavior: AgentBehavior, startedAtMs: number, onExpire: (error: AgentBudgetExceededError) => void): WallDeadline | undefined {
  const max = activeLimit(behavior.maxWallMs)
  if (max === undefined)
    return undefined
  let error: AgentBudgetExceededError | undefined
  let reject!: (reason: unknown) => void
  const expired = new Promise<never>((_, fail) => {
    reject = fail
  })
  expired.catch(() => {})
  const timer = startTimer(startedAtMs + max - Date.now(), () => {
    error = new AgentBudgetExceededError('wallClock', max, Date.now() - startedAtMs)
    onExpire(error)
    reject(error)
  })
  return {
    get error() {
      return error
    },
    expired,
    at: startedAtMs + max,
    clear: timer.clear,
  }
}

/**
 * Wait for `work`, but reject with the wall-clock budget error if the
 * deadline passes first. Work that fails once the deadline is reached gets
 * the budget error too: a step bounded by `maxWallMs` (the MCP connect)
 * times out in the same millisecond as the wall, and which of two due
 * timers runs first is the timer queue's choice, not a meaningful order.
 */
export function untilWall<T>(work: Promise<T>, wall: WallDeadline | undefined): Promise<T> {
  if (!wall)
    return work
  const settled = work.catch((error: unknown) => Date.now() >= wall.at ? wall.expired : Promise.reject(error))
  settled.catch(() => {})
  return Promise.race([settled, wall.expired])
}
