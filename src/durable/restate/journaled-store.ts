/**
 * The session store as one Restate invocation sees it. A replay must start
 * from the session as the first attempt found it, even though that attempt
 * may have written turns before its worker died. So the session's head at
 * the start (turn count, run ids, the last run's record) is journaled, a
 * load is cut back to it, and every write is a journaled step: a replay
 * does not write again what the journal says was written.
 *
 * No lease methods: the virtual object's key is the session's single
 * writer, and a store lease left behind by a killed worker would lock the
 * replay out until it expired.
 */
import type { SessionTurn } from '../../core/content'
import type { SessionData, SessionRun, SessionStore } from '../../session/types'
import type { DurableRuntime } from '../types'
import { mergeObjects } from '../../core/merge-objects'

/** What the journal keeps of the session when an invocation starts. */
export interface SessionHead {
  turns: number
  runs: string[]
  /** The last run's record as it was (a resumed run replaces it later). */
  lastRun?: SessionRun
}

export interface JournaledStore {
  store: SessionStore
  head: SessionHead
}

/** Open (or create) the session through a journaled step, and return a store view pinned to that head. */
export async function openJournaledStore(backend: SessionStore, sessionId: string, runtime: DurableRuntime): Promise<JournaledStore> {
  const head = await runtime.step<SessionHead>('session:open', async () => {
    const data = await backend.load(sessionId) ?? await backend.create({ id: sessionId, createdAt: Date.now() })
    const lastRun = data.runs.at(-1)
    return { turns: data.turns.length, runs: data.runs.map(run => run.id), ...(lastRun ? { lastRun } : {}) }
  })
  let writes = 0
  let checkedStored = false
  /** Turns of `turns` the store does not hold yet: only the first live write of an attempt can find some there (a write done just before a crash, not yet journaled). */
  const unstored = async (id: string, turns: readonly SessionTurn[]): Promise<readonly SessionTurn[]> => {
    if (checkedStored)
      return turns
    checkedStored = true
    const data = await backend.load(id)
    const stored = new Set(data?.turns.map(turn => turn.id))
    return turns.filter(turn => !stored.has(turn.id))
  }
  const write = (what: string, fn: () => Promise<void>) => runtime.step(`session:${what}:${++writes}`, async () => {
    await fn()
    return null
  }).then(() => undefined)

  const store: SessionStore = {
    ...(backend.localPath === undefined ? {} : { localPath: backend.localPath }),
    create: record => backend.create(record),
    async load(id, options) {
      const data = await backend.load(id, options)
      return data && id === sessionId ? pinned(data, head) : data
    },
    appendTurns: (id, turns) => write('append', async () => {
      const fresh = await unstored(id, turns)
      if (fresh.length > 0)
        await backend.appendTurns(id, fresh)
    }),
    saveRun: (id, run) => write('run', () => backend.saveRun(id, run)),
    appendTurnsAndRun: (id, turns, run) => write('append-run', async () => {
      const fresh = await unstored(id, turns)
      if (backend.appendTurnsAndRun) {
        await backend.appendTurnsAndRun(id, fresh, run)
      }
      else {
        if (fresh.length > 0)
          await backend.appendTurns(id, fresh)
        await backend.saveRun(id, run)
      }
    }),
    delete: id => backend.delete(id),
    list: () => backend.list(),
  }
  return { store, head }
}

/** The session as the head says it was: later turns and runs left out, the last run as it was recorded. */
function pinned(data: SessionData, head: SessionHead): SessionData {
  const runIds = new Set(head.runs)
  const runs = data.runs.filter(run => runIds.has(run.id)).map(run => run.id === head.lastRun?.id ? head.lastRun : run)
  return mergeObjects(data, { turns: data.turns.slice(0, head.turns), runs })
}
