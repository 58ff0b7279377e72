/**
 * Provider failures: the classified error a provider throws from `stream()`, the
 * final failure of a turn, the context window overflow, and a refused OAuth
 * refresh of a provider's credentials.
 */

/** What kind of failure a provider reported, independent of the vendor. */
export type ClassifiedErrorKind
  = | 'rate_limit'
    | 'overloaded'
    | 'server'
    | 'network'
    | 'timeout'
    | 'auth'
    | 'quota'
    | 'invalid_request'
    | 'context_exceeded'
    | 'not_found'
    | 'unsupported'
    | 'aborted'
    | 'unknown'

/** The facts a provider attaches to a `ClassifiedError`, read by the retry policy. */
export interface ClassifiedErrorInit {
  kind: ClassifiedErrorKind
  retryable: boolean
  status?: number
  retryAfterMs?: number
  provider?: string
  /** The endpoint the request went to, without credentials or query string. */
  url?: string
  cause?: unknown
}

/** A provider failure with the facts the retry policy needs. Providers throw these from `stream()`. */
export class ClassifiedError extends Error {
  override name = 'ClassifiedError'
  readonly kind: ClassifiedErrorKind
  readonly retryable: boolean
  readonly status?: number
  readonly retryAfterMs?: number
  readonly provider?: string
  /** The endpoint the failed request went to, when the provider knows it. */
  readonly url?: string

  constructor(message: string, init: ClassifiedErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.kind = init.kind
    this.retryable = init.retryable
    this.status = init.status
    this.retryAfterMs = init.retryAfterMs
    this.provider = init.provider
    this.url = init.url
  }
}

/** A provider turn failed for good: not retryable, or retries (and fallbacks) ran out. */
export class AgentProviderError extends Error {
  override name = 'AgentProviderError'
  readonly kind: ClassifiedErrorKind
  readonly status?: number
  readonly provider?: string
  readonly model?: string
  /** The endpoint of the last failed request, when the provider knows it. */
  readonly url?: string
  /** Attempts made on the last target, the first one included. */
  readonly attempts: number

  constructor(message: string, options: { kind: ClassifiedErrorKind, status?: number, provider?: string, model?: string, url?: string, attempts: number, cause?: unknown }) {
    super(message, { cause: options.cause })
    this.kind = options.kind
    this.status = options.status
    this.provider = options.provider
    this.model = options.model
    this.url = options.url
    this.attempts = options.attempts
  }
}

/** The request no longer fits the model's context window. */
export class AgentContextExceededError extends Error {
  override name = 'AgentContextExceededError'
  readonly provider?: string
  readonly model?: string
  constructor(message: string, options: { provider?: string, model?: string, cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.provider = options.provider
    this.model = options.model
  }
}

/**
 * Lower-case fragments that vendors use when a request is larger than the
 * context window. Matched against error messages when no structured code says so.
 */
export const CONTEXT_EXCEEDED_MESSAGE_PATTERNS: readonly string[] = Object.freeze([
  'prompt is too long',
  'context length',
  'context_length_exceeded',
  'context window',
  'maximum context length',
  'too many tokens',
  'input is too long',
  'exceeds the context',
])

/** Whether an error message says the request did not fit the context window. */
export function matchesContextExceeded(message: string | undefined | null): boolean {
  if (!message)
    return false
  const lower = message.toLowerCase()
  return CONTEXT_EXCEEDED_MESSAGE_PATTERNS.some(pattern => lower.includes(pattern))
}

/** Why an OAuth token refresh failed. */
export type OAuthRefreshFailure = 'http' | 'malformed' | 'too-large' | 'timeout' | 'network' | 'aborted'

/**
 * A provider's OAuth credentials could not be refreshed: the token endpoint
 * refused (`status`, and its OAuth `error` code when it sent one), answered
 * with something that is not a token or is too large, did not answer in time,
 * or could not be reached. The message never carries a token, and neither
 * does anything it keeps (the endpoint's body is not kept).
 */
export class OAuthRefreshError extends Error {
  override name = 'OAuthRefreshError'
  /** The provider whose credentials were being refreshed. */
  readonly provider: string
  readonly reason: OAuthRefreshFailure
  /** HTTP status of the refusal, when there was a response. */
  readonly status?: number
  /** OAuth `error` code of the refusal (`invalid_grant`, …), when one was sent. */
  readonly code?: string
  constructor(init: { provider: string, reason: OAuthRefreshFailure, message: string, status?: number, code?: string }) {
    super(init.message)
    this.provider = init.provider
    this.reason = init.reason
    if (init.status !== undefined)
      this.status = init.status
    if (init.code !== undefined)
      this.code = init.code
  }
}
