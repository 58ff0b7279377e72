/**
 * `openai` SDK failures → `ClassifiedError`, for every API the SDK speaks
 * (the Chat Completions family and the Responses API alike: HTTP, connection
 * and abort failures look the same on both). The loop owns retries; this only
 * says what happened, whether trying again can help, and how long the server
 * asked us to wait.
 */

import type { ClassifiedErrorKind } from '../../errors'
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import { ClassifiedError, matchesContextExceeded } from '../../errors'
import { parseRetryAfter } from '../retry-after'
import { connectionFailureMessage, isAbortError, isNetworkFailure, messageOf } from '../transport-errors'
import { isRetryableKind, kindForStatus } from './error-classification'

/**
 * Error `code`s and `type`s seen in error bodies and mid-stream error chunks
 * (OpenAI, OpenRouter, vLLM, Groq, Fireworks, Cerebras). Checked before the
 * HTTP status, because a status can hide a different failure: OpenAI answers an
 * exhausted quota with 429, which must not be retried like a rate limit.
 */
const KIND_BY_CODE: ReadonlyMap<string, ClassifiedErrorKind> = new Map([
  ['insufficient_quota', 'quota'],
  ['billing_error', 'quota'],
  ['payment_required', 'quota'],
  ['context_length_exceeded', 'context_exceeded'],
  ['overloaded_error', 'overloaded'],
  ['overloaded', 'overloaded'],
  ['rate_limit_exceeded', 'rate_limit'],
  ['rate_limit_error', 'rate_limit'],
  ['too_many_requests', 'rate_limit'],
  ['server_error', 'server'],
  ['api_error', 'server'],
  ['internal_error', 'server'],
  ['internal_server_error', 'server'],
  ['service_unavailable', 'server'],
  ['timeout', 'timeout'],
  ['timeout_error', 'timeout'],
  ['request_timeout', 'timeout'],
  ['invalid_api_key', 'auth'],
  ['authentication_error', 'auth'],
  ['permission_error', 'auth'],
  ['model_not_found', 'not_found'],
  ['not_found_error', 'not_found'],
  ['invalid_request_error', 'invalid_request'],
])

/** Kinds a body code may impose whatever the status says. */
const CODE_WINS: ReadonlySet<ClassifiedErrorKind> = new Set(['quota', 'context_exceeded', 'overloaded'])

/** A three-digit code in a string, as some gateways write the status. */
const STATUS_LIKE = /^\d{3}$/

export interface ClassifyContext {
  provider: string
  /** Once it is aborted, every failure is an abort, whatever shape the SDK gave it. */
  signal?: AbortSignal
  /** The endpoint the request went to: named in connection failures, and kept on every error. */
  url?: string
}

/** Classify anything `chat.completions.create`, `responses.create` or their stream iteration threw. */
export function classifyOpenAISdkError(error: unknown, context: ClassifyContext): ClassifiedError {
  const make = (message: string, kind: ClassifiedErrorKind, extra: { status?: number, retryAfterMs?: number } = {}) =>
    new ClassifiedError(message, { kind, retryable: isRetryableKind(kind), ...extra, provider: context.provider, url: context.url, cause: error })
  // The SDK says only `Connection error.`; the message names who and where, and what the socket said.
  const unreachable = (kind: 'network' | 'timeout') => make(connectionFailureMessage(kind, context.provider, context.url, error), kind)

  if (context.signal?.aborted || error instanceof APIUserAbortError || isAbortError(error))
    return make('The request was aborted', 'aborted')
  if (error instanceof ClassifiedError)
    return error
  if (error instanceof APIConnectionTimeoutError)
    return unreachable('timeout')
  if (error instanceof APIConnectionError)
    return unreachable('network')
  if (error instanceof APIError) {
    const message = apiMessage(error)
    const retryAfterMs = error.headers ? parseRetryAfter(error.headers) : undefined
    return make(message, apiErrorKind(error, message), { status: error.status, retryAfterMs })
  }
  if (isNetworkFailure(error))
    return unreachable('network')
  return make(messageOf(error), 'unknown')
}

function apiErrorKind(error: APIError, message: string): ClassifiedErrorKind {
  const byCode = codeKind(error.code) ?? codeKind(error.type)
  if (byCode && CODE_WINS.has(byCode))
    return byCode
  if (error.status !== undefined)
    return kindForStatus(error.status, message)
  // No status: an error chunk in a stream that had already started. A numeric
  // code (OpenRouter) is the status the request would have failed with.
  const numeric = numericCode(error)
  if (numeric !== undefined)
    return kindForStatus(numeric, message)
  if (byCode === 'invalid_request' || byCode === undefined) {
    if (matchesContextExceeded(message))
      return 'context_exceeded'
    // The request was accepted and generation broke down: a server failure, unless the body says otherwise.
    return byCode ?? 'server'
  }
  return byCode
}

function codeKind(code: unknown): ClassifiedErrorKind | undefined {
  return typeof code === 'string' ? KIND_BY_CODE.get(code.toLowerCase()) : undefined
}

function numericCode(error: APIError): number | undefined {
  const code = (error.error as { code?: unknown } | undefined)?.code
  const value = typeof code === 'number' ? code : typeof code === 'string' && STATUS_LIKE.test(code) ? Number(code) : undefined
  return value !== undefined && value >= 400 && value < 600 ? value : undefined
}

/** The server's own message, without the SDK's status prefix. */
function apiMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined
  return typeof body?.message === 'string' && body.message ? body.message : error.message
}
