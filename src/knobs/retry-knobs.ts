/** The retry-with-backoff policy around one provider call. */

import { atLeast, defineFields, defineKnobs, shape, wholeAtLeast } from './define'

/** Retry-with-backoff around one provider call. */
export interface RetryConfig {
  /** Attempts including the first. `1` turns retry off. Default 3. */
  maxAttempts?: number
  /** First backoff delay; each later one doubles before jitter. Default 1000. */
  initialDelayMs?: number
  /** Ceiling for any one delay, `retry-after` included. Default 30000. */
  maxDelayMs?: number
}

/** The retry knob. */
export interface RetryKnobs {
  /** Retry policy for retryable provider failures. */
  retry?: RetryConfig
}

/** What an unset `retry` (or an unset field of it) behaves as. */
export const RETRY_DEFAULTS = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
} satisfies Required<RetryConfig>)

const RETRY_FIELDS = defineFields<RetryConfig>('retry', RETRY_DEFAULTS, {
  maxAttempts: { doc: 'Attempts including the first; `1` turns retry off.', check: wholeAtLeast(1) },
  initialDelayMs: { doc: 'First backoff delay; each later one doubles before jitter.', check: atLeast(0) },
  maxDelayMs: { doc: 'Ceiling of any one delay, `retry-after` included.', check: atLeast(0) },
})

/** The retry slice. */
export const RETRY_KNOBS = defineKnobs<RetryKnobs, { retry: typeof RETRY_DEFAULTS }>('retry', { retry: RETRY_DEFAULTS }, {
  retry: { doc: 'Retries a turn whose error the provider classified retryable, while nothing has streamed.', check: shape(RETRY_FIELDS), fields: RETRY_FIELDS },
})
