import type { FakeAnthropic, FakeResponse } from '../support/fake-anthropic'
import { createRequire } from 'node:module'
import { APIConnectionError } from '@anthropic-ai/sdk'
import * as esmErrors from '@anthropic-ai/sdk/core/error'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { anthropic, classifyAnthropicError, parseRetryAfter } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

let fake: FakeAnthropic

beforeEach(async () => {
  fake = await startFakeAnthropic()
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await fake.close()
})

async function failWith(response: FakeResponse, options = streamOptions()): Promise<ClassifiedError> {
  fake.enqueue(response)
  const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks))
  expect(error).toBeInstanceOf(ClassifiedError)
  expect(error.provider).toBe('anthropic')
  return error
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message } }
}

describe('hTTP errors', () => {
  it('429 is a retryable rate limit that honours retry-after in seconds', async () => {
    const error = await failWith({ type: 'error', status: 429, headers: { 'retry-after': '7' } })
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 7000 })
  })

  it('prefers the exact retry-after-ms header', async () => {
    const error = await failWith({ type: 'error', status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '60' } })
    expect(error.retryAfterMs).toBe(1500)
  })

  it('529 is a retryable overload', async () => {
    expect(await failWith({ type: 'error', status: 529 })).toMatchObject({ kind: 'overloaded', retryable: true, status: 529 })
  })

  it('an overloaded_error body is an overload whatever the status', async () => {
    const error = await failWith({ type: 'error', status: 503, body: errorBody('overloaded_error', 'Overloaded') })
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true })
  })

  it.each([500, 502, 503, 504])('%i is a retryable server error', async (status) => {
    const error = await failWith({ type: 'error', status, body: errorBody('api_error', 'Internal error') })
    expect(error).toMatchObject({ kind: 'server', retryable: true, status })
  })

  it('408 is a retryable timeout', async () => {
    expect(await failWith({ type: 'error', status: 408 })).toMatchObject({ kind: 'timeout', retryable: true })
  })

  it.each([401, 403])('%i is a final auth failure', async (status) => {
    expect(await failWith({ type: 'error', status })).toMatchObject({ kind: 'auth', retryable: false, status })
  })

  it('402 is a quota failure', async () => {
    expect(await failWith({ type: 'error', status: 402 })).toMatchObject({ kind: 'quota', retryable: false })
  })

  it('404 is not_found', async () => {
    expect(await failWith({ type: 'error', status: 404, body: errorBody('not_found_error', 'model: claude-nope') })).toMatchObject({ kind: 'not_found', retryable: false })
  })

  it('400 saying the prompt is too long is context_exceeded', async () => {
    const error = await failWith({ type: 'error', status: 400, body: errorBody('invalid_request_error', 'prompt is too long: 1048577 tokens > 1000000 maximum') })
    expect(error).toMatchObject({ kind: 'context_exceeded', retryable: false, status: 400 })
    expect(error.message).toContain('prompt is too long')
  })

  it('422 from a gateway saying the prompt is too long is context_exceeded, as on every provider', async () => {
    // The status rule is shared (see src/providers/shared/error-classification.ts); this copy used to call every 422 invalid.
    const error = await failWith({ type: 'error', status: 422, body: errorBody('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum') })
    expect(error).toMatchObject({ kind: 'context_exceeded', retryable: false, status: 422 })
  })

  it('other 422s are invalid requests', async () => {
    const error = await failWith({ type: 'error', status: 422, body: errorBody('invalid_request_error', 'tools.0.name: invalid') })
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false, status: 422 })
  })

  it('other 400s are invalid requests, never retried', async () => {
    const error = await failWith({ type: 'error', status: 400, body: errorBody('invalid_request_error', 'messages.1: tool_use ids must be unique') })
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false })
  })

  it('keeps the SDK error as the cause', async () => {
    const error = await failWith({ type: 'error', status: 500 })
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('sends exactly one request per stream(): the agent loop owns retries', async () => {
    await failWith({ type: 'error', status: 500 })
    await failWith({ type: 'error', status: 429, headers: { 'retry-after': '0' } })
    expect(fake.requests).toHaveLength(2)
  })
})

describe('errors inside the stream', () => {
  it('a mid-stream overloaded_error is a retryable overload, after the text that did arrive', async () => {
    fake.enqueue({ type: 'mid-stream-error', turn: { text: ['Par', 'tial'] }, error: { type: 'overloaded_error', message: 'Overloaded' } })
    const rec = recordCallbacks()
    const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(streamOptions(), rec.callbacks))

    expect(rec.texts).toEqual(['Par', 'tial'])
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, status: undefined })
  })

  it.each([
    ['api_error', 'server', true],
    ['rate_limit_error', 'rate_limit', true],
    ['invalid_request_error', 'invalid_request', false],
  ])('a mid-stream %s is %s', async (type, kind, retryable) => {
    const error = await failWith({ type: 'mid-stream-error', turn: { text: 'x' }, error: { type, message: 'boom' } })
    expect(error).toMatchObject({ kind, retryable })
  })
})

describe('aborts and missing keys', () => {
  it('an abort while waiting for the response is kind aborted, not retryable', async () => {
    const controller = new AbortController()
    await fake.close()
    fake = await startFakeAnthropic({
      fallback: () => {
        controller.abort()
        return { type: 'stall-before-headers' }
      },
    })
    const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(streamOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
    expect(fake.requests).toHaveLength(1)
  })

  it('an abort in the middle of a stream is kind aborted', async () => {
    const controller = new AbortController()
    fake.enqueue({ type: 'stall-after', turn: { text: ['first', 'never'] }, events: 4 })
    const rec = recordCallbacks()
    rec.callbacks.onText = () => controller.abort()
    const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(streamOptions({ signal: controller.signal }), rec.callbacks))
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
  })

  it('an already aborted signal fails before any request', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(streamOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(fake.requests).toHaveLength(0)
  })

  it('a missing API key is a final auth error, raised without a request', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '')
    const error = await rejectionOf(anthropic({ baseURL: fake.url }).stream(streamOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'auth', retryable: false, provider: 'anthropic' })
    expect(fake.requests).toHaveLength(0)
  })
})

describe('classifyAnthropicError', () => {
  it('treats connection failures as retryable network errors', () => {
    const error = classifyAnthropicError(new APIConnectionError({ message: 'Connection error.' }))
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })

  // Under Node zidane loads the SDK's CommonJS build while a host's `import`
  // gets the ES modules: an error from either copy classifies the same.
  it('classifies the errors of both builds of the SDK alike', () => {
    const cjsErrors = createRequire(import.meta.url)('@anthropic-ai/sdk/core/error.js') as typeof esmErrors
    expect(cjsErrors.APIError).not.toBe(esmErrors.APIError)
    for (const errors of [esmErrors, cjsErrors]) {
      const headers = new Headers({ 'retry-after': '3' })
      expect(classifyAnthropicError(errors.APIError.generate(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, undefined, headers)))
        .toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 3000 })
      expect(classifyAnthropicError(errors.APIError.generate(401, { type: 'error', error: { type: 'authentication_error', message: 'bad key' } }, undefined, new Headers())))
        .toMatchObject({ kind: 'auth', retryable: false })
      expect(classifyAnthropicError(new errors.APIConnectionTimeoutError())).toMatchObject({ kind: 'timeout', retryable: true })
      expect(classifyAnthropicError(new errors.APIConnectionError({ message: 'Connection error.' }))).toMatchObject({ kind: 'network', retryable: true })
      expect(classifyAnthropicError(new errors.APIUserAbortError())).toMatchObject({ kind: 'aborted', retryable: false })
    }
    // A class that only shares a name with the SDK's is not taken for it.
    class APIError extends Error {
      status = 429
    }
    expect(classifyAnthropicError(new APIError('lookalike'))).toMatchObject({ kind: 'unknown', retryable: false })
  })

  it('recognizes a raw socket reset', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    expect(classifyAnthropicError(new TypeError('terminated', { cause: reset }))).toMatchObject({ kind: 'network', retryable: true })
  })

  it('leaves anything else unknown and final', () => {
    expect(classifyAnthropicError(new Error('bug'))).toMatchObject({ kind: 'unknown', retryable: false })
  })

  it('calls every failure an abort once the signal is aborted', () => {
    const controller = new AbortController()
    controller.abort()
    expect(classifyAnthropicError(new Error('socket closed'), controller.signal)).toMatchObject({ kind: 'aborted' })
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-30T12:00:00Z')

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 12:00:05 GMT' }), now)).toBe(5000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 11:59:00 GMT' }), now)).toBe(0)
  })

  it('reads fractional seconds and ignores what it cannot read', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined()
  })
})
