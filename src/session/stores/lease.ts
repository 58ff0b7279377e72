/**
 * The session lease: one writer per session at a time. Every store keeps one
 * lease record per session and applies the same three rules, written once here:
 *
 * - acquire: granted when nobody holds the lease, when the holder is the
 *   asking owner, or when the holder is gone (its lease expired, or the store
 *   can prove its process is dead); refused with `SessionLeaseError('held')`
 *   otherwise;
 * - renew: granted only to the live holder; anyone else gets
 *   `SessionLeaseError('lost')`;
 * - write: a write that names an owner needs that owner's live lease
 *   (`lost` otherwise); a write that names none is refused (`held`) while
 *   another owner's lease is live.
 *
 * A release leaves the released owner's name behind, so the next owner
 * learns who wrote before it (`SessionLease.previousOwner`): this table and
 * SQLite keep the record, expired; the file store moves it aside. Times are
 * wall-clock epoch ms.
 */

import type { SessionLease } from '../../errors'
import { hostname } from 'node:os'
import { mergeObjects } from '../../core/merge-objects'
import { SessionLeaseError } from '../../errors'

/** How often a run renews its session's lease by default (`AgentRunOptions.leaseRenewMs`). */
export const DEFAULT_LEASE_RENEW_MS = 60_000
/** A lease lasts this many renew intervals, so one late or failed renewal does not lose it. */
export const LEASE_TTL_RENEWALS = 3
/** Default lease TTL: three default renew intervals, 3 minutes. */
export const DEFAULT_LEASE_TTL_MS = DEFAULT_LEASE_RENEW_MS * LEASE_TTL_RENEWALS

/** The process a lease is taken for, when it is known: lets a store on the same host tell a dead holder. */
export interface SessionLeaseOrigin {
  pid?: number
  hostname?: string
}

/** Whether a lease is past its expiry, or its holder is known to be gone. */
export type HolderGone = (lease: SessionLease) => boolean

/** The holder is gone when its lease has expired. */
export const expiredOnly: HolderGone = () => false

function isLive(lease: SessionLease | undefined, now: number, gone: HolderGone): lease is SessionLease {
  return lease !== undefined && lease.expiresAt > now && !gone(lease)
}

/** The lease an acquire grants, or a `held` refusal. `current` is the stored record. */
export function grantLease(id: string, current: SessionLease | undefined, owner: string, ttlMs: number, origin: SessionLeaseOrigin, now: number, gone: HolderGone): SessionLease {
  assertLeaseRequest(owner, ttlMs)
  if (current && current.owner !== owner && isLive(current, now, gone))
    throw new SessionLeaseError(id, 'held', { holder: publicLease(current), owner })
  return {
    sessionId: id,
    owner,
    expiresAt: now + ttlMs,
    ...(origin.pid === undefined ? {} : { pid: origin.pid }),
    ...(origin.hostname === undefined ? {} : { hostname: origin.hostname }),
    ...(current && current.owner !== owner ? { previousOwner: current.owner } : {}),
  }
}

/** The lease a renewal extends, or a `lost` refusal when `owner` no longer holds a live one. */
export function extendLease(id: string, current: SessionLease | undefined, owner: string, ttlMs: number, now: number): SessionLease {
  assertLeaseRequest(owner, ttlMs)
  if (!current || current.owner !== owner || current.expiresAt <= now)
    throw lostLease(id, current, owner, now)
  const { previousOwner: _, ...held } = current
  return mergeObjects(held, { expiresAt: now + ttlMs })
}

/** The record a release leaves: expired, still naming its last owner; `undefined` when `owner` does not hold it. */
export function releasedLease(current: SessionLease | undefined, owner: string): SessionLease | undefined {
  if (!current || current.owner !== owner || current.expiresAt === 0)
    return undefined
  const { previousOwner: _, ...held } = current
  return mergeObjects(held, { expiresAt: 0 })
}

/** Throw unless a write by `owner` (or by no owner) may go ahead under `current`. */
export function checkWriter(id: string, current: SessionLease | undefined, owner: string | undefined, now: number, gone: HolderGone): void {
  if (owner === undefined) {
    if (isLive(current, now, gone))
      throw new SessionLeaseError(id, 'held', { holder: publicLease(current) })
    return
  }
  if (!current || current.owner !== owner || current.expiresAt <= now)
    throw lostLease(id, current, owner, now)
}

function lostLease(id: string, current: SessionLease | undefined, owner: string, now: number): SessionLeaseError {
  const holder = current && current.owner !== owner && current.expiresAt > now ? publicLease(current) : undefined
  return new SessionLeaseError(id, 'lost', { owner, ...(holder ? { holder } : {}) })
}

function publicLease(lease: SessionLease): SessionLease {
  const { previousOwner: _, ...held } = lease
  return held
}

/** Longest lease accepted: a year. Past that a typo, not a lease. */
const MAX_TTL_MS = 365 * 24 * 3600 * 1000
const MAX_OWNER_LENGTH = 256

/** Refuse a malformed lease request (empty owner, TTL not a positive number of ms) with a `TypeError`. */
export function assertLeaseRequest(owner: string, ttlMs: number): void {
  if (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER_LENGTH)
    throw new TypeError(`A lease owner is a non-empty string of at most ${MAX_OWNER_LENGTH} characters`)
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TTL_MS)
    throw new TypeError(`A lease TTL is a positive number of ms, at most ${MAX_TTL_MS}; got ${String(ttlMs)}`)
}

/** This process, as a lease origin. */
export function thisProcess(): SessionLeaseOrigin {
  return { pid: process.pid, hostname: hostname() }
}

/**
 * A process is provably gone when it ran on this host and no longer exists.
 * A pid reused by another process reads as alive: a lease then waits for its
 * expiry, the safe side.
 */
export function processIsGone(origin: SessionLeaseOrigin): boolean {
  if (origin.pid === undefined || origin.hostname !== hostname() || origin.pid === process.pid)
    return false
  try {
    process.kill(origin.pid, 0)
    return false
  }
  catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** For stores on this host's disk: a holder is gone once expired or once its process is. */
export const deadOnThisHost: HolderGone = lease => processIsGone(lease)

/** Lease records kept in this process: the memory store's, and the fallback for stores with no lease of their own. */
export interface LeaseTable {
  acquire: (id: string, owner: string, ttlMs: number, origin?: SessionLeaseOrigin) => SessionLease
  renew: (id: string, owner: string, ttlMs: number) => SessionLease
  release: (id: string, owner: string) => void
  check: (id: string, owner: string | undefined) => void
  forget: (id: string) => void
}

export function createLeaseTable(): LeaseTable {
  const leases = new Map<string, SessionLease>()
  return {
    acquire(id, owner, ttlMs, origin = {}) {
      const lease = grantLease(id, leases.get(id), owner, ttlMs, origin, Date.now(), expiredOnly)
      leases.set(id, publicLease(lease))
      return lease
    },
    renew(id, owner, ttlMs) {
      const lease = extendLease(id, leases.get(id), owner, ttlMs, Date.now())
      leases.set(id, lease)
      return lease
    },
    release(id, owner) {
      const released = releasedLease(leases.get(id), owner)
      if (released)
        leases.set(id, released)
    },
    check: (id, owner) => checkWriter(id, leases.get(id), owner, Date.now(), expiredOnly),
    forget: id => void leases.delete(id),
  }
}

/** Parse a stored lease record; `undefined` for anything that is not one (treated as no lease). */
export function parseLease(id: string, text: string): SessionLease | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  }
  catch {
    return undefined
  }
  const record = value as Partial<SessionLease> | null
  if (typeof record !== 'object' || record === null || typeof record.owner !== 'string' || typeof record.expiresAt !== 'number')
    return undefined
  return {
    sessionId: id,
    owner: record.owner,
    expiresAt: record.expiresAt,
    ...(typeof record.pid === 'number' ? { pid: record.pid } : {}),
    ...(typeof record.hostname === 'string' ? { hostname: record.hostname } : {}),
  }
}
