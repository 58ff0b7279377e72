import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { SessionTurn } from '../../src/core/content'
import type { SessionStore } from '../../src/session/types'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionLeaseError, SessionStoreError } from '../../src/errors'
import { createFileStore, createMemoryStore, createRemoteStore, createSessionStoreHandler } from '../../src/session/stores'
import { closeLoopbackServers, serveOnLoopback } from './loopback-server'
import { run, userTurn } from './sample-turns'
import { describeStoreConformance } from './store-conformance'

afterEach(closeLoopbackServers)

const serve = serveOnLoopback

/** Every request the server saw: method, path and idempotency key. */
type Seen = { method: string, path: string, key?: string, authorization?: string }[]

function recording(listener: RequestListener, seen: Seen): RequestListener {
  return (req, res) => {
    seen.push({ method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string | undefined, authorization: req.headers.authorization })
    listener(req, res)
  }
}

/** Let the handler do its work, then cut the connection instead of answering: a response lost on the way. */
function dropResponse(req: IncomingMessage, res: ServerResponse, handler: RequestListener): void {
  res.writeHead = (() => {
    req.socket.destroy()
    return res
  }) as typeof res.writeHead
  handler(req, res)
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return (error as SessionStoreError).code
}

const fast = { retries: 3, retryDelayMs: 1 }

describeStoreConformance('remote (over node:http, memory-backed)', async () => {
  const backend = createMemoryStore()
  const server = await serve(createSessionStoreHandler(backend))
  // The protocol refuses non-object turns, so broken records go into the backing store directly.
  const tamper = { turn: (id: string, json: string) => backend.appendTurns(id, [JSON.parse(json) as SessionTurn]) }
  return { store: createRemoteStore({ url: server.url, ...fast }), tamper }
})

describe('remote store', () => {
  it('retries an append whose response was lost without storing its turns twice', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const handler = createSessionStoreHandler(backend)
    const seen: Seen = []
    let dropped = false
    const server = await serve(recording((req, res) => {
      if (req.url?.endsWith('/turns') && !dropped) {
        dropped = true
        dropResponse(req, res, handler)
      }
      else {
        handler(req, res)
      }
    }, seen))
    const store = createRemoteStore({ url: server.url, ...fast })
    await store.appendTurns('s1', [userTurn('t1', 'once'), userTurn('t2', 'only once')])
    const appends = seen.filter(request => request.path.endsWith('/turns'))
    expect(appends).toHaveLength(2)
    expect(appends[1].key).toBe(appends[0].key)
    expect(appends[0].key).toMatch(/^[\da-f-]{36}$/)
    expect((await backend.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
  })

  it('stores the turns twice when the server keeps no idempotency keys (what the keys prevent)', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const handler = createSessionStoreHandler(backend, { idempotencyKeys: 0 })
    let dropped = false
    const server = await serve((req, res) => {
      if (req.url?.endsWith('/turns') && !dropped) {
        dropped = true
        dropResponse(req, res, handler)
      }
      else {
        handler(req, res)
      }
    })
    await createRemoteStore({ url: server.url, ...fast }).appendTurns('s1', [userTurn('t1', 'x')])
    expect((await backend.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't1'])
  })

  it('answers concurrent requests with the same key from one execution', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    const send = () => fetch(`${server.url}/sessions/s1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'same-key' },
      body: JSON.stringify({ turns: [userTurn('t1', 'x')] }),
    })
    const statuses = (await Promise.all([send(), send(), send()])).map(response => response.status)
    expect(statuses).toEqual([204, 204, 204])
    expect((await backend.load('s1'))?.turns).toHaveLength(1)
  })

  it('retries 503, 429 and a failing backend, then succeeds', async () => {
    const backend = createMemoryStore()
    const handler = createSessionStoreHandler(backend)
    const failures = [
      (res: ServerResponse) => res.writeHead(503).end(),
      (res: ServerResponse) => res.writeHead(429, { 'retry-after': '0' }).end(),
      (res: ServerResponse) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"io","message":"disk busy"}}'),
    ]
    const seen: Seen = []
    const server = await serve(recording((req, res) => {
      const fail = failures.shift()
      if (fail)
        fail(res)
      else
        handler(req, res)
    }, seen))
    const created = await createRemoteStore({ url: server.url, ...fast }).create({ id: 'eventually', createdAt: 1 })
    expect(created.id).toBe('eventually')
    expect(seen).toHaveLength(4)
    expect(new Set(seen.map(request => request.key)).size).toBe(1)
    expect(await backend.list()).toEqual(['eventually'])
  })

  it('gives up after its retries with an http error', async () => {
    const seen: Seen = []
    const server = await serve(recording((_req, res) => res.writeHead(503).end(), seen))
    expect(await codeOf(createRemoteStore({ url: server.url, retries: 2, retryDelayMs: 1 }).list())).toBe('http')
    expect(seen).toHaveLength(3)
  })

  it('does not retry a client error or corrupt data, and keeps the store error code', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 'taken', createdAt: 1 })
    const seen: Seen = []
    const server = await serve(recording(createSessionStoreHandler(backend), seen))
    const store = createRemoteStore({ url: server.url, ...fast })
    expect(await codeOf(store.create({ id: 'taken', createdAt: 2 }))).toBe('exists')
    expect(await codeOf(store.appendTurns('nobody', [userTurn('t1', 'x')]))).toBe('not_found')
    expect(seen).toHaveLength(2)

    const corruptSeen: Seen = []
    const corrupt = await serve(recording((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"corrupt","message":"bad line"}}')
    }, corruptSeen))
    expect(await codeOf(createRemoteStore({ url: corrupt.url, ...fast }).load('s1'))).toBe('corrupt')
    expect(corruptSeen).toHaveLength(1)
  })

  it('sends its headers with every request, calling a header function each time', async () => {
    let token = 0
    const seen: Seen = []
    const handler = createSessionStoreHandler(createMemoryStore(), {
      authorize: req => req.headers.authorization?.startsWith('Bearer token-') === true,
    })
    const server = await serve(recording(handler, seen))
    const store = createRemoteStore({ url: server.url, headers: () => ({ authorization: `Bearer token-${++token}` }) })
    await store.create({ id: 'authed', createdAt: 1 })
    await store.appendTurns('authed', [userTurn('t1', 'x')])
    expect(seen.map(request => request.authorization)).toEqual(['Bearer token-1', 'Bearer token-2'])

    const fixed = createRemoteStore({ url: server.url, headers: { authorization: 'Bearer token-static' } })
    expect(await fixed.list()).toEqual(['authed'])
  })

  it('is refused without credentials, with no retry', async () => {
    const seen: Seen = []
    const handler = createSessionStoreHandler(createMemoryStore(), { authorize: req => req.headers.authorization === 'Bearer secret' })
    const server = await serve(recording(handler, seen))
    const error = await createRemoteStore({ url: server.url, ...fast }).list().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(SessionStoreError)
    expect((error as SessionStoreError).code).toBe('http')
    expect((error as SessionStoreError).message).toContain('401')
    expect(seen).toHaveLength(1)
  })

  it('times out an attempt that gets no answer', async () => {
    const server = await serve(() => {})
    const store = createRemoteStore({ url: server.url, timeoutMs: 100, retries: 0 })
    const error = await store.load('s1').catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(SessionStoreError)
    expect((error as SessionStoreError).code).toBe('http')
    expect((error as SessionStoreError).message).toContain('timed out after 100 ms')
  })

  it('serves under a base path, and a wrong URL is an error rather than a missing session', async () => {
    const server = await serve(createSessionStoreHandler(createMemoryStore(), { basePath: '/api/zidane/' }))
    const store: SessionStore = createRemoteStore({ url: `${server.url}/api/zidane/` })
    await store.create({ id: 'based', createdAt: 1 })
    await store.saveRun('based', run('run_1'))
    expect((await store.load('based'))?.runs).toEqual([run('run_1')])
    expect(await codeOf(createRemoteStore({ url: `${server.url}/wrong` }).load('based'))).toBe('http')
  })
})

describe('session store handler', () => {
  async function request(method: string, path: string, body?: string) {
    const server = await serve(createSessionStoreHandler(createMemoryStore(), { maxBodyBytes: 1024 }))
    const response = await fetch(`${server.url}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } })
    return { status: response.status, body: await response.json().catch(() => undefined) as { error?: { code: string } } | undefined }
  }

  it('answers malformed requests with a protocol error code', async () => {
    expect(await request('POST', '/sessions', '{not json')).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await request('POST', '/sessions', '{"id":"x"}')).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await request('POST', '/sessions', JSON.stringify({ createdAt: 1, pad: 'x'.repeat(2000) }))).toMatchObject({ status: 413, body: { error: { code: 'too_large' } } })
    expect(await request('GET', '/elsewhere')).toMatchObject({ status: 404, body: { error: { code: 'no_route' } } })
    expect(await request('PATCH', '/sessions/x')).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } })
    expect(await request('GET', '/sessions/..%2Fescape')).toMatchObject({ status: 400, body: { error: { code: 'invalid_id' } } })
    expect(await request('GET', '/sessions/%E0%A4%A')).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
  })

  it('rejects a run whose id differs from the path', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    const response = await fetch(`${server.url}/sessions/s1/runs/run_1`, { method: 'PUT', body: JSON.stringify({ run: run('run_2') }) })
    expect(response.status).toBe(400)
    expect((await backend.load('s1'))?.runs).toEqual([])
  })
})

describe('remote store lease', () => {
  it('hands the server\'s store the client\'s process, so a dead holder on the server\'s host is taken over at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zidane-remote-lease-'))
    try {
      const server = await serve(createSessionStoreHandler(createFileStore({ dir })))
      const client = createRemoteStore({ url: server.url, ...fast })
      await client.create({ id: 's1', createdAt: 1 })
      const child = spawn(process.execPath, ['-e', ''])
      await new Promise(resolve => child.on('exit', resolve))
      await client.acquireLease!('s1', 'ghost', 60_000, { pid: child.pid!, hostname: hostname() })
      expect(await client.acquireLease!('s1', 'next', 60_000)).toMatchObject({ owner: 'next', previousOwner: 'ghost', pid: process.pid, hostname: hostname() })
      const refused = await client.acquireLease!('s1', 'third', 60_000).then(() => undefined, (error: unknown) => error)
      expect(refused).toBeInstanceOf(SessionLeaseError)
      expect(refused).toMatchObject({ sessionId: 's1', reason: 'held', owner: 'third', holder: { owner: 'next', pid: process.pid } })
    }
    finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('keeps leases on the server for a backing store that has none', async () => {
    const inner = createMemoryStore()
    const plain: SessionStore = {
      create: record => inner.create(record),
      load: (id, options) => inner.load(id, options),
      appendTurns: (id, turns) => inner.appendTurns(id, turns),
      saveRun: (id, record) => inner.saveRun(id, record),
      delete: id => inner.delete(id),
      list: () => inner.list(),
    }
    const server = await serve(createSessionStoreHandler(plain))
    const alpha = createRemoteStore({ url: server.url, ...fast })
    const beta = createRemoteStore({ url: server.url, ...fast })
    await alpha.create({ id: 's1', createdAt: 1 })
    await alpha.acquireLease!('s1', 'alpha', 60_000)
    await alpha.appendTurns('s1', [userTurn('t1', 'from alpha')], { owner: 'alpha' })
    await expect(beta.acquireLease!('s1', 'beta', 60_000)).rejects.toBeInstanceOf(SessionLeaseError)
    await expect(beta.appendTurns('s1', [userTurn('t2', 'from beta')])).rejects.toMatchObject({ name: 'SessionLeaseError', reason: 'held' })
    await alpha.releaseLease!('s1', 'alpha')
    await beta.acquireLease!('s1', 'beta', 60_000)
    await expect(alpha.appendTurns('s1', [userTurn('t3', 'late alpha')], { owner: 'alpha' })).rejects.toMatchObject({ name: 'SessionLeaseError', reason: 'lost' })
    expect((await inner.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1'])
  })

  it('answers malformed lease requests with bad_request', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: response.status, body: await response.json().catch(() => undefined) as { error?: { code: string } } | undefined }
    }
    expect(await send('POST', '/sessions/s1/lease', { owner: '', ttlMs: 1000 })).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await send('POST', '/sessions/s1/lease', { owner: 'a', ttlMs: -1 })).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await send('PUT', '/sessions/s1/lease', 'not an object')).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await send('POST', '/sessions/s1/turns', { turns: [], owner: 7 })).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } })
    expect(await send('GET', '/sessions/s1/lease')).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } })
    expect(await send('PUT', '/sessions/s1/lease/a')).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } })
  })
})
