import { sep } from 'node:path'
import { flatUUID } from '../../core/clock'
import { SessionStoreError } from '../../errors'
import { truncateText } from '../../text/truncate'

/**
 * Every store accepts the same ids, so a session can move from one store to
 * another. The rule is the file store's: an id becomes a file name, so it is
 * 1 to 128 characters of letters, digits, `_`, `-` and `.`, and it does not
 * start with a dot (no `.`, `..` or hidden files). Minted ids are UUIDs.
 */
const SESSION_ID = /^[\w-][\w.-]{0,127}$/

export function isValidSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id)
}

/** Throw `SessionStoreError('invalid_id')` unless `id` follows the rule above. */
export function assertSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) {
    const shown = typeof id === 'string' ? JSON.stringify(truncateText(id, 80)) : typeof id
    throw new SessionStoreError(
      `Invalid session id ${shown}: use 1-128 letters, digits, "_", "-" or "." (not starting with ".")`,
      'invalid_id',
      { sessionId: typeof id === 'string' ? id : undefined },
    )
  }
}

/** The id of a new session: the caller's when given (validated), else a fresh UUID. */
export function sessionIdFor(requested: string | undefined): string {
  if (requested === undefined)
    return flatUUID()
  assertSessionId(requested)
  return requested
}

/**
 * The file of a session in `dir` (an absolute path, as `path.resolve` gives
 * it): `<dir>/<id><suffix>`. A store names a file on every write, and
 * `path.join` normalizes the whole path each time; a valid id holds no
 * separator and no `.` or `..` segment, so joining by hand gives the same path.
 */
export function sessionFileNamer(dir: string): (id: string, suffix: string) => string {
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`
  return (id, suffix) => `${prefix}${id}${suffix}`
}
