import type { Timer } from '../core/timer'
import { startTimer, timerNow } from '../core/timer'

/** Which watchdog ended a provider call. `wall` is the run's `maxWallMs` running out first. */
export type WatchdogKind = 'start' | 'idle' | 'total' | 'wall'

export interface WatchdogLimits {
  /** Until the first stream event. */
  startMs?: number
  /** Between stream events once the first arrived. */
  idleMs?: number
  /** For the whole call. */
  totalMs?: number
  /** Real time (epoch ms) at which `maxWallMs` runs out; bounds every other limit. */
  wallDeadline?: number
}

export interface StreamWatchdog {
  /** A stream event arrived: clears the start timer and re-arms the idle timer. */
  activity: () => void
  /** Stop every timer. */
  clear: () => void
}

/**
 * Timers around one provider call. When one fires, `onFire` gets its kind and
 * the caller aborts the request. A lower wall-clock remainder replaces a
 * limit, and is reported as `wall` so the run can fail with a budget error
 * rather than a provider timeout.
 *
 * The limits share one timer, set for the nearest deadline: a turn is
 * usually over long before any of them, so a call costs one timer and
 * one clear, and a stream event only notes the time (the first one
 * also sets the timer again when an idle limit takes over). When the timer
 * finds its deadline moved (activity came in meanwhile), it is set again for
 * the new nearest one.
 */
export function startStreamWatchdog(limits: WatchdogLimits, onFire: (kind: WatchdogKind, afterMs: number) => void): StreamWatchdog {
  const startedAt = timerNow()
  const startMs = positive(limits.startMs)
  const idleMs = positive(limits.idleMs)
  const totalMs = positive(limits.totalMs)
  let sawActivity = false
  let lastActivity = startedAt
  let over = false
  let timer: Timer | undefined

  const clear = () => {
    over = true
    timer?.clear()
  }

  // The deadline that comes first now: the start limit until the first event, then the idle limit from the last one.
  const nearest = (): Deadline | undefined => {
    let first: Deadline | undefined
    const consider = (kind: Exclude<WatchdogKind, 'wall'>, ms: number | undefined, from: number) => {
      if (ms === undefined)
        return
      const deadline = bounded(kind, from, ms, limits.wallDeadline)
      if (!first || deadline.at < first.at)
        first = deadline
    }
    if (!sawActivity)
      consider('start', startMs, startedAt)
    else
      consider('idle', idleMs, lastActivity)
    consider('total', totalMs, startedAt)
    return first
  }

  const schedule = () => {
    const deadline = nearest()
    if (!deadline)
      return
    // Timers may run a millisecond ahead of `timerNow()`: a deadline that close counts as reached.
    const wait = deadline.at - timerNow()
    if (wait > 1) {
      timer = startTimer(wait, schedule)
      return
    }
    clear()
    onFire(deadline.kind, deadline.afterMs)
  }
  schedule()

  return {
    activity() {
      if (over)
        return
      const first = !sawActivity
      sawActivity = true
      if (idleMs === undefined)
        return
      lastActivity = timerNow()
      // The idle limit takes over from the start limit and may end sooner than the timer set for it.
      if (first) {
        timer?.clear()
        schedule()
      }
    },
    clear,
  }
}

/** A limit's deadline, as an epoch time, and what to report when it fires. */
interface Deadline {
  kind: WatchdogKind
  at: number
  afterMs: number
}

/** The limit of `ms` counted from `from`, or the wall-clock deadline when that comes first. */
function bounded(kind: Exclude<WatchdogKind, 'wall'>, from: number, ms: number, wallDeadline: number | undefined): Deadline {
  if (wallDeadline !== undefined && wallDeadline - from < ms)
    return { kind: 'wall', at: wallDeadline, afterMs: Math.max(0, wallDeadline - from) }
  return { kind, at: from + ms, afterMs: ms }
}

function positive(ms: number | undefined): number | undefined {
  return ms !== undefined && ms > 0 ? ms : undefined
}
