/**
 * The fallback for stores with no lease methods of their own (third-party
 * stores written before leases existed): leases kept in this process, in one
 * table per store object, with every write checked against it before it
 * reaches the store. That stops two runs of one process (or two clients of
 * one `createSessionStoreHandler`) from writing one session at once; it
 * cannot see writers in other processes.
 */

import type { SessionTurn } from '../../core/content'
import type { SessionRun, SessionStore, SessionWriteOptions } from '../types'
import type { LeaseTable } from './lease'
import { createLeaseTable } from './lease'

const tables = new WeakMap<SessionStore, LeaseTable>()

/** Whether a store keeps leases itself. */
export function hasOwnLeases(store: SessionStore): boolean {
  return typeof store.acquireLease === 'function' && typeof store.renewLease === 'function' && typeof store.releaseLease === 'function'
}

/** `store` itself when it keeps leases; otherwise a view of it whose leases live in this process. */
export function withLeases(store: SessionStore): Required<Pick<SessionStore, 'acquireLease' | 'renewLease' | 'releaseLease'>> & SessionStore {
  if (hasOwnLeases(store))
    return store as Required<Pick<SessionStore, 'acquireLease' | 'renewLease' | 'releaseLease'>> & SessionStore
  let table = tables.get(store)
  if (!table) {
    table = createLeaseTable()
    tables.set(store, table)
  }
  const leases = table
  return {
    create: record => store.create(record),
    load: (id, options) => store.load(id, options),
    list: () => store.list(),
    ...(store.close ? { close: () => store.close!() } : {}),
    ...(store.localPath === undefined ? {} : { localPath: store.localPath }),
    async appendTurns(id, turns, write) {
      leases.check(id, write?.owner)
      await store.appendTurns(id, turns)
    },
    async saveRun(id, run, write) {
      leases.check(id, write?.owner)
      await store.saveRun(id, run)
    },
    ...(store.appendTurnsAndRun
      ? {
          async appendTurnsAndRun(id: string, turns: readonly SessionTurn[], run: SessionRun, write?: SessionWriteOptions) {
            leases.check(id, write?.owner)
            await store.appendTurnsAndRun!(id, turns, run)
          },
        }
      : {}),
    async acquireLease(id, owner, ttlMs, origin) {
      return leases.acquire(id, owner, ttlMs, origin)
    },
    async renewLease(id, owner, ttlMs) {
      return leases.renew(id, owner, ttlMs)
    },
    async releaseLease(id, owner) {
      leases.release(id, owner)
    },
    async delete(id) {
      await store.delete(id)
      leases.forget(id)
    },
  }
}
