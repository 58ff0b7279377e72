/**
 * The server side of the remote store protocol (`remote-protocol.ts`): a
 * plain `node:http` request handler that serves any `SessionStore`.
 *
 * ```ts
 * const handler = createSessionStoreHandler(createFileStore({ dir: 'sessions' }), {
 *   authorize: req => req.headers.authorization === `Bearer ${process.env.TOKEN}`,
 * })
 * createServer(handler).listen(8787, '127.0.0.1')
 * ```
 *
 * Records are checked both ways: what a client sends to be written, as a load
 * would check it (a 400 `bad_request` naming it), and what a custom store
 * loads, as the built-in stores check their own (a 500 `corrupt` naming it,
 * or left out under `?onCorrupt=skip`).
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SessionTurn } from '../../core/content'
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions } from '../types'
import type { ErrorBody, ProtocolErrorCode } from './remote-protocol'
import { constants } from 'node:buffer'
import { mergeObjects } from '../../core/merge-objects'
import { checkSessionData, loadsAreChecked } from './corrupt-records'
import { assertLeaseRequest } from './lease'
import { nestsTooDeep, runProblem, TOO_DEEP, turnProblem } from './record-checks'
import { errorBody, IDEMPOTENCY_HEADER, statusOfCode } from './remote-protocol'
import { withLeases } from './with-leases'

type LeasingStore = ReturnType<typeof withLeases>

/** Options of `createSessionStoreHandler`. */
export interface SessionStoreHandlerOptions {
  /** Path prefix the handler serves, e.g. `/zidane`; requests outside it get 404. Default: none. */
  basePath?: string
  /** Decide whether a request may use the store (check its credentials); `false` answers 401. Default: allow all. */
  authorize?: (req: IncomingMessage) => boolean | Promise<boolean>
  /**
   * Largest request body accepted, in bytes; larger ones answer 413 and the
   * connection is closed. Default 64 MiB. Bodies larger than a string can
   * hold (about 512 MiB) answer 413 whatever this says.
   */
  maxBodyBytes?: number
  /** How many recent idempotency keys are remembered for deduplicating retried writes. Default 10,000. */
  idempotencyKeys?: number
  /**
   * Most bytes of request bodies behind the remembered keys, all together;
   * past it the oldest are forgotten first (a create's outcome holds the
   * whole session it made, metadata and all). A write larger than this is
   * not remembered, and a retry of it runs again. Default 64 MiB.
   */
  idempotencyBytes?: number
}

interface Reply {
  status: number
  body?: unknown
}

/** A request the handler understood: whether it writes, and the store call that answers it. */
interface Operation {
  writes: boolean
  execute: (body: unknown) => Promise<Reply>
}

const TRAILING_SLASHES = /\/+$/

class ProtocolError extends Error {
  constructor(readonly code: ProtocolErrorCode, message: string) {
    super(message)
  }
}

/** A `node:http` request handler that serves a store to `createRemoteStore` clients. */
export function createSessionStoreHandler(backend: SessionStore, options: SessionStoreHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  // A store with no leases of its own gets them here, for every client of this handler.
  const store = withLeases(backend)
  // A custom store's loads are checked here, as the built-in stores check their own.
  const checkLoads = !loadsAreChecked(backend)
  const basePath = (options.basePath ?? '').replace(TRAILING_SLASHES, '')
  const bodyLimit = options.maxBodyBytes ?? 64 * 1024 * 1024
  if (typeof bodyLimit !== 'number' || !(bodyLimit > 0))
    throw new TypeError(`createSessionStoreHandler: maxBodyBytes must be a positive number of bytes, not ${String(bodyLimit)}`)
  // A body is decoded into one string: past the longest one it could not be.
  const maxBodyBytes = Math.min(bodyLimit, constants.MAX_STRING_LENGTH)
  const keyLimit = Math.max(0, options.idempotencyKeys ?? 10_000)
  const byteLimit = options.idempotencyBytes ?? 64 * 1024 * 1024
  if (typeof byteLimit !== 'number' || !(byteLimit >= 0))
    throw new TypeError(`createSessionStoreHandler: idempotencyBytes must be a number of bytes, not ${String(byteLimit)}`)
  // First outcome per idempotency key, oldest first (a Map keeps insertion order), with its request's size.
  const outcomes = new Map<string, { outcome: Promise<Reply>, bytes: number }>()
  let rememberedBytes = 0

  /** Drop a key's outcome; the bytes it held. */
  const forget = (key: string): number => {
    const entry = outcomes.get(key)
    outcomes.delete(key)
    return entry?.bytes ?? 0
  }
  /**
   * Keep an outcome for its key's retries. Bounded by count and by the bytes
   * of the requests behind them (`idempotencyBytes`): a create answers with
   * the session it made, so ten thousand large ones would hold gigabytes.
   * One larger than the whole budget is not kept (a retry of it runs again).
   */
  const remember = (key: string, outcome: Promise<Reply>, bytes: number) => {
    // Larger than the whole budget: kept, it would only push every other key out.
    if (bytes > byteLimit)
      return
    outcomes.set(key, { outcome, bytes })
    rememberedBytes += bytes
    while (outcomes.size > keyLimit || rememberedBytes > byteLimit)
      rememberedBytes -= forget(outcomes.keys().next().value!)
    // A failure of the server itself is not an answer to replay: let a retry run again.
    void outcome.then((reply) => {
      if (reply.status >= 500 && outcomes.get(key)?.outcome === outcome)
        rememberedBytes -= forget(key)
    })
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
      throw new ProtocolError('no_route', `No route for ${url.pathname}`)
    if (options.authorize && !(await options.authorize(req)))
      throw new ProtocolError('unauthorized', 'Not authorized to use this session store')
    const operation = route(store, checkLoads, req.method ?? 'GET', url.pathname.slice(basePath.length), url.searchParams)
    const read = operation.writes ? await readJson(req, maxBodyBytes) : undefined
    const key = req.headers[IDEMPOTENCY_HEADER]
    if (!operation.writes || typeof key !== 'string' || key === '' || keyLimit === 0) {
      send(req, res, await answer(operation, read?.value))
      return
    }
    const slot = `${req.method} ${url.pathname} ${key}`
    let outcome = outcomes.get(slot)?.outcome
    if (!outcome) {
      outcome = answer(operation, read?.value)
      remember(slot, outcome, read?.bytes ?? 0)
    }
    send(req, res, await outcome)
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent)
        res.destroy()
      else
        send(req, res, errorReply(error))
    })
  }
}

/** Run the operation; a store error becomes its error reply. */
async function answer(operation: Operation, body: unknown): Promise<Reply> {
  try {
    return await operation.execute(body)
  }
  catch (error) {
    return errorReply(error)
  }
}

function errorReply(error: unknown): Reply {
  if (error instanceof ProtocolError) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } }
    return { status: statusOfCode(error.code), body }
  }
  return errorBody(error)
}

function route(store: LeasingStore, checkLoads: boolean, method: string, path: string, query: URLSearchParams): Operation {
  const segments = path.split('/').filter(segment => segment !== '').map(decodeSegment)
  const [collection, id, child, runId] = segments
  if (collection !== 'sessions' || segments.length > 4 || (child !== undefined && child !== 'turns' && child !== 'runs' && child !== 'lease'))
    throw new ProtocolError('no_route', `No route for ${path}`)
  const allow = (expected: string, kind: string) => {
    if (method !== expected)
      throw new ProtocolError('method_not_allowed', `${method} is not allowed on ${kind}`)
  }

  if (id === undefined) {
    if (method === 'GET')
      return { writes: false, execute: async () => ({ status: 200, body: { ids: await store.list() } }) }
    allow('POST', 'the session list')
    return { writes: true, execute: async body => ({ status: 201, body: await store.create(createRecord(body)) }) }
  }
  if (child === undefined) {
    if (method === 'GET') {
      return {
        writes: false,
        execute: async () => {
          const options: SessionLoadOptions | undefined = query.get('onCorrupt') === 'skip' ? { onCorrupt: 'skip' } : undefined
          const data = await store.load(id, options)
          if (!data)
            return { status: 404, body: { error: { code: 'not_found', message: `No session "${id}" in this store` } } }
          return { status: 200, body: checkLoads ? checkedLoad(data, id, options) : data }
        },
      }
    }
    allow('DELETE', 'a session')
    return {
      writes: true,
      execute: async () => {
        await store.delete(id)
        return { status: 204 }
      },
    }
  }
  if (child === 'turns' && segments.length === 3) {
    allow('POST', 'turns')
    return {
      writes: true,
      execute: async (body) => {
        await store.appendTurns(id, turnsOf(body), writerOf(body))
        return { status: 204 }
      },
    }
  }
  if (child === 'runs' && runId !== undefined) {
    allow('PUT', 'a run')
    return {
      writes: true,
      execute: async (body) => {
        await store.saveRun(id, runOf(body, runId), writerOf(body))
        return { status: 204 }
      },
    }
  }
  if (child === 'lease')
    return leaseRoute(store, method, id, runId)
  throw new ProtocolError('no_route', `No route for ${path}`)
}

/** `POST` takes the lease, `PUT` renews it, `DELETE …/lease/{owner}` releases it. */
function leaseRoute(store: LeasingStore, method: string, id: string, owner: string | undefined): Operation {
  if (owner !== undefined) {
    if (method !== 'DELETE')
      throw new ProtocolError('method_not_allowed', `${method} is not allowed on a lease owner`)
    return {
      writes: true,
      execute: async () => {
        await store.releaseLease(id, owner)
        return { status: 204 }
      },
    }
  }
  if (method === 'POST') {
    return {
      writes: true,
      execute: async (body) => {
        const request = leaseRequestOf(body)
        const origin = mergeObjects(request.pid === undefined ? {} : { pid: request.pid }, request.hostname === undefined ? {} : { hostname: request.hostname })
        return { status: 200, body: await store.acquireLease(id, request.owner, request.ttlMs, origin) }
      },
    }
  }
  if (method === 'PUT') {
    return {
      writes: true,
      execute: async (body) => {
        const request = leaseRequestOf(body)
        return { status: 200, body: await store.renewLease(id, request.owner, request.ttlMs) }
      },
    }
  }
  throw new ProtocolError('method_not_allowed', `${method} is not allowed on a lease`)
}

function leaseRequestOf(body: unknown): { owner: string, ttlMs: number, pid?: number, hostname?: string } {
  const request = body as { owner?: unknown, ttlMs?: unknown, pid?: unknown, hostname?: unknown } | undefined
  try {
    if (!isObject(request))
      throw new TypeError('A lease request is an object: { owner, ttlMs }')
    assertLeaseRequest(request.owner as string, request.ttlMs as number)
  }
  catch (error) {
    throw new ProtocolError('bad_request', (error as Error).message)
  }
  return {
    owner: request.owner as string,
    ttlMs: request.ttlMs as number,
    ...(Number.isSafeInteger(request.pid) ? { pid: request.pid as number } : {}),
    ...(typeof request.hostname === 'string' ? { hostname: request.hostname } : {}),
  }
}

/** The lease owner a write names, if any. */
function writerOf(body: unknown): SessionWriteOptions | undefined {
  const owner = (body as { owner?: unknown } | undefined)?.owner
  if (owner === undefined)
    return undefined
  if (typeof owner !== 'string' || owner === '')
    throw new ProtocolError('bad_request', 'A write\'s owner is a non-empty string')
  return { owner }
}

function createRecord(body: unknown): CreateSessionRecord {
  const record = body as Partial<CreateSessionRecord> | undefined
  if (!isObject(record) || typeof record.createdAt !== 'number' || !Number.isFinite(record.createdAt))
    throw new ProtocolError('bad_request', 'A new session needs a numeric createdAt')
  if (record.id !== undefined && typeof record.id !== 'string')
    throw new ProtocolError('bad_request', 'A session id is a string')
  if (record.metadata !== undefined && !isObject(record.metadata))
    throw new ProtocolError('bad_request', 'Session metadata is an object')
  if (nestsTooDeep(record.metadata, 0, true))
    throw new ProtocolError('bad_request', `Session metadata ${TOO_DEEP}`)
  return { id: record.id, createdAt: record.createdAt, metadata: record.metadata }
}

/**
 * What a custom store loaded, checked as the built-in stores check their own
 * records (`checkSessionData`): a broken one, or one nested past
 * `MAX_RECORD_DEPTH` (too deep, or cyclic, for the answer's `JSON.stringify`),
 * is a 500 `corrupt` naming its place and how to recover, and
 * `?onCorrupt=skip` leaves it out and lists it in `skipped`, whether or not
 * the store heeds `onCorrupt` itself. Before, it went out as it came: to a
 * plain client unchecked, and as a 500 `io` the client retried, skip or not,
 * when the answer could not be serialized.
 */
function checkedLoad(data: SessionData, id: string, options: SessionLoadOptions | undefined): SessionData {
  return checkSessionData(data, options, `Session "${id}" in the server's store`)
}

/**
 * The turns of an append, each checked as a load checks it: a turn the store
 * would refuse on the next load (no content, nested past `MAX_RECORD_DEPTH`,
 * whose JSON the store could not even write) is a 400 now, not a broken session later.
 */
function turnsOf(body: unknown): SessionTurn[] {
  const turns = (body as { turns?: unknown } | undefined)?.turns
  if (!Array.isArray(turns) || !turns.every(isObject))
    throw new ProtocolError('bad_request', 'Appending needs { turns: [...] } with an object per turn')
  for (let i = 0; i < turns.length; i++) {
    const problem = recordProblem(turns[i], turnProblem)
    if (problem !== undefined)
      throw new ProtocolError('bad_request', `Turn ${i} ${problem}`)
  }
  return turns as unknown as SessionTurn[]
}

function runOf(body: unknown, runId: string): SessionRun {
  const run = (body as { run?: unknown } | undefined)?.run
  if (!isObject(run) || (run as { id?: unknown }).id !== runId)
    throw new ProtocolError('bad_request', `Saving a run needs { run } whose id is "${runId}"`)
  const problem = recordProblem(run, runProblem)
  if (problem !== undefined)
    throw new ProtocolError('bad_request', `The run ${problem}`)
  return run as unknown as SessionRun
}

/** What a load would find wrong with a record of a request body (parsed JSON, so a tree), or `undefined`. */
function recordProblem(record: unknown, problemOf: (value: unknown) => string | undefined): string | undefined {
  return problemOf(record) ?? (nestsTooDeep(record, 0, true) ? TOO_DEEP : undefined)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  }
  catch {
    throw new ProtocolError('bad_request', `Malformed path segment ${segment}`)
  }
}

/** A request's JSON body (`undefined` when empty) and its size in bytes. */
function readJson(req: IncomingMessage, maxBytes: number): Promise<{ value: unknown, bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        req.off('data', onData)
        req.resume()
        reject(new ProtocolError('too_large', `Request body is larger than ${maxBytes} bytes`))
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.on('error', reject)
    req.on('close', () => {
      if (!req.complete)
        reject(new Error('The client went away before sending the whole body'))
    })
    req.on('end', () => {
      let text: string
      try {
        text = Buffer.concat(chunks).toString('utf8')
      }
      catch {
        // Thrown here, in an event listener, it would be an uncaught exception (bodies are capped below the longest string, so this is a last guard).
        reject(new ProtocolError('too_large', 'Request body is larger than a string can hold'))
        return
      }
      if (text === '') {
        resolve({ value: undefined, bytes: 0 })
        return
      }
      try {
        resolve({ value: JSON.parse(text), bytes: size })
      }
      catch {
        reject(new ProtocolError('bad_request', 'Request body is not valid JSON'))
      }
    })
  })
}

/**
 * Answer. A request whose body was not read to its end (refused before it was
 * read: 401, 404, 405, 413, …) closes the connection once answered: Node
 * would otherwise read and drop the rest to reuse the connection, and a body
 * that never ends would be read for ever.
 */
function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string | number> = {}
  if (!req.complete || reply.status === 413)
    headers.connection = 'close'
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end()
    return
  }
  const text = JSON.stringify(reply.body)
  headers['content-type'] = 'application/json; charset=utf-8'
  headers['content-length'] = Buffer.byteLength(text)
  res.writeHead(reply.status, headers)
  res.end(text)
}
