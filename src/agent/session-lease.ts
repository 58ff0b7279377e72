/**
 * A run's hold on its session's lease: taken when the run starts, renewed on
 * a timer while it lives, released when it ends, whichever way it ends. A
 * second writer gets `SessionLeaseError` instead of interleaving its turns.
 *
 * A run whose session handle already holds the lease rides on it instead: a
 * subagent sharing its parent's session (the `spawn` tool), or a top-level
 * run on a handle the host leased itself (`session.acquireLease()`), which
 * the run renews while it lives but leaves held. Two top-level runs of one
 * process on one handle are refused like two processes.
 *
 * Expiry is judged on real time (`timerNow()`), never on the run's
 * clock or effects: a replay or test clock must not make a live lease look expired.
 */

import type { Timer } from '../core/timer'
import type { Session } from '../session/session'
import { MAX_TIMER_DELAY_MS, startTimer, timerNow } from '../core/timer'
import { AgentAbortedError, SessionLeaseError } from '../errors'
import { DEFAULT_LEASE_RENEW_MS, LEASE_TTL_RENEWALS } from '../session/stores/lease'

/** Largest renew interval: what one `setTimeout` can wait. */
const MAX_RENEW_MS = MAX_TIMER_DELAY_MS

/** Handles a top-level run of this process is writing through right now. */
const topLevelRuns = new WeakSet<Session>()

export interface RunLeaseOptions {
  /** `AgentRunOptions.leaseRenewMs`. */
  renewMs?: number
  /** `AgentRunOptions.depth`: 0 for a top-level run. */
  depth: number
  /** Told once when the lease is lost for good (taken over, or ran out while renewals failed). */
  onLost: (error: SessionLeaseError) => void
  /** Stop waiting for the lease when either aborts (the run's signal, `agent.abort()`). */
  signals?: readonly (AbortSignal | undefined)[]
}

export interface RunLease {
  /** Stop renewing; release the lease when this run took it. Never rejects. */
  end: () => Promise<void>
}

/** Take (or ride on) the session's lease for one run. Rejects with `SessionLeaseError` when another writer holds it. */
export async function holdRunLease(session: Session, options: RunLeaseOptions): Promise<RunLease> {
  const renewMs = leaseRenewMs(options.renewMs)
  const topLevel = options.depth === 0
  if (topLevel && topLevelRuns.has(session))
    throw new SessionLeaseError(session.id, 'held', session.lease ? { holder: session.lease } : {})
  const riding = session.lease !== undefined
  // Claimed before the first await, so two runs starting together on one handle cannot both get in.
  if (topLevel)
    topLevelRuns.add(session)
  if (!riding) {
    try {
      await untilAborted(session.acquireLease({ ttlMs: renewMs * LEASE_TTL_RENEWALS }), options.signals ?? [], () => void session.releaseLease().catch(() => {}))
    }
    catch (error) {
      if (topLevel)
        topLevelRuns.delete(session)
      throw error
    }
  }
  // A subagent on its parent's lease leaves the renewing to the parent.
  const renewals = riding && !topLevel ? undefined : startRenewals(session, renewMs, options.onLost)
  return {
    async end() {
      renewals?.stop()
      if (topLevel)
        topLevelRuns.delete(session)
      if (!riding)
        await session.releaseLease().catch(() => {})
    },
  }
}

/**
 * Wait for `work` unless a signal aborts first; then reject with the abort's
 * reason, and hand a late success to `undo` so nothing taken stays held.
 */
function untilAborted<T>(work: Promise<T>, signals: readonly (AbortSignal | undefined)[], undo: (value: T) => void): Promise<T> {
  // A signal aborted before the run began is the run's to handle, as it always was (it returns `aborted`).
  const live = signals.filter((signal): signal is AbortSignal => signal !== undefined && !signal.aborted)
  if (live.length === 0)
    return work
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const listeners: [AbortSignal, () => void][] = []
    const cleanup = () => {
      for (const [signal, listener] of listeners) signal.removeEventListener('abort', listener)
    }
    const onAbort = (signal: AbortSignal) => {
      if (settled)
        return
      settled = true
      cleanup()
      reject(signal.reason ?? new AgentAbortedError())
    }
    for (const signal of live) listeners.push([signal, () => onAbort(signal)])
    for (const [signal, listener] of listeners) signal.addEventListener('abort', listener, { once: true })
    work.then((value) => {
      if (settled)
        return undo(value)
      settled = true
      cleanup()
      resolve(value)
    }, (error: unknown) => {
      if (settled)
        return
      settled = true
      cleanup()
      reject(error)
    })
  })
}

/** `leaseRenewMs` checked: a positive number of ms a timer can wait. */
function leaseRenewMs(value: number | undefined): number {
  if (value === undefined)
    return DEFAULT_LEASE_RENEW_MS
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > MAX_RENEW_MS)
    throw new TypeError(`leaseRenewMs must be a number of ms from 1 to ${MAX_RENEW_MS}; got ${String(value)}`)
  return Math.floor(value)
}

/**
 * Renew every `renewMs`, one renewal at a time. A failed renewal that is not
 * a refusal (the store was unreachable) is tried again every quarter
 * interval while the lease still has time; a refusal, or running out of
 * time, reports the lease lost. The timer never keeps the process alive.
 */
function startRenewals(session: Session, renewMs: number, onLost: (error: SessionLeaseError) => void): { stop: () => void } {
  let stopped = false
  let timer: Timer | undefined
  const schedule = (ms: number) => {
    timer = startTimer(ms, () => void renew()).unref()
  }
  async function renew(): Promise<void> {
    const expiresAt = session.lease?.expiresAt ?? 0
    // A renewal that never settles must not keep a run writing past its lease: the lease is lost when it ends.
    let settled = false
    const watchdog = startTimer(Math.max(0, expiresAt - timerNow()), () => {
      if (!settled && !stopped)
        onLost(new SessionLeaseError(session.id, 'lost'))
    }).unref()
    try {
      await session.renewLease()
      settled = true
      watchdog.clear()
      if (!stopped)
        schedule(renewMs)
    }
    catch (error) {
      settled = true
      watchdog.clear()
      if (stopped)
        return
      if (error instanceof SessionLeaseError)
        onLost(error)
      else if (timerNow() >= expiresAt)
        onLost(new SessionLeaseError(session.id, 'lost', { cause: error }))
      else
        schedule(Math.max(1, Math.floor(renewMs / 4)))
    }
  }
  schedule(renewMs)
  return {
    stop() {
      stopped = true
      timer?.clear()
    },
  }
}
