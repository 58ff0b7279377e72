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
 */
export function startStreamWatchdog(limits: WatchdogLimits, onFire: (kind: WatchdogKind, afterMs: number) => void): StreamWatchdog {
  let fired = false
  let sawActivity = false
  let startTimer: NodeJS.Timeout | undefined
  let idleTimer: NodeJS.Timeout | undefined
  let totalTimer: NodeJS.Timeout | undefined

  let cleared = false
  const clear = () => {
    cleared = true
    clearTimeout(startTimer)
    clearTimeout(idleTimer)
    clearTimeout(totalTimer)
  }

  const arm = (kind: Exclude<WatchdogKind, 'wall'>, ms: number | undefined): NodeJS.Timeout | undefined => {
    const limit = ms !== undefined && ms > 0 ? ms : undefined
    const wall = limits.wallDeadline === undefined ? undefined : limits.wallDeadline - Date.now()
    const useWall = wall !== undefined && (limit === undefined || wall < limit)
    const delay = useWall ? Math.max(0, wall) : limit
    if (delay === undefined)
      return undefined
    return setTimeout(() => {
      if (fired)
        return
      fired = true
      clear()
      onFire(useWall ? 'wall' : kind, delay)
    }, delay)
  }

  startTimer = arm('start', limits.startMs)
  totalTimer = arm('total', limits.totalMs)

  return {
    activity() {
      if (fired || cleared)
        return
      if (!sawActivity) {
        sawActivity = true
        clearTimeout(startTimer)
      }
      if (limits.idleMs !== undefined && limits.idleMs > 0) {
        clearTimeout(idleTimer)
        idleTimer = arm('idle', limits.idleMs)
      }
    },
    clear,
  }
}
