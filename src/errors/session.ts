/**
 * Sessions and their stores: a store that cannot do what was asked, a saved
 * run state that cannot be read, and the single-writer lease.
 */

/** Where a broken stored record sits, and what is wrong with it (see `SessionStoreError.record`). */
export interface SessionRecordLocation {
  /** 1-based line of the file store's log. */
  line?: number
  /** SQLite table of the row. */
  table?: 'sessions' | 'turns' | 'runs'
  /** The SQLite row's sequence number within its session. */
  row?: number
  /** Position of the turn or run: within its log line (file store), else within the session. */
  index?: number
  /** What is wrong, e.g. `has no content`. */
  problem: string
}

/** A session store could not do what was asked (missing session, duplicate id, unreadable data, HTTP failure). */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError'
  readonly code: 'not_found' | 'exists' | 'invalid_id' | 'corrupt' | 'unsupported_version' | 'io' | 'http'
  readonly sessionId?: string
  /** For `corrupt`: the broken record's place, so a host can show it or skip it. */
  readonly record?: SessionRecordLocation
  constructor(message: string, code: SessionStoreError['code'], options: { sessionId?: string, cause?: unknown, record?: SessionRecordLocation } = {}) {
    super(message, { cause: options.cause })
    this.code = code
    this.sessionId = options.sessionId
    if (options.record !== undefined)
      this.record = options.record
  }
}

/**
 * A saved run state (`SessionRun.state`, or text given to `parseRunState`)
 * cannot be read: not JSON, a newer version, or a field of the wrong shape.
 * `path` names the field (`usage[2].input`, `version`), `problem` what is
 * wrong with it; the message says how to recover.
 */
export class RunStateError extends Error {
  override name = 'RunStateError'
  /** The field at fault, e.g. `target.index`; `(record)` for the record as a whole. */
  readonly path: string
  /** What is wrong with it, e.g. `is a string, not a count`. */
  readonly problem: string
  /** The run whose record held the state, when it came from a session. */
  readonly runId?: string
  readonly sessionId?: string
  constructor(message: string, init: { path: string, problem: string, runId?: string, sessionId?: string, cause?: unknown }) {
    super(message, { cause: init.cause })
    this.path = init.path
    this.problem = init.problem
    if (init.runId !== undefined)
      this.runId = init.runId
    if (init.sessionId !== undefined)
      this.sessionId = init.sessionId
  }
}

/**
 * Who holds a session's lease: the single-writer claim a run takes on its
 * session (see `SessionStore.acquireLease`). `expiresAt` is wall-clock epoch
 * ms; `pid` and `hostname` name the holding process when the store knows them.
 */
export interface SessionLease {
  sessionId: string
  /** The holder's owner id (one per session handle). */
  owner: string
  /** The lease is free for another owner once this time passes without a renewal; `0` once released. */
  expiresAt: number
  pid?: number
  hostname?: string
  /**
   * Set by an acquire that took the lease after another owner (who held it,
   * released it or let it expire): that owner may have written, so a cached
   * copy of the session is stale.
   */
  previousOwner?: string
}

/**
 * A second writer was refused: the session's lease is held by another live
 * owner (`reason: 'held'`), or this writer's own lease was lost, taken over
 * after it expired or released by someone else (`reason: 'lost'`). Nothing
 * was written. Wait for the holder's lease to expire, or release it with
 * `store.releaseLease(sessionId, holder.owner)` when its owner is known to be gone.
 */
export class SessionLeaseError extends Error {
  override name = 'SessionLeaseError'
  readonly sessionId: string
  readonly reason: 'held' | 'lost'
  /** The lease that stands in the way, when one does. */
  readonly holder?: SessionLease
  /** The owner that was refused, when it had one. */
  readonly owner?: string
  constructor(sessionId: string, reason: SessionLeaseError['reason'], options: { holder?: SessionLease, owner?: string, cause?: unknown } = {}) {
    super(leaseMessage(sessionId, reason, options.holder), { cause: options.cause })
    this.sessionId = sessionId
    this.reason = reason
    if (options.holder !== undefined)
      this.holder = options.holder
    if (options.owner !== undefined)
      this.owner = options.owner
  }
}

function leaseMessage(sessionId: string, reason: SessionLeaseError['reason'], holder: SessionLease | undefined): string {
  const where = holder?.pid === undefined ? '' : ` (pid ${holder.pid}${holder.hostname === undefined ? '' : ` on ${holder.hostname}`})`
  const by = holder === undefined ? '' : ` by owner "${holder.owner}"${where}`
  const until = holder !== undefined && holder.expiresAt > 0 ? ` until ${new Date(holder.expiresAt).toISOString()}` : ''
  if (reason === 'held')
    return `Session "${sessionId}" is being written by another run: it is leased${by}${until}. Wait for the lease to expire, or release it with store.releaseLease() once that run is gone`
  return `This writer lost its lease on session "${sessionId}"${holder === undefined ? '' : `, now held${by}${until}`}; it stops writing so two runs never interleave`
}
