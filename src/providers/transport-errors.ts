/**
 * Recognizing failures below the HTTP layer (a reset socket, a refused
 * connection, an aborted fetch), which every provider classifies the same way
 * whatever SDK it uses. Depends on nothing, so it loads no SDK.
 */

/** Error codes of a connection that failed or dropped; the request may be tried again. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])

/** A connection failure, looked for in the error and up to two levels of its causes (fetch wraps them). */
export function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code))
      return true
    if (current.message === 'terminated' || current.message === 'other side closed')
      return true
  }
  return false
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError'
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
