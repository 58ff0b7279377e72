import type { SessionTurn } from '../../core/content'
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions } from '../types'
import { SessionStoreError } from '../../errors'
import { SESSION_FORMAT_VERSION } from '../types'
import { checkSessionData, checksItsLoads } from './corrupt-records'
import { createLeaseTable } from './lease'
import { jsonCopy, upsertRun } from './records'
import { assertSessionId, sessionIdFor } from './session-id'
import { writableJson } from './writable-json'

interface MemorySession {
  data: SessionData
  runPositions: Map<string, number>
}

/**
 * A store that keeps sessions in this process only. Everything going in and
 * coming out is copied through JSON, so callers can never mutate what is
 * stored and the store behaves like a persistent one (an `undefined` field
 * disappears, a value JSON cannot hold is rejected). Good for tests and for
 * runs that need no history after the process exits. Leases live in the
 * same process; a lease expires by time only. Like every store, it refuses
 * to store a record its load would refuse for its depth (`writable-json.ts`).
 */
export function createMemoryStore(): SessionStore {
  const sessions = new Map<string, MemorySession>()
  const leases = createLeaseTable()

  const existing = (id: string): MemorySession => {
    assertSessionId(id)
    const session = sessions.get(id)
    if (!session)
      throw new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
    return session
  }

  return checksItsLoads({
    async create(record: CreateSessionRecord) {
      const id = sessionIdFor(record.id)
      if (sessions.has(id))
        throw new SessionStoreError(`Session "${id}" already exists`, 'exists', { sessionId: id })
      const data: SessionData = {
        version: SESSION_FORMAT_VERSION,
        id,
        createdAt: record.createdAt,
        updatedAt: Date.now(),
        ...(record.metadata === undefined ? {} : { metadata: storedCopy(id, record.metadata, 'metadata') }),
        turns: [],
        runs: [],
      }
      sessions.set(id, { data, runPositions: new Map() })
      return jsonCopy(data)
    },

    async load(id: string, options?: SessionLoadOptions) {
      assertSessionId(id)
      const session = sessions.get(id)
      // Nothing checks what callers append, so a broken turn is caught here, like any store's.
      return session && checkSessionData(jsonCopy(session.data), options)
    },

    async appendTurns(id: string, turns: readonly SessionTurn[], write?: SessionWriteOptions) {
      const session = existing(id)
      leases.check(id, write?.owner)
      const copies = JSON.parse(writableJson(id, turns, { kind: 'turn', records: turns, levelsAbove: 1 })) as SessionTurn[]
      if (copies.length === 0)
        return
      for (const turn of copies)
        session.data.turns.push(turn)
      session.data.updatedAt = Date.now()
    },

    async saveRun(id: string, run: SessionRun, write?: SessionWriteOptions) {
      const session = existing(id)
      leases.check(id, write?.owner)
      upsertRun(session.data.runs, session.runPositions, storedCopy(id, run, 'run'))
      session.data.updatedAt = Date.now()
    },

    async acquireLease(id, owner, ttlMs, origin) {
      existing(id)
      return leases.acquire(id, owner, ttlMs, origin)
    },

    async renewLease(id, owner, ttlMs) {
      existing(id)
      return leases.renew(id, owner, ttlMs)
    },

    async releaseLease(id, owner) {
      assertSessionId(id)
      leases.release(id, owner)
    },

    async delete(id: string) {
      assertSessionId(id)
      sessions.delete(id)
      leases.forget(id)
    },

    async list() {
      return [...sessions.keys()]
    },
  })
}

/** A record copied through JSON as a persistent store would write it, refused when a load would refuse it for its depth. */
function storedCopy<T>(id: string, record: T, kind: 'run' | 'metadata'): T {
  return JSON.parse(writableJson(id, record, { kind, records: [record], levelsAbove: 0 })) as T
}
