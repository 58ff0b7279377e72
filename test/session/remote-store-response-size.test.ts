import type { RequestListener, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStoreError } from '../../src/errors'
import { createMemoryStore, createRemoteStore, createSessionStoreHandler, DEFAULT_REMOTE_MAX_RESPONSE_BYTES } from '../../src/session'
import { userTurn } from './sample-turns'

const MIB = 1024 * 1024
const CHUNK = Buffer.alloc(MIB, 'a')

interface CountingServer {
  url: string
  /** Requests that reached the server. */
  requests: number
  /** Body bytes handed to the socket, counted as they go out. */
  sent: number
  /** Resolves once every answer begun so far is closed (finished, or cut by the client). */
  closed: () => Promise<void>
  close: () => Promise<void>
}

const servers: CountingServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()))
})

/** Serve `listener` on 127.0.0.1 with a free port, counting requests and the body bytes `write` sends. */
async function serve(listener: (res: ServerResponse, state: CountingServer) => void | Promise<void>): Promise<CountingServer> {
  const answers: Promise<void>[] = []
  const handle: CountingServer = {
    url: '',
    requests: 0,
    sent: 0,
    closed: async () => {
      await Promise.all(answers)
    },
    close: async () => {},
  }
  const onRequest: RequestListener = (_req, res) => {
    handle.requests++
    answers.push(new Promise(resolve => res.on('close', () => resolve())))
    void listener(res, handle)
  }
  const server = createServer(onRequest)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  handle.url = `http://127.0.0.1:${port}`
  handle.close = () => new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  servers.push(handle)
  return handle
}

/** Write 1 MiB chunks as the socket drains until the client goes away (or `limit` bytes are out). */
async function stream(res: ServerResponse, state: CountingServer, limit = Number.POSITIVE_INFINITY): Promise<void> {
  while (!res.destroyed && state.sent < limit) {
    state.sent += CHUNK.length
    if (!res.write(CHUNK)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done)
          res.off('close', done)
          resolve()
        }
        res.on('drain', done)
        res.on('close', done)
      })
    }
  }
}

/** A 200 with no length that never ends: the body of a broken server or proxy. */
function endless(res: ServerResponse, state: CountingServer): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' })
  return stream(res, state)
}

async function failureOf(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

const fast = { retries: 3, retryDelayMs: 1 }

describe('remote store answer size', () => {
  it('cuts an endless body at maxResponseBytes, with one request and no retry', async () => {
    const server = await serve(endless)
    const error = await failureOf(createRemoteStore({ url: server.url, ...fast, maxResponseBytes: MIB }).load('s1'))
    expect(error.code).toBe('http')
    expect(error.sessionId).toBe('s1')
    expect(error.message).toContain('GET /sessions/s1')
    expect(error.message).toContain('1 MiB')
    expect(error.message).toContain('maxResponseBytes')
    await server.closed()
    expect(server.requests).toBe(1)
    expect(server.sent).toBeLessThan(64 * MIB)
  })

  it('refuses a content-length over the cap without reading the body', async () => {
    const server = await serve((res, state) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * MIB) })
      res.flushHeaders()
      return stream(res, state)
    })
    const error = await failureOf(createRemoteStore({ url: server.url, ...fast, maxResponseBytes: MIB }).list())
    expect(error.code).toBe('http')
    expect(error.message).toContain('GET /sessions')
    expect(error.message).toContain('maxResponseBytes')
    await server.closed()
    expect(server.requests).toBe(1)
    // What the socket buffers took before the client hung up (4 MiB here), nowhere near the 1 GiB announced.
    expect(server.sent).toBeLessThan(16 * MIB)
  })

  it('loads a 2 MiB session with the default cap and refuses it with a 1 MiB one', async () => {
    const backend = createMemoryStore()
    await backend.create({ id: 'big', createdAt: 1 })
    await backend.appendTurns('big', Array.from({ length: 32 }, (_, index) => userTurn(`t${index}`, 'x'.repeat(64 * 1024))))
    const handler = createSessionStoreHandler(backend)
    let answered = 0
    let bytes = 0
    const server = await serve(async (res) => {
      // The real handler, with the size of what it sends measured on the way out.
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse
      res.end = ((chunk?: unknown) => {
        answered++
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : 0
        return end(chunk)
      }) as typeof res.end
      handler(res.req, res)
    })

    const loaded = await createRemoteStore({ url: server.url }).load('big')
    expect(loaded?.turns).toHaveLength(32)
    expect(bytes).toBeGreaterThan(2 * MIB)
    expect(bytes).toBeLessThan(DEFAULT_REMOTE_MAX_RESPONSE_BYTES)

    const error = await failureOf(createRemoteStore({ url: server.url, ...fast, maxResponseBytes: MIB }).load('big'))
    expect(error.code).toBe('http')
    expect(error.message).toContain('GET /sessions/big')
    expect(error.message).toContain('maxResponseBytes')
    expect(answered).toBe(2)
  })

  it('uses 256 MiB when maxResponseBytes is absent', async () => {
    expect(DEFAULT_REMOTE_MAX_RESPONSE_BYTES).toBe(256 * MIB)
    const server = await serve(endless)
    const error = await failureOf(createRemoteStore({ url: server.url, ...fast }).load('s1'))
    expect(error.code).toBe('http')
    expect(error.message).toContain('256 MiB')
    expect(error.message).toContain('maxResponseBytes')
    await server.closed()
    expect(server.requests).toBe(1)
    expect(server.sent).toBeGreaterThanOrEqual(256 * MIB)
    expect(server.sent).toBeLessThan(256 * MIB + 64 * MIB)
  })

  it('refuses a maxResponseBytes that is not a positive whole number', () => {
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createRemoteStore({ url: 'http://127.0.0.1:9', maxResponseBytes })).toThrow(TypeError)
    expect(() => createRemoteStore({ url: 'http://127.0.0.1:9', maxResponseBytes: 1 })).not.toThrow()
  })
})
