/**
 * Anthropic SDK failures → `ClassifiedError`. The loop owns retries, so the
 * only job here is to say what happened, whether trying again can help, and
 * how long the server asked us to wait.
 */

import type { ClassifiedErrorKind } from '../../errors'
// The error classes alone: the package root would load the whole SDK.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '#anthropic-sdk/error'
import { mergeObjects } from '../../core/merge-objects'
import { ClassifiedError, matchesContextExceeded, OAuthRefreshError } from '../../errors'
import { parseRetryAfter } from '../retry-after'
import { isRetryableKind, kindForStatus } from '../shared/error-classification'
import { connectionFailureMessage, isAbortError, isNetworkFailure, messageOf } from '../transport-errors'

export const PROVIDER_NAME = 'anthropic'

interface Classification {
  kind: ClassifiedErrorKind
  retryable: boolean
}

function classification(kind: ClassifiedErrorKind): Classification {
  return { kind, retryable: isRetryableKind(kind) }
}

/** Error `type`s from Anthropic's error bodies and mid-stream `error` events. */
const KIND_BY_ERROR_TYPE: ReadonlyMap<string, ClassifiedErrorKind> = new Map([
  ['overloaded_error', 'overloaded'],
  ['rate_limit_error', 'rate_limit'],
  ['api_error', 'server'],
  ['timeout_error', 'timeout'],
  ['authentication_error', 'auth'],
  ['permission_error', 'auth'],
  ['billing_error', 'quota'],
  ['not_found_error', 'not_found'],
  ['invalid_request_error', 'invalid_request'],
])

/**
 * Classify anything `messages.create` or the stream iteration threw. Pass the
 * request's signal: once it is aborted every failure is an abort, whatever
 * shape the SDK gave it. `url`, the endpoint the request went to, is named in
 * connection failures and kept on every error.
 */
export function classifyAnthropicError(error: unknown, signal?: AbortSignal, url?: string): ClassifiedError {
  // Checked first: an aborted stream may also end early or fail in any other way on its way down.
  if (signal?.aborted || isSdkError(error, APIUserAbortError) || isAbortError(error))
    return make('The request was aborted', { kind: 'aborted', retryable: false }, error, { url })
  if (error instanceof ClassifiedError)
    return error
  // The token endpoint, not the API, failed: a refusal or a malformed answer is an auth failure a retry cannot fix.
  if (error instanceof OAuthRefreshError)
    return make(error.message, classification(refreshFailureKind(error)), error, { status: error.status })
  // The SDK says only `Connection error.`; the message names who and where, and what the socket said.
  if (isSdkError(error, APIConnectionTimeoutError))
    return make(connectionFailureMessage('timeout', PROVIDER_NAME, url, error), classification('timeout'), error, { url })
  if (isSdkError(error, APIConnectionError))
    return make(connectionFailureMessage('network', PROVIDER_NAME, url, error), classification('network'), error, { url })
  if (isSdkError(error, APIError))
    return classifyApiError(error, url)
  if (isNetworkFailure(error))
    return make(connectionFailureMessage('network', PROVIDER_NAME, url, error), classification('network'), error, { url })
  return make(messageOf(error), { kind: 'unknown', retryable: false }, error, { url })
}

/**
 * Whether `error` is an instance of the SDK error class `type`, made by either
 * build of the SDK. Under Node zidane loads the SDK's CommonJS build (package.json
 * "imports"), while a host's own `import` of the SDK gets its ES modules: two
 * copies of each class, so `instanceof` alone would miss an error the host's
 * copy made and handed to `classifyAnthropicError`. The other copy is known by
 * its class names, `AnthropicError` at the root of the chain. A bundle loads one
 * copy (and may rename classes), which `instanceof` covers.
 */
function isSdkError<T>(error: unknown, type: abstract new (...args: never[]) => T): error is T {
  if (error instanceof type)
    return true
  if (typeof error !== 'object' || error === null)
    return false
  let named = false
  for (let proto: object | null = Object.getPrototypeOf(error); proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    if (name === type.name)
      named = true
    else if (name === 'AnthropicError')
      return named
  }
  return false
}

function classifyApiError(error: APIError, url: string | undefined): ClassifiedError {
  // The SDK takes `error.message` from the body whatever its type; an object there would fail the text checks below.
  const message = typeof error.apiMessage === 'string' ? error.apiMessage : messageOf(error)
  const status = error.status
  const byType = error.type ? KIND_BY_ERROR_TYPE.get(error.type) : undefined
  const retryAfterMs = error.headers ? parseRetryAfter(error.headers) : undefined

  let kind: ClassifiedErrorKind
  if (byType === 'overloaded' || status === 529)
    kind = 'overloaded'
  else if (byType === 'quota' || status === 402)
    kind = 'quota'
  else if (status !== undefined)
    kind = kindForStatus(status, message)
  else if (byType === 'invalid_request')
    kind = matchesContextExceeded(message) ? 'context_exceeded' : 'invalid_request'
  else
    kind = byType ?? 'unknown'

  return make(message, classification(kind), error, { status, retryAfterMs, url })
}

function refreshFailureKind(error: OAuthRefreshError): ClassifiedErrorKind {
  if (error.reason === 'timeout' || error.reason === 'network')
    return error.reason
  if (error.reason === 'http' && error.status !== undefined && error.status >= 500)
    return 'server'
  return 'auth'
}

/** The key is checked before any request, so its absence never reaches the network. */
export function missingApiKeyError(): ClassifiedError {
  return new ClassifiedError('No Anthropic API key: pass `apiKey` to anthropic() or set ANTHROPIC_API_KEY', {
    kind: 'auth',
    retryable: false,
    provider: PROVIDER_NAME,
  })
}

/** A stream that ended without `message_stop` was cut off on the way. */
export function truncatedStreamError(): ClassifiedError {
  return new ClassifiedError('The Anthropic stream ended before message_stop', {
    kind: 'network',
    retryable: true,
    provider: PROVIDER_NAME,
  })
}

/** A request the provider cannot express (audio, unresolved refs…), refused before anything is sent. */
export function unsupportedContentError(what: string): ClassifiedError {
  return new ClassifiedError(`Anthropic does not accept ${what}`, {
    kind: 'unsupported',
    retryable: false,
    provider: PROVIDER_NAME,
  })
}

function make(message: string, how: Classification, cause: unknown, extra: { status?: number, retryAfterMs?: number, url?: string } = {}): ClassifiedError {
  return new ClassifiedError(message, mergeObjects(how, extra, { provider: PROVIDER_NAME, cause }))
}
