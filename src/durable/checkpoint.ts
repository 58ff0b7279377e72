import type { DurableRuntime } from './types'
import { flatUUID } from '../core/clock'
import { MAX_TIMER_DELAY_MS } from '../core/timer'

/** Options of `checkpointRuntime`. */
export interface CheckpointRuntimeOptions {
  /** How often a top-level run renews its session's lease, in ms (a run's own `leaseRenewMs` wins). Default 60 s. */
  leaseRenewMs?: number
  /** Time source for what runs record. Default `Date.now()`. */
  now?: () => number
  /** Id source for what runs record. Default `crypto.randomUUID()`. */
  randomUUID?: () => string
}

/**
 * A durable runtime without an engine: the session store is the checkpoint.
 * A run records its turns and its run state at every turn boundary (as every
 * run with a session does) and holds its session's lease, renewed every
 * `leaseRenewMs`, so a second writer gets `SessionLeaseError`. A run cut off
 * by a crash, a pause or `agent.suspend()` is continued by `agent.resume()`,
 * in this process or another; model output a crash cut off is kept as an
 * `aborted` turn. Nothing is journaled: the turn in flight when a process
 * dies is asked again, so its tools may run again (use a `'replay'` runtime
 * when that must not happen).
 */
export function checkpointRuntime(options: CheckpointRuntimeOptions = {}): DurableRuntime {
  const renew = options.leaseRenewMs
  if (renew !== undefined && !(typeof renew === 'number' && Number.isFinite(renew) && renew >= 1 && renew <= MAX_TIMER_DELAY_MS))
    throw new TypeError(`leaseRenewMs must be a number of ms from 1 to ${MAX_TIMER_DELAY_MS}; got ${String(renew)}`)
  return Object.freeze({
    mode: 'checkpoint' as const,
    step: <T>(_name: string, fn: () => Promise<T>) => fn(),
    now: options.now ?? (() => Date.now()),
    randomUUID: options.randomUUID ?? flatUUID,
    ...(renew === undefined ? {} : { leaseRenewMs: Math.floor(renew) }),
  })
}
