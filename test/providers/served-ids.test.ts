/**
 * The model a provider says served a turn, and the response's id, are taken
 * from the answer only when each is a string of 1 to 256 characters. Before,
 * an Anthropic `message_start` whose `model` was a number or an object failed
 * the turn with `modelId.replace is not a function`, and a model name of
 * megabytes was stored with the turn and returned in the stats; the Responses
 * stream took any truthy value the same way.
 */

import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI, RawSseEvent } from '../support/fake-openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { MAX_SERVED_ID_CHARS } from '../../src/providers/shared/served-id'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { anthropicEvents } from '../support/sse'
import { recordCallbacks, responsesOptions, streamAgainst } from './openai-responses-fixtures'

const BAD_VALUES: [string, unknown][] = [
  ['a number', 12345],
  ['an object', { name: 'claude' }],
  ['null', null],
  ['an empty string', ''],
  ['a string of 10 million characters', 'm'.repeat(10_000_000)],
  ['a string one character over the limit', 'm'.repeat(MAX_SERVED_ID_CHARS + 1)],
]

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

describe('anthropic: the served model and the message id from message_start', () => {
  async function runWith(model: unknown, id: unknown) {
    const fake: FakeAnthropic = await startFakeAnthropic()
    closers.push(() => fake.close())
    const events = anthropicEvents({ text: 'hi' }) as { data: { message?: Record<string, unknown> } }[]
    Object.assign(events[0].data.message!, { model, id })
    fake.enqueue({ type: 'sse', events: events as never })
    const session = await createSession()
    const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }), session })
    const stats = await agent.run({ prompt: 'go' })
    return { stats, turn: session.turns.at(-1)! }
  }

  it.each(BAD_VALUES)('%s is ignored: the turn completes on the requested model', async (_name, value) => {
    const { stats, turn } = await runWith(value, value)
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('hi')
    expect(turn.usage?.modelId).toBe('claude-sonnet-4-5')
    expect(JSON.stringify(stats).length).toBeLessThan(10_000)
  })

  it('a served model within the limit is recorded as served', async () => {
    const { turn } = await runWith('claude-sonnet-4-5-20260101', 'msg_1')
    expect(turn.usage?.modelId).toBe('claude-sonnet-4-5-20260101')
  })
})

describe('responses: the served model and the response id from the lifecycle events', () => {
  function stream(model: unknown, id: unknown): RawSseEvent[] {
    const event = (type: string, body: Record<string, unknown> = {}): RawSseEvent => ({ event: type, data: { type, ...body } })
    return [
      event('response.created', { response: { id, model, status: 'in_progress' } }),
      event('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }),
      event('response.output_text.delta', { output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Done.' }),
      event('response.completed', { response: { id, model, status: 'completed', output: [], usage: { input_tokens: 3, output_tokens: 1 } } }),
    ]
  }

  async function turnWith(model: unknown, id: unknown) {
    const fake: FakeOpenAI = await startFakeOpenAI()
    closers.push(() => fake.close())
    fake.enqueue({ type: 'sse', events: stream(model, id) })
    return streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
  }

  it.each(BAD_VALUES)('%s is ignored: the requested model stands and no id is kept', async (_name, value) => {
    const result = await turnWith(value, value)
    expect(result.content).toEqual([{ type: 'text', text: 'Done.' }])
    expect(result.usage.modelId).toBe('gpt-5.2')
    expect(result.responseId).toBeUndefined()
  })

  it('a served model and id within the limit are kept', async () => {
    const result = await turnWith('gpt-5.2-2026-01-01', 'resp_1')
    expect(result.usage.modelId).toBe('gpt-5.2-2026-01-01')
    expect(result.responseId).toBe('resp_1')
  })
})
