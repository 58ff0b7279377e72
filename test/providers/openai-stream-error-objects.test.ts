/**
 * A streamed message carrying `error` is thrown as the `openai` client's
 * `APIError`, whose constructor writes the error out with `JSON.stringify`.
 * An error nested 20,000 levels deep overflowed the stack there, and the
 * turn failed for good (kind `unknown`, `Maximum call stack size exceeded`);
 * a message of megabytes was carried whole. Both wires read messages this way.
 */

import type { FakeOpenAI, FakeOpenAIResponse } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { ClassifiedError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

/** The JSON text of a message whose `error` is `levels` objects deep (written as text: `JSON.stringify` cannot go that deep). */
function deepErrorText(levels: number): string {
  return `{"error":${'{"inner":'.repeat(levels)}{"message":"bottom"}${'}'.repeat(levels)}}`
}

const deepError: FakeOpenAIResponse = { type: 'chunks', chunks: [deepErrorText(20_000)], done: false }

describe('an error object in a streamed message', () => {
  it('nested 20,000 levels deep: a retryable server error, and the next attempt goes on (Chat Completions)', async () => {
    fake.enqueue(deepError)
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'k' }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, message: 'openai streamed an error nested more than 100 levels deep; the turn was not recorded' })

    fake.enqueue(deepError, { type: 'turn', turn: { text: 'recovered' } })
    const agent = createAgent({ provider: openai({ baseURL: fake.url, apiKey: 'k', defaultModel: 'gpt-5.2' }), behavior: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect([stats.stopReason, stats.text]).toEqual(['completed', 'recovered'])
  })

  it('the same on the Responses wire', async () => {
    fake.enqueue({ type: 'sse', events: [{ data: deepErrorText(20_000) }] }, { type: 'sse', events: responsesEvents({ text: 'recovered' }) })
    const agent = createAgent({ provider: openai({ api: 'responses', baseURL: fake.url, apiKey: 'k', defaultModel: 'gpt-5.2' }), behavior: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect([stats.stopReason, stats.text]).toEqual(['completed', 'recovered'])
  })

  it('a message of 20 MB is cut to 4,096 characters with its length', async () => {
    fake.enqueue({ type: 'chunks', chunks: [{ error: { message: 'x'.repeat(20_000_000), type: 'server_error', code: 'boom' } }], done: false })
    const error = await rejectionOf(openai({ baseURL: fake.url, apiKey: 'k' }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.message.length).toBeLessThan(5000)
    expect(error.message).toContain('… (20000000 characters)')
  })
})
