/**
 * Token counts come from the server or a gateway in front of it. A count
 * that is a string, negative, an object or absurdly large used to reach the
 * run's totals as it came: on the Anthropic and Responses wires a string
 * `"100"` made the run's input total the text `"0100"`, and a count past
 * 2^53 made sums inexact and budgets meaningless. Each count is now taken
 * only as a number from 0 to `Number.MAX_SAFE_INTEGER`; anything else counts
 * as 0 (or, for the optional reasoning count, as absent).
 */

import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { optionalTokenCount, tokenCount } from '../../src/providers/shared/token-count'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { anthropicEvents } from '../support/sse'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** The run's totals and its one turn's usage, each count checked to be a finite number. */
function expectNumericUsage(stats: { totalIn: number, totalOut: number, totalCacheRead: number, totalCacheCreation: number, cost?: number, turnUsage?: object[] }): void {
  const counts: Record<string, unknown> = { totalIn: stats.totalIn, totalOut: stats.totalOut, totalCacheRead: stats.totalCacheRead, totalCacheCreation: stats.totalCacheCreation, cost: stats.cost ?? 0 }
  for (const [key, value] of Object.entries(stats.turnUsage?.[0] ?? {})) {
    if (['input', 'output', 'cacheRead', 'cacheCreation', 'thinking', 'cost'].includes(key))
      counts[`turn ${key}`] = value
  }
  for (const [key, value] of Object.entries(counts))
    expect(Number.isFinite(value), `${key}: ${JSON.stringify(value)}`).toBe(true)
}

describe('token counts a server reports', () => {
  it('anthropic: a string, a negative, an object and a count past 2^53 count as 0; valid counts are kept', async () => {
    const fake: FakeAnthropic = await startFakeAnthropic()
    closers.push(() => fake.close())
    const events = anthropicEvents({ text: 'hi' }) as { event: string, data: Record<string, any> }[]
    events[0].data.message.usage = { input_tokens: '100', output_tokens: { n: 1 }, cache_read_input_tokens: -5, cache_creation_input_tokens: 2 ** 60, output_tokens_details: { thinking_tokens: 'many' } }
    const delta = events.find(event => event.event === 'message_delta')!
    delta.data.usage = { output_tokens: 7 }
    fake.enqueue({ type: 'sse', events: events as never })
    const stats = await createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }) }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(stats).toMatchObject({ totalIn: 0, totalOut: 7, totalCacheRead: 0, totalCacheCreation: 0 })
    expect(stats.turnUsage![0].thinking).toBeUndefined()
    expectNumericUsage(stats)
  })

  it('responses: the same', async () => {
    const fake: FakeOpenAI = await startFakeOpenAI()
    closers.push(() => fake.close())
    const events = responsesEvents({ text: 'hi' }) as { event: string, data: Record<string, any> }[]
    const done = events.find(event => event.event === 'response.completed')!
    done.data.response.usage = { input_tokens: '100', output_tokens: -3, input_tokens_details: { cached_tokens: 2 ** 60 }, output_tokens_details: { reasoning_tokens: { n: 1 } } }
    fake.enqueue({ type: 'sse', events: events as never })
    const stats = await createAgent({ provider: openai({ api: 'responses', apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2' }) }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(stats).toMatchObject({ totalIn: 0, totalOut: 0, totalCacheRead: 0 })
    expect(stats.turnUsage![0].thinking).toBeUndefined()
    expectNumericUsage(stats)
  })

  it('chat completions: a reasoning count that is no count is left out', async () => {
    const fake: FakeOpenAI = await startFakeOpenAI()
    closers.push(() => fake.close())
    fake.enqueue({ type: 'chunks', chunks: [
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-5.2', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] },
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-5.2', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: -1 } } },
    ] })
    const stats = await createAgent({ provider: openai({ apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2' }) }).run({ prompt: 'go' })
    expect(stats).toMatchObject({ totalIn: 10, totalOut: 2 })
    expect(stats.turnUsage![0].thinking).toBeUndefined()
  })

  it('tokenCount and optionalTokenCount take only numbers from 0 to 2^53 - 1', () => {
    for (const value of ['1', -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, null, undefined, {}, [3], true])
      expect([tokenCount(value), optionalTokenCount(value)]).toEqual([0, undefined])
    for (const value of [0, 1, 12.5, Number.MAX_SAFE_INTEGER])
      expect([tokenCount(value), optionalTokenCount(value)]).toEqual([value, value])
  })
})
