import type { ClassifiedError } from '../../src/errors'
import type { FakeOpenAI, FakeOpenAIResponse } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesErrorEvent, responsesEvents, responsesEventsWithoutEnd, responsesFailedEvent } from '../support/openai-responses-sse'
import { recordCallbacks, rejectionOf, responsesOptions, streamAgainst } from './openai-responses-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

async function failWith(reply: FakeOpenAIResponse): Promise<ClassifiedError> {
  fake.enqueue(reply)
  const error = await rejectionOf(streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks))
  expect(error.name).toBe('ClassifiedError')
  expect(error.provider).toBe('openai')
  return error
}

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, code, param: null } }
}

describe('hTTP errors', () => {
  it('429 is a retryable rate limit that honours retry-after', async () => {
    const error = await failWith({ type: 'error', status: 429, headers: { 'retry-after': '3' }, body: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded') })
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 3000 })
  })

  it('429 insufficient_quota is a final quota failure', async () => {
    const error = await failWith({ type: 'error', status: 429, body: errorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') })
    expect(error).toMatchObject({ kind: 'quota', retryable: false })
  })

  it('500 is a retryable server error', async () => {
    const error = await failWith({ type: 'error', status: 500, body: errorBody('The server had an error', 'server_error', null) })
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 500 })
  })

  it('400 context_length_exceeded is context_exceeded, never retried', async () => {
    const error = await failWith({ type: 'error', status: 400, body: errorBody('Your input exceeds the context window of this model.', 'invalid_request_error', 'context_length_exceeded') })
    expect(error).toMatchObject({ kind: 'context_exceeded', retryable: false })
  })

  it('sends exactly one request per stream(): the agent loop owns retries', async () => {
    await failWith({ type: 'error', status: 500 })
    expect(fake.requests).toHaveLength(1)
  })
})

describe('failures inside the stream', () => {
  it('an error event after some text is classified by its code, after the text arrived', async () => {
    const head = responsesEventsWithoutEnd({ text: ['Par', 'tial'] })
    fake.enqueue({ type: 'sse', events: [...head, responsesErrorEvent('server_error', 'An error occurred while processing your request.')] })
    const recorded = recordCallbacks()
    const error = await rejectionOf(streamAgainst(fake, responsesOptions(), recorded.callbacks))
    expect(recorded.texts).toEqual(['Par', 'tial'])
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: undefined })
  })

  it.each([
    ['rate_limit_exceeded', 'rate_limit', true],
    ['server_is_overloaded', 'overloaded', true],
    ['context_length_exceeded', 'context_exceeded', false],
    ['invalid_prompt', 'invalid_request', false],
    ['invalid_image_format', 'invalid_request', false],
    [null, 'server', true],
  ] as const)('an error event with code %s is %s', async (code, kind, retryable) => {
    const error = await failWith({ type: 'sse', events: [responsesErrorEvent(code, 'boom')] })
    expect(error).toMatchObject({ kind, retryable })
  })

  it('response.failed carries the response error', async () => {
    const head = responsesEventsWithoutEnd({ text: 'x' })
    const error = await failWith({ type: 'sse', events: [...head, responsesFailedEvent('rate_limit_exceeded', 'Slow down')] })
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, message: 'Slow down' })
  })

  it('a stream that ends without a terminal event is a retryable network error', async () => {
    const error = await failWith({ type: 'sse', events: responsesEventsWithoutEnd({ text: 'cut' }) })
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })
})

describe('aborts', () => {
  it('an abort while waiting for the response is kind aborted', async () => {
    const controller = new AbortController()
    await fake.close()
    fake = await startFakeOpenAI({
      fallback: () => {
        controller.abort()
        return { type: 'stall-before-headers' }
      },
    })
    const error = await rejectionOf(streamAgainst(fake, responsesOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toMatchObject({ name: 'ClassifiedError', kind: 'aborted', retryable: false })
    expect(fake.requests).toHaveLength(1)
  })

  it('an abort mid-stream stops the turn at once: no later event is forwarded', async () => {
    fake.enqueue({ type: 'sse', events: responsesEvents({ text: ['first', 'second'], toolCalls: [{ name: 'ls', input: {} }] }) })
    const controller = new AbortController()
    const recorded = recordCallbacks()
    const onText = recorded.callbacks.onText
    recorded.callbacks.onText = (delta) => {
      onText(delta)
      controller.abort()
    }
    const error = await rejectionOf(streamAgainst(fake, responsesOptions({ signal: controller.signal }), recorded.callbacks))
    expect(error).toMatchObject({ name: 'ClassifiedError', kind: 'aborted', retryable: false })
    expect(recorded.texts).toEqual(['first'])
    expect(recorded.toolStarts).toEqual([])
  })

  it('an already aborted signal fails before any request', async () => {
    const controller = new AbortController()
    controller.abort()
    fake.enqueue({ type: 'sse', events: responsesEvents({ text: 'never' }) })
    const error = await rejectionOf(streamAgainst(fake, responsesOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
    expect(fake.requests).toHaveLength(0)
  })
})
