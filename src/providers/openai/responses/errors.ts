/**
 * Responses API failures → `ClassifiedError`. Three shapes reach us: errors
 * the SDK throws (HTTP, connection, abort), and `error` and `response.failed`
 * events inside the stream, which carry a code from this API's own list. Each
 * is reduced to a kind and whether trying again can help; the loop decides.
 */

import type { ClassifiedErrorKind } from '../../../errors'
import { ClassifiedError, matchesContextExceeded } from '../../../errors'
import { clipEcho } from '../../../text/clip-echo'
import { isRetryableKind } from '../../shared/error-classification'
import { classifyOpenAISdkError } from '../../shared/openai-sdk-errors'

/** Codes of `error` / `response.failed` events. Anything `invalid_…` or about images is the request's fault. */
const KIND_BY_CODE: ReadonlyMap<string, ClassifiedErrorKind> = new Map([
  ['rate_limit_exceeded', 'rate_limit'],
  ['insufficient_quota', 'quota'],
  ['server_error', 'server'],
  ['internal_error', 'server'],
  ['server_is_overloaded', 'overloaded'],
  ['overloaded', 'overloaded'],
  ['context_length_exceeded', 'context_exceeded'],
  ['invalid_api_key', 'auth'],
  ['model_not_found', 'not_found'],
  ['bio_policy', 'invalid_request'],
  ['data_residency_mismatch', 'invalid_request'],
])

/**
 * Classify anything `responses.create` or the stream iteration threw. HTTP,
 * connection and abort failures look the same for every API of the family, so
 * the shared `openai` SDK classifier decides them; once the request's signal is
 * aborted every failure is an abort (the SDK even ends an aborted stream quietly).
 * `url`, the endpoint the request went to, is named in connection failures.
 */
export function classifyResponsesError(error: unknown, provider: string, signal?: AbortSignal, url?: string): ClassifiedError {
  return classifyOpenAISdkError(error, { provider, signal, url })
}

/**
 * The longest failure message taken from a stream event (4 Ki characters):
 * far above a real one (a sentence), while a server's megabytes would reach
 * the run's error, its logs and its telemetry. HTTP error bodies are cut
 * before the SDK reads them (`capped-error-body.ts`); an event is only cut by
 * the stream's own limits.
 */
const MAX_FAILURE_MESSAGE_CHARS = 4096

/** The longest failure code taken (codes are short identifiers, `rate_limit_exceeded`). */
const MAX_FAILURE_CODE_CHARS = 256

function kindForCode(code: string | undefined): ClassifiedErrorKind | undefined {
  if (!code)
    return undefined
  const known = KIND_BY_CODE.get(code)
  if (known)
    return known
  return code.startsWith('invalid_') || code.includes('image') ? 'invalid_request' : undefined
}

/**
 * Mid-stream failures without a recognised code are treated as server trouble:
 * the request was already accepted, so a bad request would have failed with an
 * HTTP error before the stream began.
 */
function kindForStreamMessage(message: string): ClassifiedErrorKind {
  return matchesContextExceeded(message) ? 'context_exceeded' : 'server'
}

/**
 * An `error` event or a `response.failed` event's `error`, as a classified
 * error. Both fields come from the server: a code is taken only as a short
 * string and a message only as a string, cut at `MAX_FAILURE_MESSAGE_CHARS`;
 * anything else (a number, a list, an object nested thousands deep) is read
 * as missing, so the failure is classified by what is left.
 */
export function streamFailureError(rawCode: unknown, rawMessage: unknown, provider: string): ClassifiedError {
  const code = typeof rawCode === 'string' && rawCode.length <= MAX_FAILURE_CODE_CHARS ? rawCode : undefined
  const message = typeof rawMessage === 'string' ? cutMessage(rawMessage) : undefined
  const text = message || (code ? `The response failed (${code})` : 'The response failed')
  return make(text, kindForCode(code) ?? kindForStreamMessage(text), provider, { code, message })
}

function cutMessage(message: string): string {
  return clipEcho(message, MAX_FAILURE_MESSAGE_CHARS)
}

/** A stream that ended without `response.completed` or `response.incomplete` was cut off on the way. */
export function truncatedStreamError(provider: string): ClassifiedError {
  return make('The Responses stream ended before the response completed', 'network', provider, undefined)
}

/** The caller aborted while the stream was being read. */
export function abortedError(provider: string): ClassifiedError {
  return make('The request was aborted', 'aborted', provider, undefined)
}

/** Content the API cannot take (audio, video, unresolved references), refused before anything is sent. */
export function unsupportedContentError(what: string, provider: string): ClassifiedError {
  return make(`The OpenAI Responses API does not accept ${what}`, 'unsupported', provider, undefined)
}

function make(message: string, kind: ClassifiedErrorKind, provider: string, cause: unknown): ClassifiedError {
  return new ClassifiedError(message, { kind, retryable: isRetryableKind(kind), provider, cause })
}
