import type { AgentBehavior } from '../knobs/behavior'
import { withGetters } from '../core/fast-accessors'
import { startTimer, timerNow } from '../core/timer'
import { AgentBudgetExceededError } from '../errors'
import { activeLimit } from '../knobs/behavior'

/**
 * The two wall-clock bounds of a run, both counted in real time from the
 * moment `run()` was called (see docs/decisions/2026-12-02-wall-clock.md).
 *
 * - `maxWallMs` is a soft cap. The budget policy compares the run's clock
 *   after each turn (replay-stable); besides, every wait of the loop (the
 *   stream watchdogs, the MCP connect, the first spawn, the tool-state load,
 *   a retry delay, a policy phase) gets at most the time left until the cap.
 *   A wait the cap cuts ends the run with the budget error. Tools in flight
 *   are not interrupted by it: the turn that crosses the cap completes.
 * - `hardWallMs` is a hard deadline: when it passes, the run's signal aborts
 *   with the budget error, wherever the run is.
 */
export interface WallBound {
  /** The knob this bound comes from. */
  readonly knob: 'maxWallMs' | 'hardWallMs'
  /** Its value in milliseconds. */
  readonly max: number
  /** Real time (epoch ms) at which it runs out. */
  readonly at: number
  /** The error the run was ended with because of this bound, once it was. */
  readonly error: AgentBudgetExceededError | undefined
  /** Stop its timer (the run is over). */
  clear: () => void
}

/** The `maxWallMs` cap as the loop's waits see it. */
export interface WallDeadline extends WallBound {
  /**
   * Wait for `work`, but not past the cap. When the cap comes first (or has
   * passed and `work` is still pending), the run is ended with the budget
   * error and the wait rejects with it. Work that fails once the cap is
   * reached gets the budget error too: a step bounded by the cap (the MCP
   * connect) times out in the same millisecond as the cap, and which of two
   * due timers runs first is the timer queue's choice, not a meaningful order.
   */
  bound: <T>(work: PromiseLike<T>) => Promise<T>
}

/**
 * Arm the `maxWallMs` cap (`undefined` without one). `end` is called once,
 * with the budget error, when a wait is cut; it aborts the run.
 */
export function startWallDeadline(behavior: AgentBehavior, startedAtMs: number, end: (error: AgentBudgetExceededError) => void): WallDeadline | undefined {
  const max = activeLimit(behavior.maxWallMs)
  if (max === undefined)
    return undefined
  const at = startedAtMs + max
  let error: AgentBudgetExceededError | undefined
  let passed = false
  // The waits pending now, each with the function that cuts it; most runs have none or one at a time.
  const waiting = new Set<() => void>()
  const expire = (): AgentBudgetExceededError => {
    if (!error) {
      error = new AgentBudgetExceededError('wallClock', max, timerNow() - startedAtMs)
      end(error)
    }
    return error
  }
  const timer = startTimer(at - timerNow(), () => {
    passed = true
    for (const cut of [...waiting]) cut()
  })
  return withGetters<WallDeadline, 'error'>({
    knob: 'maxWallMs',
    max,
    at,
    clear: () => timer.clear(),
    bound<T>(work: PromiseLike<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let settled = false
        const finish = () => {
          settled = true
          waiting.delete(cut)
        }
        function cut() {
          if (settled)
            return
          finish()
          reject(expire())
        }
        waiting.add(cut)
        Promise.resolve(work).then((value) => {
          if (settled)
            return
          finish()
          resolve(value)
        }, (failure: unknown) => {
          if (settled)
            return
          if (timerNow() >= at) {
            cut()
            return
          }
          finish()
          reject(failure)
        })
        // No time is left: work that is already settled still wins (its reaction is queued first), work that would wait is cut.
        if (passed || timerNow() >= at) {
          passed = true
          void Promise.resolve().then(cut)
        }
      })
    },
  }, { error: () => error })
}

/**
 * Arm the `hardWallMs` deadline (`undefined` without one): when it passes,
 * `end` gets the budget error and aborts the run's signal with it.
 */
export function startHardDeadline(behavior: AgentBehavior, startedAtMs: number, end: (error: AgentBudgetExceededError) => void): WallBound | undefined {
  const max = activeLimit(behavior.hardWallMs)
  if (max === undefined)
    return undefined
  let error: AgentBudgetExceededError | undefined
  const timer = startTimer(startedAtMs + max - timerNow(), () => {
    error = new AgentBudgetExceededError('wallClock', max, timerNow() - startedAtMs)
    end(error)
  })
  return withGetters<WallBound, 'error'>({
    knob: 'hardWallMs',
    max,
    at: startedAtMs + max,
    clear: () => timer.clear(),
  }, { error: () => error })
}

/** The wall-clock bound whose error aborted the run, if that is why it was aborted. */
export function wallThatEnded(run: { readonly signal: AbortSignal, readonly wall?: WallBound, readonly hardWall?: WallBound }): WallBound | undefined {
  if (!run.signal.aborted)
    return undefined
  const reason: unknown = run.signal.reason
  if (run.wall?.error !== undefined && reason === run.wall.error)
    return run.wall
  if (run.hardWall?.error !== undefined && reason === run.hardWall.error)
    return run.hardWall
  return undefined
}

/**
 * Wait for a step before the loop (MCP connect, tool-state load, first
 * spawn) under both wall-clock bounds: the `maxWallMs` cap cuts it, and so
 * does the `hardWallMs` deadline (through the run's signal). Either way the
 * wait rejects with the budget error.
 */
export function untilWall<T>(work: Promise<T>, run: { readonly signal: AbortSignal, readonly wall?: WallDeadline, readonly hardWall?: WallBound }): Promise<T> {
  const bounded = run.wall ? run.wall.bound(work) : work
  const hard = run.hardWall
  if (!hard)
    return bounded
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (hard.error !== undefined && run.signal.reason === hard.error)
        reject(hard.error)
    }
    if (run.signal.aborted)
      onAbort()
    else
      run.signal.addEventListener('abort', onAbort, { once: true })
    bounded.then((value) => {
      run.signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, (error: unknown) => {
      run.signal.removeEventListener('abort', onAbort)
      reject(error)
    })
  })
}
