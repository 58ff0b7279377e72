/**
 * The parts of error classification that do not depend on a vendor's SDK or
 * error vocabulary: which kinds trying again can help, and what an HTTP status
 * says on its own. Each provider's classifier reads its own body codes first
 * (a status can hide a different failure) and falls back to these.
 */

import type { ClassifiedErrorKind } from '../../errors'
import { matchesContextExceeded } from '../../errors'

/** Kinds worth another attempt: the same request may succeed once the server recovers or the limit resets. */
export const RETRYABLE_KINDS: ReadonlySet<ClassifiedErrorKind> = new Set(['rate_limit', 'overloaded', 'server', 'network', 'timeout'])

/** Whether an error of `kind` may succeed when tried again. */
export function isRetryableKind(kind: ClassifiedErrorKind): boolean {
  return RETRYABLE_KINDS.has(kind)
}

/**
 * The kind an HTTP status means when the body names nothing more precise.
 * `message` tells a context overflow from another bad request, since every
 * vendor answers both with a 400 (some with 413 or 422).
 */
export function kindForStatus(status: number, message: string): ClassifiedErrorKind {
  switch (status) {
    case 429: return 'rate_limit'
    case 408: return 'timeout'
    case 401:
    case 403: return 'auth'
    case 402: return 'quota'
    case 404: return 'not_found'
    case 529: return 'overloaded'
    case 400:
    case 413:
    case 422: return matchesContextExceeded(message) ? 'context_exceeded' : 'invalid_request'
  }
  if (status >= 500)
    return 'server'
  return 'invalid_request'
}
