import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentContextExceededError, AgentProviderError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'

// Whole-agent scenarios: the real loop and the real Anthropic provider (through
// the official SDK) against a local server that speaks the Messages SSE format.

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const MODEL = 'claude-sonnet-4-6'
const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL })
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

describe('a tool loop over the Messages API', () => {
  it('sends paired tool results in call order, with aliases and cache breakpoints on the wire', async () => {
    fake.enqueue(
      { type: 'turn', turn: { text: 'Looking up.', toolCalls: [{ id: 'toolu_a', name: 'define', input: { word: 'alpha' } }, { id: 'toolu_b', name: 'define', input: { word: 'beta' } }], usage: { input_tokens: 100, output_tokens: 20 } } },
      { type: 'turn', turn: { text: ['Alpha and ', 'beta are defined.'], usage: { input_tokens: 150, output_tokens: 10, cache_read_input_tokens: 90 } } },
    )
    const looked: string[] = []
    const seenNames: string[] = []
    const agent = createAgent({ provider: provider(), tools: { lookup: lookupTool(looked) }, toolAliases: { lookup: 'define' }, system: 'Be brief.' })
    agent.hooks.hook('tool:before', ({ name, displayName }) => {
      seenNames.push(`${name}/${displayName}`)
    })

    const stats = await agent.run({ prompt: 'Define alpha and beta.' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Alpha and beta are defined.')
    expect(looked.sort()).toEqual(['alpha', 'beta'])
    expect(seenNames).toEqual(['lookup/define', 'lookup/define'])
    expect(stats.totalIn).toBe(250)
    expect(stats.totalCacheRead).toBe(90)
    expect(stats.cost).toBeGreaterThan(0)
    expect(stats.turnUsage?.[0]).toMatchObject({ modelId: MODEL, finishReason: 'tool-calls', provider: 'anthropic' })

    const [first, second] = fake.requests.map(r => r.body)
    expect(first.tools.map((t: any) => t.name)).toEqual(['define'])
    expect(first.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' })
    expect(first.system.at(-1)).toMatchObject({ text: 'Be brief.', cache_control: { type: 'ephemeral' } })
    expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' })

    expect(second.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user'])
    const toolUses = second.messages[1].content.filter((b: any) => b.type === 'tool_use')
    expect(toolUses.map((b: any) => [b.id, b.name])).toEqual([['toolu_a', 'define'], ['toolu_b', 'define']])
    const results = second.messages[2].content.filter((b: any) => b.type === 'tool_result')
    expect(results.map((b: any) => b.tool_use_id)).toEqual(['toolu_a', 'toolu_b'])
    expect(results.map((b: any) => b.content)).toEqual(['definition of alpha', 'definition of beta'])
    // Only the last message carries the moving breakpoint.
    expect(JSON.stringify(second.messages.slice(0, 2))).not.toContain('cache_control')
  })

  it('replays signed thinking on the next turn and sends the level\'s thinking params', async () => {
    fake.enqueue(
      { type: 'turn', turn: { thinking: { text: 'I should look it up.', signature: 'sig-1' }, toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { word: 'gamma' } }] } },
      { type: 'turn', turn: { text: 'Done.' } },
    )
    let thinking = ''
    const agent = createAgent({ provider: provider(), tools: { lookup: lookupTool() } })
    agent.hooks.hook('stream:thinking', ({ delta }) => {
      thinking += delta
    })
    await agent.run({ prompt: 'Define gamma.', thinking: 'high', behavior: { thinkingBudget: 4096 } })

    expect(thinking).toBe('I should look it up.')
    const [first, second] = fake.requests.map(r => r.body)
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 })
    expect(first.max_tokens).toBeGreaterThan(4096)
    expect(second.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' })
  })

  it('answers a call whose streamed arguments do not parse with an error result, and goes on', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_bad', name: 'lookup', input: {}, rawJson: '{"word": "del' }] } },
      { type: 'turn', turn: { text: 'Sorry.' } },
    )
    const looked: string[] = []
    const agent = createAgent({ provider: provider(), tools: { lookup: lookupTool(looked) } })
    const stats = await agent.run({ prompt: 'Define delta.' })

    expect(stats.stopReason).toBe('completed')
    expect(looked).toEqual([])
    const result = fake.requests[1].body.messages[2].content[0]
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_bad', is_error: true })
    expect(String(result.content)).toMatch(/Invalid arguments for lookup/)
  })

  it('does not run a tool with only optional arguments on truncated JSON', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_cut', name: 'list', input: {}, rawJson: '{"dir": "sr' }] } },
      { type: 'turn', turn: { text: 'ok' } },
    )
    let ran = false
    const list = tool({
      name: 'list',
      description: 'List a directory',
      input: z.object({ dir: z.string().optional() }),
      execute: () => {
        ran = true
        return 'a b c'
      },
    })
    await createAgent({ provider: provider(), tools: { list } }).run({ prompt: 'list' })
    expect(ran).toBe(false)
    const result = fake.requests[1].body.messages[2].content[0]
    expect(result).toMatchObject({ tool_use_id: 'toolu_cut', is_error: true })
    expect(String(result.content)).toMatch(/not valid JSON/)
  })
})

describe('prompt-cache stability', () => {
  it('keeps system, tools and every earlier message byte-identical as the conversation grows', async () => {
    for (let i = 0; i < 4; i++)
      fake.enqueue({ type: 'turn', turn: { thinking: { text: `step ${i}`, signature: `sig-${i}` }, text: `Turn ${i}.`, toolCalls: [{ id: `toolu_${i}`, name: 'lookup', input: { word: `w${i}` } }] } })
    fake.enqueue({ type: 'turn', turn: { text: 'Finished.' } })
    const agent = createAgent({ provider: provider(), tools: { lookup: lookupTool() }, system: 'Stable system prompt.' })
    await agent.run({ prompt: 'Go.', thinking: 'low', behavior: { thinkingBudget: 2048 } })

    const withoutBreakpoints = (value: unknown) => JSON.stringify(value, (key, v) => key === 'cache_control' ? undefined : v)
    const bodies = fake.requests.map(r => r.body)
    expect(bodies).toHaveLength(5)
    for (let n = 1; n < bodies.length; n++) {
      expect(JSON.stringify(bodies[n].system)).toBe(JSON.stringify(bodies[0].system))
      expect(JSON.stringify(bodies[n].tools)).toBe(JSON.stringify(bodies[0].tools))
      expect(bodies[n].thinking).toEqual(bodies[0].thinking)
      const previous = bodies[n - 1].messages
      const prefix = bodies[n].messages.slice(0, previous.length)
      expect(withoutBreakpoints(prefix)).toBe(withoutBreakpoints(previous))
    }
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

  it.each([
    [529, 'overloaded'],
    [503, 'server'],
  ])('retries a %i as %s', async (status, kind) => {
    fake.enqueue({ type: 'error', status }, { type: 'turn', turn: { text: 'recovered' } })
    const kinds: string[] = []
    const agent = createAgent({ provider: provider(), behavior: { retry: fastRetry } })
    agent.hooks.hook('stream:retry', ({ error }) => {
      kinds.push(error.kind)
    })
    expect((await agent.run({ prompt: 'hi' })).text).toBe('recovered')
    expect(kinds).toEqual([kind])
  })

  it('retries a mid-stream overloaded error when only reasoning had streamed, reporting the dropped thinking', async () => {
    fake.enqueue(
      { type: 'mid-stream-error', turn: { thinking: { text: 'partial idea', signature: 's' } }, error: { type: 'overloaded_error', message: 'Overloaded' } },
      { type: 'turn', turn: { text: 'second try' } },
    )
    const discarded: string[] = []
    const agent = createAgent({ provider: provider(), behavior: { retry: fastRetry } })
    agent.hooks.hook('stream:retry', ({ discardedThinking }) => {
      discarded.push(discardedThinking)
    })
    const stats = await agent.run({ prompt: 'hi', thinking: 'low', behavior: { thinkingBudget: 1024 } })
    expect(stats.text).toBe('second try')
    expect(discarded).toEqual(['partial idea'])
  })

  it('does not replay a turn once text has streamed: the run fails with a typed provider error', async () => {
    fake.enqueue(
      { type: 'mid-stream-error', turn: { text: 'half an ans' }, error: { type: 'overloaded_error', message: 'Overloaded' } },
      { type: 'turn', turn: { text: 'never sent' } },
    )
    const agent = createAgent({ provider: provider(), behavior: { retry: fastRetry } })
    const error = await agent.run({ prompt: 'hi' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'overloaded', attempts: 1, provider: 'anthropic' })
    expect(fake.requests).toHaveLength(1)
  })

  it('fails at once on a 401 with an auth error', async () => {
    fake.enqueue({ type: 'error', status: 401 })
    const agent = createAgent({ provider: provider(), behavior: { retry: fastRetry } })
    const error = await agent.run({ prompt: 'hi' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'auth', status: 401, attempts: 1 })
  })

  it('turns a context-window 400 into AgentContextExceededError', async () => {
    fake.enqueue({ type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } })
    const agent = createAgent({ provider: provider() })
    await expect(agent.run({ prompt: 'hi' })).rejects.toBeInstanceOf(AgentContextExceededError)
  })

  it('gives up on a server that never answers, after the start watchdog and its retries', async () => {
    fake.enqueue({ type: 'stall-before-headers' }, { type: 'stall-before-headers' })
    const agent = createAgent({ provider: provider(), behavior: { providerStreamStartTimeoutMs: 150, retry: { maxAttempts: 2, initialDelayMs: 1 } } })
    const error = await agent.run({ prompt: 'hi' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    // Both attempts ran; how many requests reached the server first depends on machine load.
    expect(error).toMatchObject({ kind: 'timeout', attempts: 2 })
  })

  it('recovers when a stalled first attempt is followed by a good one', async () => {
    fake.enqueue({ type: 'stall-before-headers' }, { type: 'turn', turn: { text: 'back' } })
    const agent = createAgent({ provider: provider(), behavior: { providerStreamStartTimeoutMs: 300, retry: fastRetry } })
    expect((await agent.run({ prompt: 'hi' })).text).toBe('back')
  })

  it('ends a stream that goes silent mid-turn with the idle watchdog', async () => {
    fake.enqueue({ type: 'stall-after', turn: { text: ['one ', 'two ', 'three'] }, events: 4 })
    const agent = createAgent({ provider: provider(), behavior: { providerStreamIdleTimeoutMs: 150, retry: fastRetry } })
    const error = await agent.run({ prompt: 'hi' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'timeout', attempts: 1 })
  })

  it('aborts a stalled stream with agent.abort() and returns aborted', async () => {
    fake.enqueue({ type: 'stall-after', turn: { text: ['one ', 'two'] }, events: 3 })
    const agent = createAgent({ provider: provider() })
    agent.hooks.hook('stream:text', () => {
      agent.abort()
    })
    let aborted = false
    agent.hooks.hook('agent:abort', () => {
      aborted = true
    })
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.stopReason).toBe('aborted')
    expect(aborted).toBe(true)
  })
})
