/**
 * `createSessionStoreHandler` in front of a custom (host-supplied) store:
 * what that store's `load` returns is checked on the server as every
 * built-in store checks its own records, so a broken record reaches a client
 * as a `corrupt` answer naming its place and how to recover (and
 * `?onCorrupt=skip` leaves it out), never unchecked. Before, the server
 * passed it on as it came: a plain HTTP client got it with a 200, and a
 * record JSON cannot carry (nested past what `JSON.stringify` can write, or
 * cyclic) became a 500 `io` that `createRemoteStore` retried, skip or not, so
 * the session could not be opened at all.
 */

import type { SessionTurn } from '../../src/core/content'
import type { SessionData, SessionRun, SessionStore } from '../../src/session/types'
import type { LoopbackServer } from './loopback-server'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStoreError } from '../../src/errors'
import { createRemoteStore, createSessionStoreHandler, loadSession } from '../../src/session'
import { closeLoopbackServers, serveOnLoopback } from './loopback-server'
import { run, userTurn } from './sample-turns'

const TOO_DEEP = 'is nested more than 1,000 levels deep'

/** `levels` arrays one inside another: built without recursion. */
function nest(levels: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

/**
 * A custom store as a host might write one: it keeps what it is given as it
 * is, in this process, and its `load` checks nothing and ignores `onCorrupt`.
 * `data` is its own object, handed out on each load.
 */
function customStore(data: SessionData): SessionStore {
  return {
    create: async () => data,
    load: async id => id === data.id ? data : undefined,
    appendTurns: async (_, turns) => {
      for (const turn of turns) data.turns.push(turn)
    },
    saveRun: async (_, record) => {
      data.runs.push(record)
    },
    delete: async () => {},
    list: async () => [data.id],
  }
}

function session(turns: unknown[], runs: unknown[] = []): SessionData {
  return { version: 1, id: 's1', createdAt: 1, updatedAt: 1, turns: turns as SessionTurn[], runs: runs as SessionRun[] }
}

interface TestServer extends LoopbackServer {
  /** Requests that reached the handler. */
  requests: () => number
}

afterEach(closeLoopbackServers)

async function serve(backend: SessionStore): Promise<TestServer> {
  const handler = createSessionStoreHandler(backend)
  let requests = 0
  const server = await serveOnLoopback((req, res) => {
    requests++
    handler(req, res)
  })
  return Object.assign(server, { requests: () => requests })
}

async function get(server: TestServer, path: string) {
  const response = await fetch(`${server.url}${path}`)
  return { status: response.status, body: await response.json() as Record<string, any> }
}

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

describe('session store handler over a custom store: loads are checked', () => {
  it('a broken turn: a plain HTTP client gets 500 corrupt with its place and how to recover, and ?onCorrupt=skip leaves it out', async () => {
    const data = session([userTurn('t1', 'one'), { id: 't2', role: 'user', createdAt: 2 }, userTurn('t3', 'three')])
    const server = await serve(customStore(data))

    const strict = await get(server, '/sessions/s1')
    expect(strict.status).toBe(500)
    expect(strict.body.error).toMatchObject({ code: 'corrupt', record: { index: 1, problem: 'has no content' } })
    expect(strict.body.error.message).toContain('turn 1 has no content')
    expect(strict.body.error.message).toContain('onCorrupt: \'skip\'')

    const skipped = await get(server, '/sessions/s1?onCorrupt=skip')
    expect(skipped.status).toBe(200)
    expect(skipped.body.turns.map((turn: SessionTurn) => turn.id)).toEqual(['t1', 't3'])
    expect(skipped.body.skipped).toEqual([{ kind: 'turn', index: 1, problem: 'has no content', raw: '{"id":"t2","role":"user","createdAt":2}' }])
    // The store's own object is left as it was.
    expect(data.turns).toHaveLength(3)
    expect(data.skipped).toBeUndefined()
  })

  it('a turn nested 5,000 levels (past what JSON.stringify can write): corrupt with its index, not retried, and a skip opens the session', async () => {
    const deep = { ...userTurn('t2', 'two'), custom: nest(5000) }
    const server = await serve(customStore(session([userTurn('t1', 'one'), deep, userTurn('t3', 'three')])))
    const store = createRemoteStore({ url: server.url, retries: 3, retryDelayMs: 1 })

    const error = await rejection(store.load('s1'))
    expect(error).toMatchObject({ code: 'corrupt', sessionId: 's1', record: { index: 1, problem: TOO_DEEP } })
    expect(error.message).toContain('onCorrupt')
    // Before: 500 io (the stack overflowed serializing the answer), retried three times.
    expect(server.requests()).toBe(1)

    const opened = await loadSession('s1', { store, onCorrupt: 'skip' })
    expect(opened.turns.map(turn => turn.id)).toEqual(['t1', 't3'])
    expect(opened.skipped).toMatchObject([{ kind: 'turn', index: 1, problem: TOO_DEEP, raw: expect.stringContaining('not serializable') }])
  })

  it('a turn nested 2,000 levels (JSON.stringify still writes it): the server refuses it, not only the client', async () => {
    const server = await serve(customStore(session([userTurn('t1', 'one'), { ...userTurn('t2', 'two'), custom: nest(2000) }])))
    const strict = await get(server, '/sessions/s1')
    expect(strict.status).toBe(500)
    expect(strict.body.error).toMatchObject({ code: 'corrupt', record: { index: 1, problem: TOO_DEEP } })
    const skipped = await get(server, '/sessions/s1?onCorrupt=skip')
    expect(skipped.body.turns.map((turn: SessionTurn) => turn.id)).toEqual(['t1'])
    expect(skipped.body.skipped).toMatchObject([{ kind: 'turn', index: 1, problem: TOO_DEEP }])
  })

  it('a cyclic run record: corrupt with its index (a cycle reads as too deep), not a retried io; a skip keeps the other runs', async () => {
    const cyclic = run('r2') as SessionRun & { self?: unknown }
    cyclic.self = cyclic
    const server = await serve(customStore(session([userTurn('t1', 'one')], [run('r1'), cyclic])))
    const store = createRemoteStore({ url: server.url, retries: 3, retryDelayMs: 1 })
    expect(await rejection(store.load('s1'))).toMatchObject({ code: 'corrupt', record: { index: 1, problem: TOO_DEEP } })
    expect(server.requests()).toBe(1)
    const opened = await loadSession('s1', { store, onCorrupt: 'skip' })
    expect(opened.runs.map(record => record.id)).toEqual(['r1'])
    expect(opened.skipped).toMatchObject([{ kind: 'run', index: 1, raw: expect.stringContaining('circular') }])
  })

  it('a session without turns and runs arrays: corrupt saying so, instead of a body the client cannot read', async () => {
    const server = await serve(customStore({ ...session([]), turns: {} as never }))
    const answer = await get(server, '/sessions/s1')
    expect(answer.status).toBe(500)
    expect(answer.body.error).toMatchObject({ code: 'corrupt', record: { problem: 'has no turns and runs arrays' } })
    const store = createRemoteStore({ url: server.url, retries: 0 })
    expect((await rejection(store.load('s1'))).code).toBe('corrupt')
  })

  it('metadata nested too deep is left out alone on a skip; a sound session comes through unchanged', async () => {
    const data = { ...session([userTurn('t1', 'one')], [run('r1')]), metadata: { trace: nest(2000) } }
    const server = await serve(customStore(data))
    expect((await get(server, '/sessions/s1')).body.error).toMatchObject({ code: 'corrupt', record: { problem: `has metadata that ${TOO_DEEP}` } })
    const skipped = await get(server, '/sessions/s1?onCorrupt=skip')
    expect(skipped.body).not.toHaveProperty('metadata')
    expect(skipped.body.skipped).toMatchObject([{ kind: 'metadata', problem: `has metadata that ${TOO_DEEP}` }])

    const sound = session([userTurn('t1', 'one')], [run('r1')])
    const other = await serve(customStore(sound))
    expect(await get(other, '/sessions/s1')).toEqual({ status: 200, body: JSON.parse(JSON.stringify(sound)) })
  })
})
