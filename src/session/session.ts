import type { AgentClock } from '../core/clock'
import type { SessionTurn } from '../core/content'
import type { SessionData, SessionLoadOptions, SessionRun, SessionStore, SkippedSessionRecord } from './types'
import { DEFAULT_AGENT_CLOCK } from '../core/clock'
import { SessionStoreError } from '../errors'
import { checkSessionData } from './stores/corrupt-records'
import { createMemoryStore } from './stores/memory'

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
  /** Append turns to the session and its store (all or nothing in the store). */
  appendTurns: (turns: readonly SessionTurn[]) => Promise<void>
  /** Record a run, or update the record with the same id. */
  saveRun: (run: SessionRun) => Promise<void>
  /** The turns a run produced, in order. */
  turnsOfRun: (runId: string) => SessionTurn[]
  /** Broken records an `onCorrupt: 'skip'` load left out (still in the store, unchanged); empty otherwise. */
  readonly skipped: readonly SkippedSessionRecord[]
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
  return sessionFromData(checkSessionData(data, loadOptions), options.store)
}

function sessionFromData(data: SessionData, store: SessionStore): Session {
  const turns: SessionTurn[] = [...data.turns]
  const runs: SessionRun[] = [...data.runs]
  // Writes go to the store one after another, so the store sees them in the
  // order the agent made them even when a caller does not await each one.
  let writes: Promise<void> = Promise.resolve()
  const enqueue = (write: () => Promise<void>): Promise<void> => {
    const next = writes.then(write)
    writes = next.catch(() => {})
    return next
  }

  return {
    id: data.id,
    createdAt: data.createdAt,
    metadata: data.metadata,
    turns,
    runs,
    store,
    appendTurns(batch) {
      if (batch.length === 0)
        return Promise.resolve()
      const copy = [...batch]
      return enqueue(async () => {
        await store.appendTurns(data.id, copy)
        turns.push(...copy)
      })
    },
    saveRun(run) {
      return enqueue(async () => {
        await store.saveRun(data.id, run)
        const index = runs.findIndex(existing => existing.id === run.id)
        if (index === -1)
          runs.push(run)
        else
          runs[index] = run
      })
    },
    turnsOfRun: runId => turns.filter(turn => turn.runId === runId),
    skipped: data.skipped ?? [],
  }
}
