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
 * one clear, and a stream event only notes the time. The first event lets
 * an idle limit take over from the start limit; the timer is set again then
 * only when the idle deadline comes sooner than the one it was set for. When
 * the timer finds its deadline moved (activity came in meanwhile), it is set
 * again for the new nearest one.
 */
export function startStreamWatchdog(limits: WatchdogLimits, onFire: (kind: WatchdogKind, afterMs: number) => void): StreamWatchdog {
  return new CallWatchdog(limits, onFire)
}

/**
 * The watchdog of one call, as one object: a call is made on every turn, and
 * its methods live on the prototype, so a call makes one closure (the timer's
 * callback) where it used to make several.
 */
class CallWatchdog implements StreamWatchdog {
  private readonly startedAt = timerNow()
  private readonly startMs: number | undefined
  private readonly idleMs: number | undefined
  private readonly totalMs: number | undefined
  private sawActivity = false
  private lastActivity: number
  private over = false
  private timer: Timer | undefined
  /** When the timer is set to fire (epoch ms). */
  private timerAt = Number.POSITIVE_INFINITY
  private readonly onTimer = (): void => this.schedule()

  constructor(private readonly limits: WatchdogLimits, private readonly onFire: (kind: WatchdogKind, afterMs: number) => void) {
    this.startMs = positive(limits.startMs)
    this.idleMs = positive(limits.idleMs)
    this.totalMs = positive(limits.totalMs)
    this.lastActivity = this.startedAt
    this.schedule()
  }

  activity(): void {
    if (this.over)
      return
    const first = !this.sawActivity
    this.sawActivity = true
    if (this.idleMs === undefined)
      return
    this.lastActivity = timerNow()
    // The idle limit takes over from the start limit and may end sooner than the timer set for it.
    if (first && this.lastActivity + this.idleMs < this.timerAt) {
      this.timer?.clear()
      this.schedule()
    }
  }

  clear(): void {
    this.over = true
    this.timer?.clear()
  }

  /** The deadline that comes first now: the start limit until the first event, then the idle limit from the last one. */
  private nearest(): Deadline | undefined {
    const { limits } = this
    let first = this.sawActivity
      ? this.idleMs === undefined ? undefined : bounded('idle', this.lastActivity, this.idleMs, limits.wallDeadline)
      : this.startMs === undefined ? undefined : bounded('start', this.startedAt, this.startMs, limits.wallDeadline)
    if (this.totalMs !== undefined) {
      const total = bounded('total', this.startedAt, this.totalMs, limits.wallDeadline)
      if (!first || total.at < first.at)
        first = total
    }
    return first
  }

  private schedule(): void {
    if (this.over)
      return
    const deadline = this.nearest()
    if (!deadline) {
      this.timerAt = Number.POSITIVE_INFINITY
      return
    }
    // Timers may run a millisecond ahead of `timerNow()`: a deadline that close counts as reached.
    const wait = deadline.at - timerNow()
    if (wait > 1) {
      this.timerAt = deadline.at
      this.timer = startTimer(wait, this.onTimer)
      return
    }
    this.clear()
    this.onFire(deadline.kind, deadline.afterMs)
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
