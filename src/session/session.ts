import type { AgentClock } from '../core/clock'
import type { SessionTurn } from '../core/content'
import type { SessionLease } from '../errors'
import type { SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions, SkippedSessionRecord } from './types'
import { DEFAULT_AGENT_CLOCK } from '../core/clock'
import { withGetters } from '../core/fast-accessors'
import { SessionLeaseError, SessionStoreError } from '../errors'
import { checkSessionData, loadsAreChecked } from './stores/corrupt-records'
import { DEFAULT_LEASE_TTL_MS, thisProcess } from './stores/lease'
import { createMemoryStore } from './stores/memory'
import { withLeases } from './stores/with-leases'
import { assertLoadableRecords, assertWithinRecordDepth } from './stores/writable-json'
import { flushUnsavedWork } from './unsaved-work'

/**
 * A conversation that outlives one run: its turns, its runs, and the store
 * that keeps them. Agents append to it as they go; `loadSession` brings it
 * back after a restart or a crash.
 */
export interface Session {
  readonly id: string
  readonly createdAt: number
  readonly metadata?: Readonly<Record<string, unknown>>
  /** Every turn, in order. */
  readonly turns: readonly SessionTurn[]
  /** Every run, in start order. */
  readonly runs: readonly SessionRun[]
  readonly store: SessionStore
  /**
   * Append turns to the session and its store (all or nothing in the store).
   * With `run`, that run record is saved in the same store write when the
   * store can (`SessionStore.appendTurnsAndRun`), else right after the turns.
   */
  appendTurns: (turns: readonly SessionTurn[], run?: SessionRun) => Promise<void>
  /** Record a run, or update the record with the same id. */
  saveRun: (run: SessionRun) => Promise<void>
  /** The turns a run produced, in order. */
  turnsOfRun: (runId: string) => SessionTurn[]
  /**
   * Make the store hold everything this session has: the turns a run in
   * progress keeps back (`persistTurns: false`) up to its last settled turn
   * (a tool call waiting for its result stays back, so the store never holds
   * an unanswered call), with the run's record; then wait for every write
   * queued before the call. Rejects when a write it makes fails; calling it
   * again retries what is still unsaved. Without a run in progress it is
   * a barrier for the writes already made.
   */
  save: () => Promise<void>
  /** Broken records an `onCorrupt: 'skip'` load left out (still in the store, unchanged); empty otherwise. */
  readonly skipped: readonly SkippedSessionRecord[]
  /**
   * The lease this handle holds on the session, if any: while it does, every
   * write it makes names the lease's owner, and the store refuses them once
   * the lease is lost. A run takes and releases it by itself.
   */
  readonly lease: SessionLease | undefined
  /**
   * Take the session's lease for this handle (its owner id is minted once per
   * handle), for `ttlMs` (default three times the default renew interval, 3
   * minutes). `SessionLeaseError` when another live owner holds it. When
   * another owner had it before, the handle first reloads its turns and runs
   * from the store, since that owner may have written.
   */
  acquireLease: (options?: { ttlMs?: number }) => Promise<SessionLease>
  /** Extend the lease for another TTL; `SessionLeaseError('lost')` when this handle no longer holds it. */
  renewLease: () => Promise<SessionLease>
  /** Give the lease up after the writes already queued; a no-op when the handle holds none. */
  releaseLease: () => Promise<void>
}

/** Options of `createSession`. */
export interface CreateSessionOptions {
  /** Session id; the store mints one when absent. */
  id?: string
  /** Where the session is kept. Default: a fresh in-memory store. */
  store?: SessionStore
  /** Host data stored with the session. */
  metadata?: Record<string, unknown>
  /** Time source for `createdAt`. */
  clock?: AgentClock
}

/** Create a new, empty session in a store. Rejects when the id is taken. */
export async function createSession(options: CreateSessionOptions = {}): Promise<Session> {
  const store = options.store ?? createMemoryStore()
  const clock = options.clock ?? DEFAULT_AGENT_CLOCK
  // Built-in stores refuse it themselves; a custom one is not handed metadata its loads would refuse.
  if (options.metadata !== undefined && !loadsAreChecked(store))
    assertWithinRecordDepth(options.id, { kind: 'metadata', records: [options.metadata] })
  const data = await store.create({ id: options.id, createdAt: await clock.now(), metadata: options.metadata })
  return sessionFromData(data, store)
}

export interface LoadSessionOptions extends SessionLoadOptions {
  /** Where the session is kept. */
  store: SessionStore
}

/**
 * Load a stored session. Rejects with `SessionStoreError` (`not_found`) when
 * there is none, and (`corrupt`) at a broken record unless
 * `onCorrupt: 'skip'` leaves it out and lists it in `session.skipped`.
 */
export async function loadSession(id: string, options: LoadSessionOptions): Promise<Session> {
  const loadOptions: SessionLoadOptions | undefined = options.onCorrupt === undefined ? undefined : { onCorrupt: options.onCorrupt }
  const data = await options.store.load(id, loadOptions)
  if (!data)
    throw new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
  // Built-in stores have checked every record already; this pass covers custom stores, and costs a few typeof tests per turn.
  return sessionFromData(checkSessionData(data, loadOptions), options.store, loadOptions)
}

function sessionFromData(data: SessionData, backend: SessionStore, loadOptions?: SessionLoadOptions): Session {
  const id = data.id
  const store = withLeases(backend)
  // A built-in store refuses a record nested past `MAX_RECORD_DEPTH` itself; a custom one is not handed one, since its loads are checked for it.
  const checkDepth = !loadsAreChecked(backend)
  const turns: SessionTurn[] = [...data.turns]
  const runs: SessionRun[] = [...data.runs]
  let skipped: readonly SkippedSessionRecord[] = data.skipped ?? []
  // Writes go to the store one after another, so the store sees them in the
  // order the agent made them even when a caller does not await each one.
  let writes: Promise<unknown> = Promise.resolve()
  const enqueue = <T>(write: () => Promise<T>): Promise<T> => {
    const next = writes.then(write)
    writes = next.catch(() => {})
    return next
  }

  // The lease: one owner id per handle; `held` while it holds the lease, `lost` once a renewal or a write found it gone.
  const owner = globalThis.crypto.randomUUID()
  let held: SessionLease | undefined
  let lost: SessionLeaseError | undefined
  let ttlMs = DEFAULT_LEASE_TTL_MS

  const loseLease = (error: SessionLeaseError): SessionLeaseError => {
    held = undefined
    lost = error
    return error
  }
  /** Who a write is made as; throws once the lease is lost, or has run out without a renewal. */
  const writer = (): SessionWriteOptions | undefined => {
    if (lost)
      throw lost
    if (!held)
      return undefined
    if (Date.now() >= held.expiresAt)
      throw loseLease(new SessionLeaseError(id, 'lost', { owner }))
    return { owner }
  }
  /** Run a write as the lease holder; a refusal by the lease marks it lost. */
  const asWriter = async (write: (options: SessionWriteOptions | undefined) => Promise<void>): Promise<void> => {
    const options = writer()
    try {
      await write(options)
    }
    catch (error) {
      if (error instanceof SessionLeaseError && options !== undefined)
        loseLease(error)
      throw error
    }
  }

  /** Another owner held the lease before: take the session as the store has it now. */
  async function reload(): Promise<void> {
    const fresh = await store.load(id, loadOptions)
    if (!fresh)
      throw new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
    const checked = checkSessionData(fresh, loadOptions)
    // Pushed one by one: spreading a long session into `push` would overflow the stack.
    turns.length = 0
    for (const turn of checked.turns) turns.push(turn)
    runs.length = 0
    for (const run of checked.runs) runs.push(run)
    skipped = checked.skipped ?? []
  }

  /** The run record as the handle keeps it: inserted, or replacing the one with its id. */
  function keepRun(run: SessionRun): void {
    const index = runs.findIndex(existing => existing.id === run.id)
    if (index === -1)
      runs.push(run)
    else
      runs[index] = run
  }

  function saveRun(run: SessionRun): Promise<void> {
    return enqueue(() => asWriter(async (options) => {
      assertLoadableRecords(id, { kind: 'run', records: [run] })
      if (checkDepth)
        assertWithinRecordDepth(id, { kind: 'run', records: [run] })
      await store.saveRun(id, run, options)
      keepRun(run)
    }))
  }

  const handle = withGetters<Session, 'skipped' | 'lease'>({
    id,
    createdAt: data.createdAt,
    metadata: data.metadata,
    turns,
    runs,
    store: backend,
    appendTurns(batch, run) {
      if (batch.length === 0)
        return run ? saveRun(run) : Promise.resolve()
      const copy = [...batch]
      return enqueue(() => asWriter(async (options) => {
        assertLoadableRecords(id, { kind: 'turn', records: copy })
        if (run)
          assertLoadableRecords(id, { kind: 'run', records: [run] })
        if (checkDepth) {
          assertWithinRecordDepth(id, { kind: 'turn', records: copy })
          if (run)
            assertWithinRecordDepth(id, { kind: 'run', records: [run] })
        }
        if (!run)
          await store.appendTurns(id, copy, options)
        else if (store.appendTurnsAndRun)
          await store.appendTurnsAndRun(id, copy, run, options)
        else
          await store.appendTurns(id, copy, options).then(() => store.saveRun(id, run, options))
        for (const turn of copy) turns.push(turn)
        if (run)
          keepRun(run)
      }))
    },
    saveRun,
    turnsOfRun: runId => turns.filter(turn => turn.runId === runId),
    async save() {
      await flushUnsavedWork(handle)
      // Queued after everything before it: it resolves once those writes have landed.
      await enqueue(async () => {})
    },
    acquireLease(options = {}) {
      const ttl = options.ttlMs ?? ttlMs
      return enqueue(async () => {
        const lease = await store.acquireLease(id, owner, ttl, thisProcess())
        held = lease
        lost = undefined
        ttlMs = ttl
        if (lease.previousOwner !== undefined) {
          try {
            await reload()
          }
          catch (error) {
            held = undefined
            await store.releaseLease(id, owner).catch(() => {})
            throw error
          }
        }
        return lease
      })
    },
    async renewLease() {
      if (!held)
        throw lost ?? new SessionLeaseError(id, 'lost', { owner })
      try {
        held = await store.renewLease(id, owner, ttlMs)
        return held
      }
      catch (error) {
        if (error instanceof SessionLeaseError)
          loseLease(error)
        throw error
      }
    },
    releaseLease() {
      return enqueue(async () => {
        lost = undefined
        if (!held)
          return
        held = undefined
        await store.releaseLease(id, owner)
      })
    },
  }, { skipped: () => skipped, lease: () => held })
  return handle
}
