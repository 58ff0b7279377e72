import type { FakeAnthropic } from '../support/fake-anthropic'
import type { SseEvent } from '../support/sse'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentProviderError, ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { partialProvider } from './partial-provider'

// Once a turn has shown output (text, a tool call, a server-side tool), it is
// neither retried nor replayed on a fallback target: the caller would see the
// same output twice. Reasoning alone is dropped and regenerated.

const overloaded = () => new ClassifiedError('overloaded', { kind: 'overloaded', retryable: true, status: 529 })
const FAST = { maxAttempts: 3, initialDelayMs: 0 }

describe('a turn that fails after output streamed', () => {
  it('is not replayed on the next provider after text: the text reaches stream:text once', async () => {
    const primary = partialProvider('primary', [cb => cb.onText('Hello, wor')], overloaded)
    const backup = scriptedProvider([{ text: 'Hello, world' }], { name: 'backup' })
    const agent = createAgent({ provider: [primary, backup], behavior: { retry: FAST } })
    const texts: string[] = []
    const fallbacks: unknown[] = []
    agent.hooks.hook('stream:text', ({ delta }) => void texts.push(delta))
    agent.hooks.hook('model:fallback', ctx => void fallbacks.push(ctx.to))

    const error = await agent.run({ prompt: 'greet' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect((error as AgentProviderError).kind).toBe('overloaded')
    expect((error as AgentProviderError).provider).toBe('primary')
    expect((error as AgentProviderError).attempts).toBe(1)
    expect(texts).toEqual(['Hello, wor'])
    expect(primary.calls).toBe(1)
    expect(backup.requests).toHaveLength(0)
    expect(fallbacks).toEqual([])
  })

  it('is not replayed on the next provider after a tool call started', async () => {
    const primary = partialProvider('primary', [cb => cb.onToolCallStart?.({ id: 'call_1', name: 'lookup' })], overloaded)
    const backup = scriptedProvider([{ text: 'never' }], { name: 'backup' })
    const error = await createAgent({ provider: [primary, backup], behavior: { retry: FAST } }).run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(primary.calls).toBe(1)
    expect(backup.requests).toHaveLength(0)
  })

  it('is not replayed after a non-retryable failure that followed text', async () => {
    const primary = partialProvider('primary', [cb => cb.onText('partial')], () => new ClassifiedError('bad gateway', { kind: 'server', retryable: false, status: 502 }))
    const backup = scriptedProvider([{ text: 'never' }], { name: 'backup' })
    const error = await createAgent({ provider: [primary, backup] }).run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(backup.requests).toHaveLength(0)
  })

  it('with reasoning only, is retried and then falls back, reporting the reasoning as discarded', async () => {
    const primary = partialProvider('primary', [cb => cb.onThinking('let me think')], overloaded)
    const backup = scriptedProvider([{ text: 'answer' }], { name: 'backup' })
    const agent = createAgent({ provider: [primary, backup], behavior: { retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    const discarded: string[] = []
    const fallbacks: string[] = []
    agent.hooks.hook('stream:retry', ({ discardedThinking }) => void discarded.push(discardedThinking))
    agent.hooks.hook('model:fallback', ({ to }) => void fallbacks.push(to.provider))

    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('answer')
    expect(primary.calls).toBe(2)
    expect(discarded).toEqual(['let me think'])
    expect(fallbacks).toEqual(['backup'])
  })
})

describe('a turn in which a server-side tool ran (Messages API)', () => {
  let fake: FakeAnthropic
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })

  const MODEL = 'claude-sonnet-4-6'
  const messageStart: SseEvent = { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_srv', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } } }
  // The model calls web search; the API runs it, then the stream dies with an overloaded error.
  const searchThenOverloaded: SseEvent[] = [
    messageStart,
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: {} } } },
    { event: 'ping', data: { type: 'ping' } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"zidane sdk"}' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
  ]
  const answer: SseEvent[] = [
    messageStart,
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'again' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]

  it('is not retried, and not replayed on a fallback provider', async () => {
    fake.enqueue({ type: 'sse', events: searchThenOverloaded }, { type: 'sse', events: answer })
    const backup = scriptedProvider([{ text: 'never' }], { name: 'backup' })
    const agent = createAgent({
      provider: [anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL }), backup],
      behavior: { retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 } },
    })
    const retries: number[] = []
    agent.hooks.hook('stream:retry', ({ attempt }) => void retries.push(attempt))

    const error = await agent.run({ prompt: 'search the web' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect((error as AgentProviderError).kind).toBe('overloaded')
    expect(fake.requests).toHaveLength(1)
    expect(retries).toEqual([])
    expect(backup.requests).toHaveLength(0)
  })

  it('an overloaded error before any block is still retried', async () => {
    fake.enqueue({ type: 'sse', events: [messageStart, searchThenOverloaded.at(-1)!] }, { type: 'sse', events: answer })
    const agent = createAgent({
      provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL }),
      behavior: { retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 } },
    })
    const stats = await agent.run({ prompt: 'search the web' })
    expect(stats.text).toBe('again')
    expect(fake.requests).toHaveLength(2)
  })
})
