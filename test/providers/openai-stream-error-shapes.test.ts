/**
 * A streamed message whose `error` is not an object with a short string
 * `message`: the `openai` client's `APIError` then takes, as its text, the
 * error itself written as JSON (a string, a list, an object without a
 * message) or the message written as JSON (a message that is an object).
 * Of megabytes, that text became the run's error whole, and with it its
 * logs and telemetry. Both wires read messages this way.
 */

import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

const BIG = 'x'.repeat(5_000_000)

describe('an error of megabytes in a streamed message', () => {
  it.each<[string, unknown, string]>([
    ['a string', BIG, '"xxx'],
    ['a list', Array.from({ length: 1_000_000 }).fill(1), '[1,1,1'],
    ['an object without a message', { type: 'server_error', detail: BIG }, '{"type":"server_error","detail":"xxx'],
    ['an object whose message is an object', { type: 'server_error', message: { detail: BIG } }, '{"detail":"xxx'],
  ])('that is %s: its text is cut to 4,096 characters with its length (Chat Completions)', async (_name, error, start) => {
    fake.enqueue({ type: 'chunks', chunks: [{ error }], done: false })
    const failure = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'k' }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(failure).toBeInstanceOf(ClassifiedError)
    expect(failure).toMatchObject({ kind: 'server', retryable: true })
    expect(failure.message.length).toBeLessThan(5000)
    expect(failure.message.startsWith(start)).toBe(true)
    expect(failure.message).toMatch(/… \(\d+ characters\)$/)
  })

  it('the same on the Responses wire, and a small error keeps its text as the client writes it', async () => {
    fake.enqueue({ type: 'sse', events: [{ event: 'error', data: { error: BIG } }] })
    const provider = openai({ api: 'responses', baseURL: fake.url, apiKey: 'k' })
    const failure = await rejectionOf(provider.stream(chatOptions(), recordCallbacks().callbacks))
    expect(failure).toBeInstanceOf(ClassifiedError)
    expect(failure.message).toBe(`"${'x'.repeat(4095)}… (5000002 characters)`)

    fake.enqueue({ type: 'sse', events: [{ event: 'error', data: { error: { type: 'server_error', detail: 'small' } } }] })
    const small = await rejectionOf(provider.stream(chatOptions(), recordCallbacks().callbacks))
    expect(small.message).toBe('{"type":"server_error","detail":"small"}')
  })
})
