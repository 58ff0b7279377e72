/**
 * The remote store's server (`createSessionStoreHandler`) and client against
 * hostile peers: bodies nested a million levels deep within `maxBodyBytes`,
 * records a load would refuse, bodies that never end, and a server that
 * answers with records nested too deep. Sizes are asserted, never timings.
 */

import type { LoopbackServer } from './loopback-server'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStoreError } from '../../src/errors'
import { createFileStore, createMemoryStore, createRemoteStore, createSessionStoreHandler, loadSession } from '../../src/session'
import { closeLoopbackServers, serveOnLoopback } from './loopback-server'
import { userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('remote-hostile')
const MiB = 1024 * 1024
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
const deepTurn = (levels: number) => `{"id":"t2","role":"assistant","createdAt":2,"content":[{"type":"tool_call","id":"c","name":"n","input":{"a":${deep(levels)}}}]}`

afterEach(closeLoopbackServers)

const serve = serveOnLoopback
type TestServer = LoopbackServer

async function post(server: TestServer, path: string, body: string, method = 'POST') {
  const response = await fetch(`${server.url}${path}`, { method, body, headers: { 'content-type': 'application/json' } })
  return { status: response.status, body: await response.json().catch(() => undefined) as { error?: { code: string, message: string } } | undefined }
}

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

describe('session store handler: hostile bodies', () => {
  it('a turn nested a million levels deep, within maxBodyBytes: 400 bad_request naming it, nothing stored', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    const answer = await post(server, '/sessions/s1/turns', `{"turns":[${JSON.stringify(userTurn('t1', 'fine'))},${deepTurn(1_000_000)}]}`)
    expect(answer).toEqual({ status: 400, body: { error: { code: 'bad_request', message: 'Turn 1 is nested more than 1,000 levels deep' } } })
    expect((await backend.load('s1'))?.turns).toEqual([])
  })

  it('a run or metadata nested too deep, and a turn a load would refuse: 400 bad_request, nothing stored', async () => {
    const backend = createFileStore({ dir: freshDir() })
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    expect(await post(server, '/sessions/s1/runs/r1', `{"run":{"id":"r1","status":"running","startedAt":1,"state":${deep(100_000)}}}`, 'PUT'))
      .toEqual({ status: 400, body: { error: { code: 'bad_request', message: 'The run is nested more than 1,000 levels deep' } } })
    expect(await post(server, '/sessions', `{"id":"s2","createdAt":1,"metadata":{"a":${deep(100_000)}}}`))
      .toEqual({ status: 400, body: { error: { code: 'bad_request', message: 'Session metadata is nested more than 1,000 levels deep' } } })
    expect(await post(server, '/sessions/s1/turns', '{"turns":[{"id":"t1","role":"user","createdAt":1}]}'))
      .toEqual({ status: 400, body: { error: { code: 'bad_request', message: 'Turn 0 has no content' } } })
    expect(await post(server, '/sessions/s1/runs/r1', '{"run":{"id":"r1","status":"finished","startedAt":1}}', 'PUT'))
      .toMatchObject({ status: 400, body: { error: { message: 'The run has an unknown status "finished"' } } })
    expect(await backend.load('s1')).toMatchObject({ turns: [], runs: [] })
    expect(await backend.list()).toEqual(['s1'])
  })

  it('maxBodyBytes must be a positive number: NaN would have let every body through', () => {
    expect(() => createSessionStoreHandler(createMemoryStore(), { maxBodyBytes: Number.NaN })).toThrow(TypeError)
    expect(() => createSessionStoreHandler(createMemoryStore(), { maxBodyBytes: -1 })).toThrow(/maxBodyBytes must be a positive number/)
  })

  /**
   * Send a chunked body without end (at most `limit` bytes) and report what
   * the server answered, whether it closed the connection on its own, and how
   * much it read.
   */
  async function endlessBody(server: TestServer, path: string, headers: string, limit = 64 * MiB) {
    const socket = connect(server.port, '127.0.0.1')
    socket.on('error', () => {})
    let response = ''
    socket.on('data', (data: Buffer) => {
      response += data.toString('latin1')
    })
    const state = { open: true }
    const closed = new Promise<void>(resolve => socket.once('close', () => {
      state.open = false
      resolve()
    }))
    await once(socket, 'connect')
    socket.write(`POST ${path} HTTP/1.1\r\nhost: test\r\ntransfer-encoding: chunked\r\n${headers}\r\n`)
    const piece = Buffer.alloc(64 * 1024, 0x20)
    const frame = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
    let sent = 0
    while (state.open && sent < limit) {
      sent += frame.length
      if (!socket.write(frame))
        await Promise.race([new Promise(resolve => socket.once('drain', resolve)), closed])
    }
    // Still open after all of it: the server kept reading. End it, so the test does.
    const endedByTest = state.open
    if (endedByTest)
      socket.destroy()
    await closed
    return { status: response.split('\r\n', 1)[0], closedByServer: !endedByTest, read: server.sockets.reduce((total, s) => total + s.bytesRead, 0), sent }
  }

  it.each([
    ['refused before it is read (401)', '/sessions/s1/turns', 'x-deny: yes\r\n', 'HTTP/1.1 401 Unauthorized'],
    ['on no route (404)', '/elsewhere', '', 'HTTP/1.1 404 Not Found'],
    ['past maxBodyBytes (413; already closed before)', '/sessions/s1/turns', '', 'HTTP/1.1 413 Payload Too Large'],
  ])('a body that never ends, %s: answered, then the connection is closed and the rest never read', async (_, path, headers, status) => {
    const server = await serve(createSessionStoreHandler(createMemoryStore(), { maxBodyBytes: MiB, authorize: req => req.headers['x-deny'] === undefined }))
    const outcome = await endlessBody(server, path, headers)
    expect(outcome.status).toBe(status)
    expect(outcome.closedByServer).toBe(true)
    expect(outcome.read).toBeLessThan(16 * MiB)
  })
})

describe('remote store: records nested too deep', () => {
  it('a file-backed server holding a deep line: the client gets corrupt with the line (not a retried io), and a skip loads the rest', async () => {
    const dir = freshDir()
    const backend = createFileStore({ dir })
    await backend.create({ id: 's1', createdAt: 1 })
    await backend.appendTurns('s1', [userTurn('t1', 'one')])
    writeFileSync(join(dir, 's1.jsonl'), `{"type":"turns","at":9,"turns":[${deepTurn(1_000_000)}]}\n`, { flag: 'a' })
    let requests = 0
    const handler = createSessionStoreHandler(backend)
    const server = await serve((req, res) => {
      requests++
      handler(req, res)
    })
    const store = createRemoteStore({ url: server.url, retries: 3, retryDelayMs: 1 })
    const error = await rejection(store.load('s1'))
    expect(error).toMatchObject({ code: 'corrupt', record: { line: 3, problem: 'has a turn that is nested more than 1,000 levels deep' } })
    expect(requests).toBe(1)
    const session = await loadSession('s1', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1'])
    expect(session.skipped).toMatchObject([{ kind: 'line', line: 3 }])
  })

  it('a server answering with a turn nested a million levels deep: the client refuses it as corrupt, and a skip leaves it out', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(`{"version":1,"id":"s1","createdAt":1,"updatedAt":1,"turns":[${JSON.stringify(userTurn('t1', 'one'))},${deepTurn(1_000_000)}],"runs":[]}`)
    })
    const store = createRemoteStore({ url: server.url, retries: 0 })
    expect((await rejection(store.load('s1'))).record).toEqual({ index: 1, problem: 'is nested more than 1,000 levels deep' })
    const session = await loadSession('s1', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1'])
    // Its JSON cannot be written out again; the record says so instead.
    expect(session.skipped).toEqual([{ kind: 'turn', index: 1, problem: 'is nested more than 1,000 levels deep', raw: '(not serializable: Maximum call stack size exceeded)' }])
  })
})

describe('remote store: what a server answers, and what a request may carry', () => {
  it('a time JSON cannot hold (1e999 reads as Infinity) is refused with 400, nothing stored', async () => {
    const backend = createFileStore({ dir: freshDir() })
    await backend.create({ id: 's1', createdAt: 1 })
    const server = await serve(createSessionStoreHandler(backend))
    // Stored, Infinity would have been written as null, and every later strict load of s1 refused.
    expect(await post(server, '/sessions/s1/turns', '{"turns":[{"id":"t1","role":"user","createdAt":1e999,"content":[]}]}'))
      .toEqual({ status: 400, body: { error: { code: 'bad_request', message: 'Turn 0 has no numeric createdAt' } } })
    expect(await post(server, '/sessions/s1/runs/r1', '{"run":{"id":"r1","status":"running","startedAt":-1e999}}', 'PUT'))
      .toMatchObject({ status: 400, body: { error: { message: 'The run has no numeric startedAt' } } })
    expect(await loadSession('s1', { store: backend })).toMatchObject({ turns: [], runs: [] })
  })

  it('a write answered with a redirect fails as http naming it, never taken as stored', async () => {
    const seen: string[] = []
    const server = await serve((request, response) => {
      seen.push(`${request.method} ${request.url}`)
      request.resume()
      if (request.url === '/login')
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      else
        response.writeHead(302, { location: '/login' }).end()
    })
    const store = createRemoteStore({ url: server.url, retryDelayMs: 1 })
    const error = await rejection(store.appendTurns('s', [userTurn('t1', 'hi')]))
    expect(error.code).toBe('http')
    expect(error.message).toContain('302 to /login')
    // Followed, the POST became a GET of the login page, whose 200 read as a stored write.
    expect(seen).toEqual(['POST /sessions/s/turns'])
  })

  it('a session answered with times or a skipped list of the wrong shape: http, not an untyped TypeError', async () => {
    let answer: Record<string, unknown> = {}
    const server = await serve((request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
    })
    const store = createRemoteStore({ url: server.url, retries: 0 })
    const sound = { version: 1, id: 's', createdAt: 1, updatedAt: 1, turns: [], runs: [] }
    for (const broken of [{ createdAt: 'yesterday' }, { updatedAt: {} }, { skipped: 5 }, { skipped: [{ kind: 'turn' }] }]) {
      answer = { ...sound, ...broken }
      const error = await rejection(store.load('s', { onCorrupt: 'skip' }))
      expect(error.code).toBe('http')
      expect(error.message).toContain('without a session')
    }
    answer = sound
    expect(await store.load('s')).toMatchObject(sound)
  })

  it('a run id or lease owner with a lone surrogate: a TypeError naming the field, before anything is sent', async () => {
    let requests = 0
    const server = await serve((request, response) => {
      requests++
      request.resume()
      response.writeHead(204).end()
    })
    const store = createRemoteStore({ url: server.url, retries: 0 })
    await expect(store.saveRun('s', { id: 'r\uD800', status: 'running', startedAt: 1 })).rejects.toThrow(/cannot send the run id .*lone surrogate/)
    await expect(store.releaseLease!('s', 'owner\uDC00')).rejects.toThrow(TypeError)
    expect(requests).toBe(0)
  })

  it('the outcomes kept for retried writes hold at most idempotencyBytes of requests: the oldest large create is forgotten', async () => {
    const server = await serve(createSessionStoreHandler(createMemoryStore(), { idempotencyBytes: MiB }))
    const create = async (id: string, key: string, bytes: number) => {
      const response = await fetch(`${server.url}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ id, createdAt: 1, metadata: { blob: 'x'.repeat(bytes) } }),
      })
      await response.arrayBuffer()
      return response.status
    }
    const big = 600 * 1024
    expect(await create('big-1', 'k1', big)).toBe(201)
    // Retried while remembered: the first outcome again.
    expect(await create('big-1', 'k1', big)).toBe(201)
    expect(await create('big-2', 'k2', big)).toBe(201)
    expect(await create('big-2', 'k2', big)).toBe(201)
    // A write larger than the whole budget is never kept, and pushes no other key out.
    expect(await create('huge', 'k4', 2 * MiB)).toBe(201)
    expect(await create('huge', 'k4', 2 * MiB)).toBe(409)
    expect(await create('big-2', 'k2', big)).toBe(201)
    // 1.2 MiB of requests: k1's outcome (a whole session) was let go, so its retry runs again and finds the session.
    expect(await create('big-1', 'k1', big)).toBe(409)
    // Small writes are kept by count as before.
    expect(await create('small', 'k3', 10)).toBe(201)
    expect(await create('small', 'k3', 10)).toBe(201)
    expect(() => createSessionStoreHandler(createMemoryStore(), { idempotencyBytes: Number.NaN })).toThrow(/idempotencyBytes must be a number/)
  })
})
