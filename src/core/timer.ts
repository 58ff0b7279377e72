/**
 * The one way the package sets a timer. Node (and browsers) keep a timer's
 * delay in a signed 32-bit field: a delay above 2^31 − 1 ms (about 24.8 days)
 * is silently replaced by 1 ms, so a bound such as `maxWallMs: 2 ** 31 + 5`
 * would fire at once. `startTimer` re-arms in steps of at most that much
 * until the whole delay has passed, so any finite delay means what it says.
 */

/** The longest delay one `setTimeout` honours, in milliseconds. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1

/**
 * Real time (epoch ms), the time timers count in. For deadlines of real
 * waits only (stream watchdogs, the wall-clock bounds, a session lease's
 * expiry): a timer fires in real time whatever clock a run records with.
 * What a run measures and records reads its effects (`RunEffects.now`).
 */
export function timerNow(): number {
  return Date.now()
}

/** A started timer. Its methods need their object: pass `() => timer.clear()`, not `timer.clear`. */
export interface Timer {
  /** Cancel it; harmless after it fired. */
  clear: () => void
  /** Start the whole delay again from now (also after it fired; not after `clear`). */
  refresh: () => void
  /** Let the process exit while only this timer is pending. */
  unref: () => Timer
}

/**
 * Call `fire` once after `delayMs` (negative, `NaN`: at once, as
 * `setTimeout` does; `Infinity`: never). Extra arguments are not supported on
 * purpose: a closure says what the callback needs.
 */
export function startTimer(delayMs: number, fire: () => void): Timer {
  return new ChunkedTimer(Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs), fire)
}

/**
 * One object per timer, its methods on the prototype: the loop starts a timer
 * for every provider call, and closures per timer cost more than the timer.
 */
class ChunkedTimer implements Timer {
  private remaining: number
  private handle: ReturnType<typeof setTimeout> | undefined
  private unrefed = false
  private cleared = false

  constructor(private readonly total: number, private readonly fire: () => void) {
    this.remaining = total
    this.arm()
  }

  clear(): void {
    this.cleared = true
    clearTimeout(this.handle)
  }

  refresh(): void {
    if (this.cleared)
      return
    clearTimeout(this.handle)
    this.remaining = this.total
    this.arm()
  }

  unref(): Timer {
    this.unrefed = true
    if (this.handle !== undefined && !this.cleared)
      unrefHandle(this.handle)
    return this
  }

  /** Set the next step: the whole rest of the delay, or as much of it as one `setTimeout` holds. */
  arm(): void {
    if (this.remaining === Number.POSITIVE_INFINITY)
      return
    const step = Math.min(this.remaining, MAX_TIMER_DELAY_MS)
    this.remaining -= step
    this.handle = this.remaining > 0 ? setTimeout(armAgain, step, this) : setTimeout(this.fire, step)
    if (this.unrefed)
      unrefHandle(this.handle)
  }
}

/** The next step of a delay longer than one `setTimeout` can hold. */
function armAgain(timer: ChunkedTimer): void {
  timer.arm()
}

/** Wait `delayMs` (through `startTimer`); with a signal, reject with its reason as soon as it aborts. */
export function delay(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const timer = startTimer(delayMs, () => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    })
    function onAbort() {
      timer.clear()
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * A signal that aborts with a `TimeoutError` after `delayMs`, like
 * `AbortSignal.timeout` but without its 32-bit limit. Call `clear` once the
 * work it bounds is over.
 */
export function timeoutSignal(delayMs: number): { signal: AbortSignal, clear: () => void } {
  const controller = new AbortController()
  const timer = startTimer(delayMs, () => controller.abort(new DOMException(`The operation timed out after ${delayMs} ms`, 'TimeoutError'))).unref()
  return { signal: controller.signal, clear: () => timer.clear() }
}

/** A delay handed to code that sets its own timer (a third-party client): capped so it cannot wrap to 1 ms. */
export function clampTimerDelay(delayMs: number): number {
  return Math.min(delayMs, MAX_TIMER_DELAY_MS)
}

function unrefHandle(handle: ReturnType<typeof setTimeout>): void {
  // Browsers return a number, which has nothing to unref.
  if (typeof handle === 'object' && handle !== null && typeof handle.unref === 'function')
    handle.unref()
}
