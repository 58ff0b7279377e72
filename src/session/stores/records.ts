import type { SessionRun } from '../types'
import { SessionLeaseError, SessionStoreError } from '../../errors'
import { SESSION_FORMAT_VERSION } from '../types'

/**
 * Copy a value the way a persistent store would: through JSON. The memory
 * store uses it too, so every store drops `undefined` fields and rejects
 * values JSON cannot hold (cycles, BigInt) in the same way.
 */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/**
 * Insert `run`, or replace the run with the same id in place: runs stay in
 * the order they were first saved, which is start order.
 */
export function upsertRun(runs: SessionRun[], positions: Map<string, number>, run: SessionRun): void {
  const at = positions.get(run.id)
  if (at === undefined) {
    positions.set(run.id, runs.length)
    runs.push(run)
  }
  else {
    runs[at] = run
  }
}

/**
 * Check the format version of stored data: newer than this build can read is
 * `unsupported_version`, anything that is not a version at all is `corrupt`.
 */
export function assertReadableVersion(version: unknown, sessionId: string): void {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    throw new SessionStoreError(`Session "${sessionId}" has no valid format version`, 'corrupt', { sessionId })
  if (version > SESSION_FORMAT_VERSION) {
    throw new SessionStoreError(
      `Session "${sessionId}" was written in format v${version}; this build reads up to v${SESSION_FORMAT_VERSION}`,
      'unsupported_version',
      { sessionId },
    )
  }
}

/** Wrap an unexpected failure (file system, database) as `SessionStoreError('io')`. */
export function ioError(action: string, sessionId: string | undefined, cause: unknown): Error {
  // A lease refusal is a typed answer, not an I/O failure: it passes as it is.
  if (cause instanceof SessionStoreError || cause instanceof SessionLeaseError)
    return cause
  const reason = cause instanceof Error ? cause.message : String(cause)
  const subject = sessionId === undefined ? '' : ` session "${sessionId}"`
  return new SessionStoreError(`Could not ${action}${subject}: ${reason}`, 'io', { sessionId, cause })
}
