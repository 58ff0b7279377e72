import type { RetryConfig } from '../knobs/behavior'
import { delay } from '../core/timer'
import { RETRY_DEFAULTS } from '../knobs/retry-knobs'

export interface ResolvedRetry {
  maxAttempts: number
  initialDelayMs: number
  maxDelayMs: number
}

/** Fill the retry defaults (`RETRY_DEFAULTS`); bad values fall back to them. */
export function resolveRetry(config: RetryConfig | undefined): ResolvedRetry {
  const attempts = config?.maxAttempts
  const initial = config?.initialDelayMs
  const cap = config?.maxDelayMs
  return {
    maxAttempts: attempts !== undefined && Number.isInteger(attempts) && attempts >= 1 ? attempts : RETRY_DEFAULTS.maxAttempts,
    initialDelayMs: initial !== undefined && Number.isFinite(initial) && initial >= 0 ? initial : RETRY_DEFAULTS.initialDelayMs,
    maxDelayMs: cap !== undefined && Number.isFinite(cap) && cap >= 0 ? cap : RETRY_DEFAULTS.maxDelayMs,
  }
}

/**
 * Delay before retry number `retry` (1 for the first retry). A server's
 * `retry-after` wins when present; otherwise exponential backoff with full
 * jitter drawn from `random` (the run's `effects.random`). Both are capped
 * by `maxDelayMs`.
 */
export function backoffDelay(retry: number, config: ResolvedRetry, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0)
    return Math.min(retryAfterMs, config.maxDelayMs)
  const ceiling = Math.min(config.maxDelayMs, config.initialDelayMs * 2 ** (retry - 1))
  return Math.floor(random() * ceiling)
}

/** Wait `ms`, or reject as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, signal)
}
