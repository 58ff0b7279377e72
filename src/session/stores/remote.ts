/**
 * A store kept by a server: the client side of the protocol described in
 * `remote-protocol.ts`, served by `createSessionStoreHandler`.
 *
 * Each attempt is bounded by `timeoutMs`. Network failures, timeouts, 429,
 * 502/503/504 and a 500 from a failing backend (`io`) are retried up to
 * `retries` times, with exponential backoff and jitter (a `Retry-After` in
 * seconds wins). Writes are safe to retry: each call sends one idempotency
 * key with all of its attempts, and the server applies it once. Everything
 * else fails at once with the server's `SessionStoreError` code, or `http`;
 * a refusal by the session's lease (409 `leased`) is a `SessionLeaseError`.
 * The lease itself is kept by the server's store: its clock decides expiry.
 *
 * No answer is read past `maxResponseBytes`: a body that goes on longer (or
 * announces a longer `content-length`) is cut off there and fails its call
 * with `http`, without a retry, since the server would send it again.
 *
 * A write holding a turn, run or metadata nested past `MAX_RECORD_DEPTH`
 * fails with `corrupt` before anything is sent, as every store refuses it
 * (`writable-json.ts`); the server would answer it with a 400.
 */

import type { SessionTurn } from '../../core/content'
import type { SessionLease, SessionLeaseError } from '../../errors'
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions } from '../types'
import type { ErrorBody } from './remote-protocol'
import { randomUUID } from 'node:crypto'
import { readTextCapped } from '../../core/capped-body'
import { delay, timeoutSignal } from '../../core/timer'
import { SessionStoreError } from '../../errors'
import { describeByteCap } from '../../text/byte-cap'
import { checkSessionData, checksItsLoads } from './corrupt-records'
import { assertLeaseRequest, thisProcess } from './lease'
import { assertReadableVersion } from './records'
import { IDEMPOTENCY_HEADER, isStoreErrorCode, leaseErrorOf, paths } from './remote-protocol'
import { assertSessionId } from './session-id'
import { writableJson } from './writable-json'

/** Headers sent with every request of a remote store. */
export type RemoteStoreHeaders = Record<string, string>

/** Options of `createRemoteStore`. */
export interface RemoteStoreOptions {
  /** Base URL the handler serves, e.g. `https://example.com/zidane`; paths are appended to it. */
  url: string
  /** Sent with every request (authentication). A function is called before each attempt, so tokens can rotate. */
  headers?: RemoteStoreHeaders | (() => RemoteStoreHeaders | Promise<RemoteStoreHeaders>)
  /** Time limit of one attempt, in ms. Default 30,000. */
  timeoutMs?: number
  /** Attempts after the first one for failures worth retrying. Default 3. */
  retries?: number
  /** Backoff before the first retry, in ms, doubling each time (capped at 30 s). Default 250. */
  retryDelayMs?: number
  /**
   * Largest body, in bytes, the client reads from one answer; a longer one
   * (or a `content-length` above it) fails the call with `http` and is not
   * retried. It bounds the memory a faulty server or proxy can make the
   * client use. Raise it for sessions larger than the default 256 MiB.
   */
  maxResponseBytes?: number
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch
}

/** Default `maxResponseBytes` of `createRemoteStore`: 256 MiB. */
export const DEFAULT_REMOTE_MAX_RESPONSE_BYTES = 256 * 1024 * 1024

const MAX_DELAY_MS = 30_000
const TRAILING_SLASHES = /\/+$/
const SECONDS = /^\d+(?:\.\d+)?$/
const RETRY_STATUSES = new Set([429, 502, 503, 504])

interface Reply {
  status: number
  body: unknown
}

/** An attempt that failed: retried when `retryable`, after `retryAfterMs` when the server named a wait. */
interface Failure {
  error: SessionStoreError | SessionLeaseError
  retryable: boolean
  retryAfterMs?: number
}

/** A session store that lives on another machine, reached over HTTP (the other end is `createSessionStoreHandler`). */
export function createRemoteStore(options: RemoteStoreOptions): SessionStore {
  const base = options.url.replace(TRAILING_SLASHES, '')
  const timeoutMs = options.timeoutMs ?? 30_000
  const retries = Math.max(0, Math.floor(options.retries ?? 3))
  const retryDelayMs = Math.max(0, options.retryDelayMs ?? 250)
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_REMOTE_MAX_RESPONSE_BYTES
  // A cap of 0, a fraction or NaN would fail every call later on, far from the mistake.
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0)
    throw new TypeError(`createRemoteStore: maxResponseBytes must be a positive whole number of bytes (got ${String(options.maxResponseBytes)})`)
  const doFetch = options.fetch ?? globalThis.fetch

  /** One call: its attempts share the idempotency key of a write. `payload` is the body's JSON. */
  async function call(method: string, path: string, payload: string | undefined, sessionId: string | undefined, accept: readonly number[] = [], owner?: string): Promise<Reply> {
    const key = method === 'GET' ? undefined : randomUUID()
    let failure: Failure | undefined
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (failure)
        await delay(backoff(attempt, failure))
      const outcome = await attemptOnce(method, path, payload, key, sessionId, accept, owner)
      if (!('error' in outcome))
        return outcome
      if (!outcome.retryable)
        throw outcome.error
      failure = outcome
    }
    throw failure!.error
  }

  async function attemptOnce(method: string, path: string, payload: string | undefined, key: string | undefined, sessionId: string | undefined, accept: readonly number[], owner: string | undefined): Promise<Reply | Failure> {
    const headers = new Headers(typeof options.headers === 'function' ? await options.headers() : options.headers)
    if (payload !== undefined)
      headers.set('content-type', 'application/json')
    if (key !== undefined)
      headers.set(IDEMPOTENCY_HEADER, key)
    const label = `${method} ${path}`
    const deadline = timeoutSignal(timeoutMs)
    try {
      // Redirects are not followed: fetch turns a redirected POST (301, 302, 303) into a GET without
      // its body, and any 2xx at the new place (a login page, say) would read as a stored write.
      const response = await doFetch(`${base}${path}`, { method, headers, body: payload, signal: deadline.signal, redirect: 'manual' })
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
        await response.body?.cancel().catch(() => {})
        const location = response.headers.get('location')
        const message = `${label} answered a redirect (${response.status || 'opaque'}${location ? ` to ${location}` : ''}); a session store does not follow redirects: point url at the handler itself`
        return { error: new SessionStoreError(message, 'http', { sessionId }), retryable: false }
      }
      const text = await readTextCapped(response, maxResponseBytes)
      if (text === undefined) {
        // Not retried: the server would most likely send the same answer again.
        const message = `${label} answered ${response.status} with a body over ${describeByteCap(maxResponseBytes)} (maxResponseBytes); the rest was not read. Raise maxResponseBytes if the store's sessions are that large.`
        return { error: new SessionStoreError(message, 'http', { sessionId }), retryable: false }
      }
      const parsed = parseBody(text)
      if (response.ok || accept.includes(response.status))
        return { status: response.status, body: parsed }
      return responseError(label, response, parsed, sessionId, owner)
    }
    catch (error) {
      const reason = isTimeout(error) ? `timed out after ${timeoutMs} ms` : describe(error)
      return { error: new SessionStoreError(`${label} failed: ${reason}`, 'http', { sessionId, cause: error }), retryable: true }
    }
    finally {
      deadline.clear()
    }
  }

  return checksItsLoads({
    async create(record: CreateSessionRecord) {
      if (record.id !== undefined)
        assertSessionId(record.id)
      // The server would refuse records nested too deep (400): refused here first, typed as every store refuses them.
      const payload = writableJson(record.id, record, { kind: 'metadata', records: record.metadata === undefined ? [] : [record.metadata], levelsAbove: 1 })
      const reply = await call('POST', paths.sessions(), payload, record.id)
      return checkedSession(reply.body, record.id)
    },

    async load(id: string, loadOptions?: SessionLoadOptions) {
      assertSessionId(id)
      const skip = loadOptions?.onCorrupt === 'skip'
      const reply = await call('GET', `${paths.session(id)}${skip ? '?onCorrupt=skip' : ''}`, undefined, id, [404])
      if (reply.status === 404) {
        if ((reply.body as ErrorBody | undefined)?.error?.code === 'not_found')
          return undefined
        throw new SessionStoreError(`GET ${paths.session(id)} answered 404 without a session error: is the store URL right?`, 'http', { sessionId: id })
      }
      // The server's store checked its records; these checks catch what a faulty server or proxy sends.
      return checkSessionData(checkedSession(reply.body, id), loadOptions, `Session "${id}" from the server`)
    },

    async appendTurns(id: string, turns: readonly SessionTurn[], write?: SessionWriteOptions) {
      assertSessionId(id)
      const payload = writableJson(id, { turns, ...writer(write) }, { kind: 'turn', records: turns, levelsAbove: 2 })
      await call('POST', paths.turns(id), payload, id, [], write?.owner)
    },

    async saveRun(id: string, run: SessionRun, write?: SessionWriteOptions) {
      assertSessionId(id)
      const payload = writableJson(id, { run, ...writer(write) }, { kind: 'run', records: [run], levelsAbove: 1 })
      await call('PUT', paths.run(id, run.id), payload, id, [], write?.owner)
    },

    async acquireLease(id, owner, ttlMs, origin = thisProcess()) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      const reply = await call('POST', paths.lease(id), JSON.stringify({ owner, ttlMs, ...origin }), id, [], owner)
      return checkedLease(reply.body, id, owner, true)
    },

    async renewLease(id, owner, ttlMs) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      const reply = await call('PUT', paths.lease(id), JSON.stringify({ owner, ttlMs }), id, [], owner)
      return checkedLease(reply.body, id, owner, false)
    },

    async releaseLease(id, owner) {
      assertSessionId(id)
      await call('DELETE', paths.leaseOf(id, owner), undefined, id, [], owner)
    },

    async delete(id: string) {
      assertSessionId(id)
      await call('DELETE', paths.session(id), undefined, id)
    },

    async list() {
      const reply = await call('GET', paths.sessions(), undefined, undefined)
      const ids = (reply.body as { ids?: unknown } | undefined)?.ids
      if (!Array.isArray(ids) || !ids.every(id => typeof id === 'string'))
        throw new SessionStoreError('GET /sessions answered without an ids array', 'http')
      return ids
    },
  })

  function backoff(attempt: number, failure: Failure): number {
    if (failure.retryAfterMs !== undefined)
      return Math.min(failure.retryAfterMs, MAX_DELAY_MS)
    const ceiling = Math.min(MAX_DELAY_MS, retryDelayMs * 2 ** (attempt - 1))
    // Half fixed, half random: spreads clients that failed together.
    return ceiling / 2 + Math.random() * ceiling / 2
  }
}

function responseError(label: string, response: Response, body: unknown, sessionId: string | undefined, owner: string | undefined): Failure {
  const detail = (body as ErrorBody | undefined)?.error
  if (response.status === 409 && detail?.code === 'leased' && sessionId !== undefined)
    return { error: leaseErrorOf(detail, sessionId, owner), retryable: false }
  const message = `${label} answered ${response.status}${detail?.message ? `: ${detail.message}` : ''}`
  // A 500 from the backend itself (io, or no store code: a proxy) may pass; corrupt data will not.
  const retryable = RETRY_STATUSES.has(response.status) || (response.status === 500 && (detail === undefined || detail.code === 'io'))
  const code = isStoreErrorCode(detail?.code) ? detail.code : 'http'
  const record = code === 'corrupt' && typeof detail?.record?.problem === 'string' ? detail.record : undefined
  return {
    error: new SessionStoreError(message, code, { sessionId, record }),
    retryable,
    retryAfterMs: retryable ? retryAfterMs(response.headers.get('retry-after')) : undefined,
  }
}

function writer(write: SessionWriteOptions | undefined): { owner?: string } {
  return write?.owner === undefined ? {} : { owner: write.owner }
}

/** The lease the server granted, checked: it must be the one asked for. */
function checkedLease(body: unknown, id: string, owner: string, acquired: boolean): SessionLease {
  const lease = body as Partial<SessionLease> | undefined
  if (typeof lease !== 'object' || lease === null || lease.owner !== owner || typeof lease.expiresAt !== 'number')
    throw new SessionStoreError(`The server answered a lease request on "${id}" without the lease of "${owner}"`, 'http', { sessionId: id })
  return {
    sessionId: id,
    owner,
    expiresAt: lease.expiresAt,
    ...(typeof lease.pid === 'number' ? { pid: lease.pid } : {}),
    ...(typeof lease.hostname === 'string' ? { hostname: lease.hostname } : {}),
    ...(acquired && typeof lease.previousOwner === 'string' ? { previousOwner: lease.previousOwner } : {}),
  }
}

function checkedSession(body: unknown, requestedId: string | undefined): SessionData {
  const data = body as SessionData | undefined
  const id = requestedId ?? (typeof data?.id === 'string' ? data.id : 'unknown')
  const valid = typeof data === 'object' && data !== null && Array.isArray(data.turns) && Array.isArray(data.runs)
    && typeof data.id === 'string' && (requestedId === undefined || data.id === requestedId)
    && Number.isFinite(data.createdAt) && Number.isFinite(data.updatedAt)
    && (data.skipped === undefined || (Array.isArray(data.skipped) && data.skipped.every(isSkippedRecord)))
  if (!valid)
    throw new SessionStoreError(`The server answered without a session for "${id}"`, 'http', { sessionId: id })
  assertReadableVersion(data.version, id)
  return data
}

function isSkippedRecord(value: unknown): boolean {
  const record = value as { kind?: unknown, problem?: unknown, raw?: unknown } | null
  return typeof record === 'object' && record !== null && typeof record.kind === 'string' && typeof record.problem === 'string' && typeof record.raw === 'string'
}

function parseBody(text: string): unknown {
  if (text === '')
    return undefined
  try {
    return JSON.parse(text)
  }
  catch {
    return undefined
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null || !SECONDS.test(header.trim()))
    return undefined
  return Number(header) * 1000
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')
}

function describe(error: unknown): string {
  if (!(error instanceof Error))
    return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.message}${cause}`
}
