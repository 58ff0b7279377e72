/**
 * A record a load would refuse for its depth (`MAX_RECORD_DEPTH`, 1,000
 * levels of objects and arrays) is refused when it is written, by every
 * built-in store: the file store, SQLite, memory and the remote store. Before,
 * a value nested 1,000 to 4,000 levels deep (a tool result's metadata, a run
 * origin, session metadata, a custom turn field), which `JSON.stringify`
 * still writes, was stored, and the next load refused the whole session or
 * lost the record with its line. Deeper still, the write failed with an
 * untyped stack overflow. Now the write fails with `SessionStoreError` code
 * `corrupt` naming the record and the limit, nothing of it is stored, and
 * the run that made it ends with that error, its record saying why.
 */

import type { SessionTurn } from '../../src/core/content'
import type { SessionData, SessionRun, SessionStore } from '../../src/session/types'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { SessionStoreError } from '../../src/errors'
import { createFileStore, createMemoryStore, createRemoteStore, createSession, createSessionStoreHandler, loadSession } from '../../src/session'
import { createSqliteStore } from '../../src/session/sqlite'
import { scriptedProvider } from '../../src/testing'
import { closeLoopbackServers, serveOnLoopback } from './loopback-server'
import { run, userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('record-depth-on-write')

const hasSqlite = (() => {
  try {
    createRequire(import.meta.url)('better-sqlite3')
    return true
  }
  catch {
    return false
  }
})()

/** `levels` arrays one inside another around a string: a value `levels` deep. Built without recursion. */
function nest(levels: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

/** A user turn with a custom field, the turn as a whole nesting exactly `depth` levels (the turn is level 1). */
function turnOfDepth(id: string, depth: number): SessionTurn {
  return { ...userTurn(id, id), custom: nest(depth - 1) } as SessionTurn
}

/** A run record nesting exactly `depth` levels: the record, its origin, then the arrays. */
function runOfDepth(id: string, depth: number): SessionRun {
  return run(id, { origin: { trace: nest(depth - 2) } })
}

/** Session metadata nesting exactly `depth` levels. */
const metadataOfDepth = (depth: number) => ({ trace: nest(depth - 1) })

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

afterEach(closeLoopbackServers)

const serve = serveOnLoopback

interface StoreCase {
  name: string
  skip?: boolean
  make: () => Promise<{ store: SessionStore, requests?: () => number }>
}

const STORES: StoreCase[] = [
  { name: 'file', make: async () => ({ store: createFileStore({ dir: freshDir() }) }) },
  { name: 'sqlite', skip: !hasSqlite, make: async () => ({ store: createSqliteStore({ path: join(freshDir(), 'sessions.db') }) }) },
  { name: 'memory', make: async () => ({ store: createMemoryStore() }) },
  {
    name: 'remote (file-backed server)',
    make: async () => {
      const handler = createSessionStoreHandler(createFileStore({ dir: freshDir() }))
      let requests = 0
      const server = await serve((req, res) => {
        requests++
        handler(req, res)
      })
      return { store: createRemoteStore({ url: server.url, retries: 3, retryDelayMs: 1 }), requests: () => requests }
    },
  },
]

const TOO_DEEP = 'is nested more than 1,000 levels deep'

describe.each(STORES)('$name store: a record is written only if a load reads it back', ({ make, skip }) => {
  it.skipIf(skip)('a turn, a run and metadata exactly 1,000 levels deep are written and load back', async () => {
    const { store } = await make()
    await store.create({ id: 'edge', createdAt: 1, metadata: metadataOfDepth(1000) })
    await store.appendTurns('edge', [userTurn('t1', 'one'), turnOfDepth('t2', 1000)])
    await store.saveRun('edge', runOfDepth('r1', 1000))
    const loaded = (await store.load('edge'))!
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    expect(loaded.runs.map(record => record.id)).toEqual(['r1'])
    expect(loaded.metadata).toEqual(metadataOfDepth(1000))
    expect(loaded.skipped).toBeUndefined()
  })

  it.skipIf(skip)('one level more: the write is refused with corrupt naming the record and the limit, and nothing of it is stored', async () => {
    const { store, requests } = await make()
    await store.create({ id: 's1', createdAt: 1 })
    await store.appendTurns('s1', [userTurn('t1', 'one')])
    const sent = requests?.()

    const turns = await rejection(store.appendTurns('s1', [userTurn('t2', 'two'), turnOfDepth('t3', 1001)]))
    expect(turns).toMatchObject({ code: 'corrupt', sessionId: 's1', record: { index: 1, problem: TOO_DEEP } })
    expect(turns.message).toContain('turn 1 of the write ("t3")')
    expect(turns.message).toContain('1,000 levels')

    const runError = await rejection(store.saveRun('s1', runOfDepth('r1', 1001)))
    expect(runError).toMatchObject({ code: 'corrupt', sessionId: 's1', record: { problem: TOO_DEEP } })
    expect(runError.message).toContain('run "r1"')

    const created = await rejection(store.create({ id: 's2', createdAt: 1, metadata: metadataOfDepth(1001) }))
    expect(created).toMatchObject({ code: 'corrupt', sessionId: 's2', record: { problem: `has metadata that ${TOO_DEEP}` } })

    // The remote store refuses before it sends anything.
    if (requests)
      expect(requests()).toBe(sent)
    const loaded = (await store.load('s1'))!
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t1'])
    expect(loaded.runs).toEqual([])
    expect(await store.list()).toEqual(['s1'])
  })

  it.skipIf(skip)('a turn nested 100,000 levels deep (past what JSON.stringify can write): the same typed refusal, never a stack overflow', async () => {
    const { store } = await make()
    await store.create({ id: 's1', createdAt: 1 })
    const error = await rejection(store.appendTurns('s1', [turnOfDepth('t1', 100_000)]))
    expect(error).toMatchObject({ code: 'corrupt', record: { index: 0, problem: TOO_DEEP } })
    expect((await rejection(store.saveRun('s1', runOfDepth('r1', 100_000)))).code).toBe('corrupt')
    expect((await store.load('s1'))!.turns).toEqual([])
  })

  it.skipIf(skip)('the depth is that of the JSON written: a toJSON that flattens a cyclic value passes, one that returns a deep value does not', async () => {
    const { store } = await make()
    const cyclic: Record<string, unknown> = { toJSON: () => 'flattened' }
    cyclic.self = cyclic
    await store.create({ id: 's1', createdAt: 1, metadata: { value: cyclic } })
    const shallow = { toJSON: () => nest(2000) }
    await store.appendTurns('s1', [{ ...userTurn('t1', 'one'), value: cyclic } as SessionTurn])
    expect((await rejection(store.appendTurns('s1', [{ ...userTurn('t2', 'two'), value: shallow } as SessionTurn]))).record)
      .toEqual({ index: 0, problem: TOO_DEEP })
    const loaded = (await store.load('s1'))!
    expect(loaded.metadata).toEqual({ value: 'flattened' })
    expect(loaded.turns).toEqual([{ ...userTurn('t1', 'one'), value: 'flattened' }])
  })
})

describe.each(STORES)('$name store: a run never saves what its session cannot load', ({ make, skip }) => {
  const probe = tool({ name: 'probe', description: 'Probe', input: z.object({}), execute: () => 'probed' })

  it.skipIf(skip)('a tool result whose metadata nests 2,000 levels: the loop drops it with a note, the run completes and the session loads', async () => {
    const { store } = await make()
    const session = await createSession({ id: 'chat', store })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'done' }])
    const agent = createAgent({
      provider,
      session,
      tools: { probe },
      hooks: { 'tool:transform': (ctx) => {
        ctx.metadata.report = nest(2000)
      } },
    })
    // The store would refuse such a turn (the tests above); the loop never hands it one.
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const loaded = await loadSession('chat', { store })
    expect(loaded.skipped).toEqual([])
    expect(loaded.turns.map(turn => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    const result = loaded.turns[2].content[0]
    expect(result).toMatchObject({ type: 'tool_result', output: 'probed' })
    expect(Object.keys((result as { metadata?: object }).metadata ?? {})).toEqual(['__droppedMetadata'])
  })

  it.skipIf(skip)('a run origin nested 2,000 levels: the run fails with corrupt before the model is called, and the session still loads', async () => {
    const { store } = await make()
    const session = await createSession({ id: 'chat', store })
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({ provider, session })
    const error = await rejection(agent.run({ prompt: 'go', runOrigin: { trace: nest(2000) } }))
    expect(error).toMatchObject({ code: 'corrupt', record: { problem: TOO_DEEP } })
    expect(provider.requests).toHaveLength(0)
    const loaded = await loadSession('chat', { store })
    expect(loaded.skipped).toEqual([])
  })

  it.skipIf(skip)('session metadata nested 2,000 levels: createSession fails with corrupt and creates nothing', async () => {
    const { store } = await make()
    const error = await rejection(createSession({ id: 'chat', store, metadata: { trace: nest(2000) } }))
    expect(error).toMatchObject({ code: 'corrupt', record: { problem: `has metadata that ${TOO_DEEP}` } })
    expect(await store.list()).toEqual([])
  })
})

describe('a custom store: the session handle applies the rule before handing it a record', () => {
  /** A host's store: it keeps what it is given as it is (no JSON), and checks nothing; `loadSession` checks its loads. */
  function customStore() {
    const sessions = new Map<string, SessionData>()
    const store: SessionStore = {
      create: async (record) => {
        const data: SessionData = { version: 1, id: record.id ?? 'minted', createdAt: record.createdAt, updatedAt: 1, turns: [], runs: [], ...(record.metadata ? { metadata: record.metadata } : {}) }
        sessions.set(data.id, data)
        return data
      },
      load: async id => sessions.get(id),
      appendTurns: async (id, turns) => {
        sessions.get(id)!.turns.push(...turns)
      },
      saveRun: async (id, record) => {
        const runs = sessions.get(id)!.runs
        const at = runs.findIndex(existing => existing.id === record.id)
        if (at === -1)
          runs.push(record)
        else
          runs[at] = record
      },
      delete: async (id) => {
        sessions.delete(id)
      },
      list: async () => [...sessions.keys()],
    }
    return { store, sessions }
  }
  const probe = tool({ name: 'probe', description: 'Probe', input: z.object({}), execute: () => 'probed' })

  it('a tool result whose metadata nests 2,000 levels: the loop drops it with a note before the store sees it, and the session loads', async () => {
    const { store, sessions } = customStore()
    const session = await createSession({ id: 'chat', store })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, session, tools: { probe }, hooks: { 'tool:transform': (ctx) => {
      ctx.metadata.report = nest(2000)
    } } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const stored = sessions.get('chat')!.turns[2].content[0] as { metadata?: object }
    expect(Object.keys(stored.metadata ?? {})).toEqual(['__droppedMetadata'])
    const loaded = await loadSession('chat', { store })
    expect(loaded.skipped).toEqual([])
    expect(loaded.runs[0]).toMatchObject({ status: 'completed' })
  })

  it('session metadata or a run record nested too deep is refused the same way; 1,000 levels pass', async () => {
    const { store } = customStore()
    expect((await rejection(createSession({ id: 'deep', store, metadata: metadataOfDepth(1001) }))).code).toBe('corrupt')
    expect(await store.list()).toEqual([])
    const session = await createSession({ id: 'chat', store, metadata: metadataOfDepth(1000) })
    await session.appendTurns([turnOfDepth('t1', 1000)], runOfDepth('r1', 1000))
    expect((await rejection(session.saveRun(runOfDepth('r2', 1001)))).record).toEqual({ problem: TOO_DEEP })
    expect((await rejection(session.appendTurns([userTurn('t2', 'two')], runOfDepth('r3', 1001)))).record).toEqual({ problem: TOO_DEEP })
    const loaded = await loadSession('chat', { store })
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t1'])
    expect(loaded.runs.map(record => record.id)).toEqual(['r1'])
  })
})

describe('file store: a turn and its run record written together', () => {
  it('a run record too deep refuses the write whole: its turns are not stored without it', async () => {
    const store = createFileStore({ dir: freshDir() })
    await store.create({ id: 's1', createdAt: 1 })
    const error = await rejection(store.appendTurnsAndRun!('s1', [userTurn('t1', 'one')], runOfDepth('r1', 1001)))
    expect(error).toMatchObject({ code: 'corrupt', record: { problem: TOO_DEEP } })
    expect(await store.load('s1')).toMatchObject({ turns: [], runs: [] })
  })
})
