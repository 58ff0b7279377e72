/**
 * The HTTP protocol between `createRemoteStore` (client) and
 * `createSessionStoreHandler` (server). Paths are relative to the store's base
 * URL; bodies are JSON; ids in paths are URI-encoded.
 *
 * | request                              | body                              | success                  |
 * |--------------------------------------|-----------------------------------|--------------------------|
 * | `GET    /sessions`                   |                                   | 200 `{ ids: string[] }`  |
 * | `POST   /sessions`                   | `{ id?, createdAt, metadata? }`   | 201 `SessionData`        |
 * | `GET    /sessions/{id}[?onCorrupt=skip]` |                               | 200 `SessionData`        |
 * | `DELETE /sessions/{id}`              |                                   | 204                      |
 * | `POST   /sessions/{id}/turns`        | `{ turns: SessionTurn[], owner? }` | 204                     |
 * | `PUT    /sessions/{id}/runs/{runId}` | `{ run: SessionRun, owner? }`     | 204                      |
 * | `POST   /sessions/{id}/lease`        | `{ owner, ttlMs, pid?, hostname? }` | 200 `SessionLease`     |
 * | `PUT    /sessions/{id}/lease`        | `{ owner, ttlMs }` (renew)        | 200 `SessionLease`       |
 * | `DELETE /sessions/{id}/lease/{owner}` |                                  | 204                      |
 *
 * Failures answer `{ error: { code, message, record? } }`, where `code` is a
 * `SessionStoreError` code or one of the protocol's own (`bad_request`,
 * `unauthorized`, `no_route`, `method_not_allowed`, `too_large`), and
 * `record` places a `corrupt` record. `?onCorrupt=skip` loads with broken
 * records skipped and listed in `skipped`. A write or lease request the
 * session's lease refuses answers 409 with code `leased`, the refusal's
 * `reason` (`held` or `lost`) and the `lease` that stands in the way; the
 * client throws it as `SessionLeaseError`. `owner` on a write names the
 * writer's lease (see `SessionStore.acquireLease`).
 *
 * Every write carries an `Idempotency-Key` header, the same on each retry of
 * one call. The server runs a key once and answers its retries with the first
 * outcome (a failure of the server itself, 5xx, is not remembered), so a
 * retried append whose first response was lost cannot store its turns twice.
 * The server remembers a bounded number of recent keys, in memory.
 */

import type { SessionLease, SessionRecordLocation } from '../../errors'
import { mergeObjects } from '../../core/merge-objects'
import { SessionLeaseError, SessionStoreError } from '../../errors'
import { truncateText } from '../../text/truncate'

export const IDEMPOTENCY_HEADER = 'idempotency-key'

export type StoreErrorCode = SessionStoreError['code']
export type ProtocolErrorCode = 'bad_request' | 'unauthorized' | 'no_route' | 'method_not_allowed' | 'too_large' | 'leased'

export interface ErrorBody {
  error: {
    code: StoreErrorCode | ProtocolErrorCode
    message: string
    record?: SessionRecordLocation
    /** For `leased`: why the lease refused, and the lease in the way. */
    reason?: SessionLeaseError['reason']
    lease?: SessionLease
  }
}

const STATUS_OF_CODE: Record<StoreErrorCode | ProtocolErrorCode, number> = {
  invalid_id: 400,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  no_route: 404,
  method_not_allowed: 405,
  exists: 409,
  too_large: 413,
  leased: 409,
  corrupt: 500,
  unsupported_version: 500,
  io: 500,
  http: 502,
}

export function statusOfCode(code: StoreErrorCode | ProtocolErrorCode): number {
  return STATUS_OF_CODE[code]
}

/** Store error codes a client rethrows as is; the protocol's own codes become `http`. */
const STORE_CODES = new Set<string>(['not_found', 'exists', 'invalid_id', 'corrupt', 'unsupported_version', 'io'])

export function isStoreErrorCode(code: unknown): code is StoreErrorCode {
  return typeof code === 'string' && STORE_CODES.has(code)
}

/**
 * One path segment. A lone surrogate (broken UTF-16) has no UTF-8 a URL can
 * carry: the request is refused with a `TypeError` naming the field, as other
 * malformed requests are, not the bare `URIError` of `encodeURIComponent`.
 */
function segment(value: string, field: string): string {
  try {
    return encodeURIComponent(value)
  }
  catch {
    throw new TypeError(`A remote session store cannot send ${field} ${JSON.stringify(value.length > 80 ? `${truncateText(value, 80)}…` : value)}: it holds a lone surrogate (broken UTF-16), which a URL cannot carry`)
  }
}

/** Paths of the protocol, relative to the base URL. */
export const paths = {
  sessions: () => '/sessions',
  session: (id: string) => `/sessions/${segment(id, 'the session id')}`,
  turns: (id: string) => `/sessions/${segment(id, 'the session id')}/turns`,
  run: (id: string, runId: string) => `/sessions/${segment(id, 'the session id')}/runs/${segment(runId, 'the run id')}`,
  lease: (id: string) => `/sessions/${segment(id, 'the session id')}/lease`,
  leaseOf: (id: string, owner: string) => `/sessions/${segment(id, 'the session id')}/lease/${segment(owner, 'the lease owner')}`,
}

export function errorBody(error: unknown): { status: number, body: ErrorBody } {
  if (error instanceof SessionLeaseError)
    return { status: statusOfCode('leased'), body: { error: { code: 'leased', message: error.message, reason: error.reason, ...(error.holder ? { lease: error.holder } : {}) } } }
  if (error instanceof SessionStoreError)
    return { status: statusOfCode(error.code), body: { error: { code: error.code, message: error.message, ...(error.record ? { record: error.record } : {}) } } }
  const message = error instanceof Error ? error.message : String(error)
  return { status: 500, body: { error: { code: 'io', message } } }
}

/** The client's side of a `leased` answer: the same `SessionLeaseError` the server's store threw. */
export function leaseErrorOf(body: ErrorBody['error'], sessionId: string, owner: string | undefined): SessionLeaseError {
  const reason = body.reason === 'lost' ? 'lost' : 'held'
  const lease = body.lease
  const holder = typeof lease?.owner === 'string' && typeof lease.expiresAt === 'number'
    ? {
        sessionId,
        owner: lease.owner,
        expiresAt: lease.expiresAt,
        ...(typeof lease.pid === 'number' ? { pid: lease.pid } : {}),
        ...(typeof lease.hostname === 'string' ? { hostname: lease.hostname } : {}),
      }
    : undefined
  return new SessionLeaseError(sessionId, reason, mergeObjects(holder ? { holder } : {}, owner === undefined ? {} : { owner }))
}
