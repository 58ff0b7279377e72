import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentContextExceededError, AgentProviderError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { wireToolCallId } from '../../src/providers/openai-chat'
import { openrouter } from '../../src/providers/openrouter'
import { startFakeOpenAI } from '../support/fake-openai'
import { PNG } from './openai-chat-fixtures'

// Whole-agent scenarios: the real loop and the real Chat Completions providers
// (through the official `openai` client) against a local server speaking the SSE format.

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

const MODEL = 'gpt-5.2'
const provider = () => openai({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL })
const fastRetry = { initialDelayMs: 1, maxDelayMs: 5 }

function lookupTool(log: string[] = []) {
  return tool({
    name: 'lookup',
    description: 'Look up a word',
    input: z.object({ word: z.string() }),
    isConcurrencySafe: true,
    execute: ({ word }) => {
      log.push(word)
      return `definition of ${word}`
    },
  })
}

describe('a tool loop over Chat Completions', () => {
  it('runs the calls, answers them in call order under the ids the API accepts, and sums usage', async () => {
    const oddId = 'call|with|pipes'
    fake.enqueue(
      { type: 'turn', turn: { text: 'Looking up.', toolCalls: [{ id: oddId, name: 'lookup', input: { word: 'alpha' } }, { id: 'call_b', name: 'lookup', input: { word: 'beta' } }], usage: { prompt_tokens: 100, completion_tokens: 20 } } },
      { type: 'turn', turn: { text: ['Alpha and ', 'beta are defined.'], usage: { prompt_tokens: 150, cached_tokens: 90, completion_tokens: 10 } } },
    )
    const looked: string[] = []
    const agent = createAgent({ provider: provider(), tools: { lookup: lookupTool(looked) }, system: 'Be brief.' })
    const stats = await agent.run({ prompt: 'Define alpha and beta.', thinking: 'low' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Alpha and beta are defined.')
    expect(looked.sort()).toEqual(['alpha', 'beta'])
    expect(stats.totalIn).toBe(160)
    expect(stats.totalCacheRead).toBe(90)
    expect(stats.turnUsage?.[0]).toMatchObject({ modelId: MODEL, finishReason: 'tool-calls', provider: 'openai' })

    const [first, second] = fake.requests.map(request => request.body)
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(first.reasoning_effort).toBe('low')
    expect(first.tools.map((t: any) => t.function.name)).toEqual(['lookup'])

    const wireId = wireToolCallId(oddId)
    expect(wireId).not.toBe(oddId)
    expect(second.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool'])
    expect(second.messages[2].tool_calls.map((c: any) => c.id)).toEqual([wireId, 'call_b'])
    expect(second.messages.slice(3).map((m: any) => [m.tool_call_id, m.content])).toEqual([[wireId, 'definition of alpha'], ['call_b', 'definition of beta']])
    // Appending turns never rewrote what was already sent.
    expect(JSON.stringify(second.messages.slice(0, 2))).toBe(JSON.stringify(first.messages))
  })

  it('shows an image a tool returned through a companion user message', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'call_1', name: 'screenshot', input: {} }] } },
      { type: 'turn', turn: { text: 'A red dot.' } },
    )
    const screenshot = tool({
      name: 'screenshot',
      description: 'Take a screenshot',
      input: z.object({}),
      execute: () => [{ type: 'text', text: 'Captured.' }, { type: 'image', data: PNG, mediaType: 'image/png' }],
    })
    await createAgent({ provider: provider(), tools: { screenshot } }).run({ prompt: 'Look.' })

    const messages = fake.requests[1].body.messages
    expect(messages.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(messages.at(-2).content).toContain('Captured.')
    expect(messages.at(-1).role).toBe('user')
    expect(messages.at(-1).content.map((part: any) => part.type)).toEqual(['text', 'image_url'])
  })

  it('keeps OpenRouter reasoning across the loop and reports the provider\'s cost', async () => {
    fake.enqueue(
      { type: 'turn', turn: { reasoningDetails: { text: ['Need the word.'], signature: 'sig' }, toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { word: 'gamma' } }], usage: { cost: 0.002 } } },
      { type: 'turn', turn: { text: 'Done.', usage: { cost: 0.001 } } },
    )
    let thinking = ''
    const agent = createAgent({ provider: openrouter({ apiKey: 'k', baseURL: fake.url, defaultModel: 'anthropic/claude-sonnet-4.5' }), tools: { lookup: lookupTool() } })
    agent.hooks.hook('stream:thinking', ({ delta }) => {
      thinking += delta
    })
    const stats = await agent.run({ prompt: 'Define gamma.', thinking: 'medium' })

    expect(thinking).toBe('Need the word.')
    expect(stats.cost).toBeCloseTo(0.003, 10)
    const replayed = fake.requests[1].body.messages.find((m: any) => m.role === 'assistant')
    expect(replayed.reasoning_details).toEqual([{ type: 'reasoning.text', text: 'Need the word.', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }])
  })
})

describe('provider faults through the loop', () => {
  it('retries a 429 after its retry-after-ms and reports the retry', async () => {
    fake.enqueue(
      { type: 'error', status: 429, headers: { 'retry-after-ms': '3' } },
      { type: 'turn', turn: { text: 'ok' } },
    )
    const retries: { attempt: number, delayMs: number, kind: string }[] = []
    const agent = createAgent({ provider: provider(), behavior: { retry: { initialDelayMs: 1000 } } })
    agent.hooks.hook('stream:retry', ({ attempt, delayMs, error }) => {
      retries.push({ attempt, delayMs, kind: error.kind })
    })
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.text).toBe('ok')
    expect(retries).toEqual([{ attempt: 2, delayMs: 3, kind: 'rate_limit' }])
    expect(fake.requests).toHaveLength(2)
  })

  it('retries a mid-stream failure when only reasoning had streamed, reporting the dropped reasoning', async () => {
    fake.enqueue(
      { type: 'mid-stream-error', turn: { reasoning: ['partial idea'] }, error: { message: 'upstream died', code: 502 } },
      { type: 'turn', turn: { text: 'second try' } },
    )
    const discarded: string[] = []
    const agent = createAgent({ provider: provider(), behavior: { retry: fastRetry } })
    agent.hooks.hook('stream:retry', ({ discardedThinking }) => {
      discarded.push(discardedThinking)
    })
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.text).toBe('second try')
    expect(discarded).toEqual(['partial idea'])
  })

  it('does not retry a quota 429, and turns a context-window 400 into AgentContextExceededError', async () => {
    fake.enqueue({ type: 'error', status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } })
    const quota = await createAgent({ provider: provider(), behavior: { retry: fastRetry } }).run({ prompt: 'hi' }).catch(e => e)
    expect(quota).toBeInstanceOf(AgentProviderError)
    expect(quota).toMatchObject({ kind: 'quota', attempts: 1 })

    fake.enqueue({ type: 'error', status: 400, body: { error: { message: 'This model\'s maximum context length is 8192 tokens', type: 'invalid_request_error', code: 'context_length_exceeded' } } })
    await expect(createAgent({ provider: provider() }).run({ prompt: 'hi' })).rejects.toBeInstanceOf(AgentContextExceededError)
  })

  it('aborts a stalled stream with agent.abort() and returns aborted', async () => {
    fake.enqueue({ type: 'stall-after', turn: { text: ['one ', 'two'] }, chunks: 2 })
    const agent = createAgent({ provider: provider() })
    agent.hooks.hook('stream:text', () => {
      agent.abort()
    })
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.stopReason).toBe('aborted')
  })
})
