import type { FakeOpenAI, FakeOpenAIResponse } from '../support/fake-openai'
import { APIConnectionError, APIConnectionTimeoutError } from 'openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { classifyChatError, parseRetryAfter } from '../../src/providers/openai-chat'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await fake.close()
})

async function failWith(response: FakeOpenAIResponse, options = chatOptions()): Promise<ClassifiedError> {
  fake.enqueue(response)
  const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks))
  expect(error).toBeInstanceOf(ClassifiedError)
  expect(error.provider).toBe('openai')
  return error
}

function errorBody(message: string, type: string, code: string | number | null = null) {
  return { error: { message, type, param: null, code } }
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

  it('a 429 for an exhausted quota is a final quota failure, not a rate limit', async () => {
    const error = await failWith({ type: 'error', status: 429, body: errorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') })
    expect(error).toMatchObject({ kind: 'quota', retryable: false, status: 429 })
  })

  it.each([500, 502, 503, 504])('%i is a retryable server error', async (status) => {
    expect(await failWith({ type: 'error', status })).toMatchObject({ kind: 'server', retryable: true, status })
  })

  it('529 and an overloaded body are retryable overloads', async () => {
    expect(await failWith({ type: 'error', status: 529 })).toMatchObject({ kind: 'overloaded', retryable: true })
    expect(await failWith({ type: 'error', status: 503, body: errorBody('Overloaded', 'overloaded_error') })).toMatchObject({ kind: 'overloaded', retryable: true })
  })

  it('408 is a retryable timeout', async () => {
    expect(await failWith({ type: 'error', status: 408 })).toMatchObject({ kind: 'timeout', retryable: true })
  })

  it.each([401, 403])('%i is a final auth failure', async (status) => {
    expect(await failWith({ type: 'error', status })).toMatchObject({ kind: 'auth', retryable: false, status })
  })

  it('402 is a quota failure and 404 is not_found', async () => {
    expect(await failWith({ type: 'error', status: 402 })).toMatchObject({ kind: 'quota', retryable: false })
    expect(await failWith({ type: 'error', status: 404, body: errorBody('The model `gpt-nope` does not exist', 'invalid_request_error', 'model_not_found') })).toMatchObject({ kind: 'not_found', retryable: false })
  })

  it('a 400 whose message says the context is too long is context_exceeded, with the server\'s own message', async () => {
    const message = 'This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.'
    const error = await failWith({ type: 'error', status: 400, body: errorBody(message, 'invalid_request_error') })
    expect(error).toMatchObject({ kind: 'context_exceeded', retryable: false, status: 400, message })
  })

  it('a 400 coded context_length_exceeded is context_exceeded whatever its message', async () => {
    const error = await failWith({ type: 'error', status: 400, body: errorBody('Input too large.', 'invalid_request_error', 'context_length_exceeded') })
    expect(error.kind).toBe('context_exceeded')
  })

  it.each([400, 422])('other %is are invalid requests, never retried', async (status) => {
    const error = await failWith({ type: 'error', status, body: errorBody('tool_call_id is missing', 'invalid_request_error') })
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false })
  })

  it('keeps the SDK error as the cause and sends exactly one request per stream(): the loop owns retries', async () => {
    const error = await failWith({ type: 'error', status: 500 })
    await failWith({ type: 'error', status: 429, headers: { 'retry-after': '0' } })
    expect(error.cause).toBeInstanceOf(Error)
    expect(fake.requests).toHaveLength(2)
  })
})

describe('errors inside the stream', () => {
  it('an error chunk with a numeric code is classified by that code, after the text that did arrive', async () => {
    fake.enqueue({ type: 'mid-stream-error', turn: { text: ['Par', 'tial'] }, error: { message: 'Provider returned error', code: 502 }, afterChunks: 3 })
    const rec = recordCallbacks()
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(chatOptions(), rec.callbacks))
    expect(rec.texts).toEqual(['Par', 'tial'])
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: undefined })
  })

  it.each<[{ message: string, type?: string, code?: string | number }, string, boolean]>([
    [{ message: 'Rate limit', code: 429 }, 'rate_limit', true],
    [{ message: 'Rate limit reached', type: 'rate_limit_exceeded' }, 'rate_limit', true],
    [{ message: 'bad tool schema', type: 'invalid_request_error' }, 'invalid_request', false],
    [{ message: 'maximum context length is 8192 tokens' }, 'context_exceeded', false],
    [{ message: 'upstream died' }, 'server', true],
  ])('an error chunk %j is %s', async (error, kind, retryable) => {
    expect(await failWith({ type: 'mid-stream-error', turn: { text: 'x' }, error })).toMatchObject({ kind, retryable })
  })
})

describe('aborts and missing keys', () => {
  it('an abort while waiting for the response is kind aborted, not retryable', async () => {
    const controller = new AbortController()
    await fake.close()
    fake = await startFakeOpenAI({
      fallback: () => {
        controller.abort()
        return { type: 'stall-before-headers' }
      },
    })
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(chatOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
    expect(fake.requests).toHaveLength(1)
  })

  it('an abort in the middle of a stream is kind aborted', async () => {
    const controller = new AbortController()
    fake.enqueue({ type: 'stall-after', turn: { text: ['first', 'never'] }, chunks: 2 })
    const rec = recordCallbacks()
    rec.callbacks.onText = () => controller.abort()
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(chatOptions({ signal: controller.signal }), rec.callbacks))
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
  })

  it('an already aborted signal fails before any request', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(chatOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(fake.requests).toHaveLength(0)
  })

  it('a missing API key is a final auth error, raised without a request', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    const error = await rejectionOf(openai({ baseURL: fake.url }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'auth', retryable: false, provider: 'openai' })
    expect(error.message).toContain('OPENAI_API_KEY')
    expect(fake.requests).toHaveLength(0)
  })
})

describe('classifyChatError', () => {
  const context = { provider: 'x' }

  it('treats connection failures as retryable network errors and connection timeouts as timeouts', () => {
    expect(classifyChatError(new APIConnectionError({ message: 'Connection error.' }), context)).toMatchObject({ kind: 'network', retryable: true, provider: 'x' })
    expect(classifyChatError(new APIConnectionTimeoutError(), context)).toMatchObject({ kind: 'timeout', retryable: true })
  })

  it('recognizes a raw socket reset', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    expect(classifyChatError(new TypeError('terminated', { cause: reset }), context)).toMatchObject({ kind: 'network', retryable: true })
  })

  it('leaves anything else unknown and final, and passes classified errors through', () => {
    expect(classifyChatError(new Error('bug'), context)).toMatchObject({ kind: 'unknown', retryable: false })
    const classified = new ClassifiedError('x', { kind: 'unsupported', retryable: false })
    expect(classifyChatError(classified, context)).toBe(classified)
  })

  it('calls every failure an abort once the signal is aborted', () => {
    const controller = new AbortController()
    controller.abort()
    expect(classifyChatError(new Error('socket closed'), { ...context, signal: controller.signal })).toMatchObject({ kind: 'aborted' })
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-30T12:00:00Z')

  it('reads an HTTP date relative to now, fractional seconds, and ignores what it cannot read', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 12:00:05 GMT' }), now)).toBe(5000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 11:59:00 GMT' }), now)).toBe(0)
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined()
  })
})
