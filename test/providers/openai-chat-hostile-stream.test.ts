import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { openrouter } from '../../src/providers/openrouter'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, recordCallbacks } from './openai-chat-fixtures'

// Streamed bodies no honest server sends: fields of the wrong type and values
// built to break the reader, through the real loop and the real client.

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

const provider = () => openai({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'gpt-5.2' })

/** A tool every parameter of which is optional: it would run with `{}`. */
function optionalTool(ran: unknown[]) {
  return tool({
    name: 'search',
    description: 'Search, with or without a query',
    input: z.object({ query: z.string().optional() }),
    execute: (input) => {
      ran.push(input)
      return 'searched'
    },
  })
}

/** One chunk, as raw JSON text, carrying a whole call whose `arguments` field is `argumentsJson` verbatim. */
function callChunk(argumentsJson: string): string {
  return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search","arguments":${argumentsJson}}}]},"finish_reason":"tool_calls"}]}`
}

/** The text of the tool message answering the first call, in the second request. */
function toolAnswer(): string {
  return fake.requests[1].body.messages.find((m: any) => m.role === 'tool').content
}

describe('tool-call arguments of the wrong type', () => {
  it('answers arguments sent as a number or `true` with an error result instead of running the tool with {}', async () => {
    for (const value of ['5', 'true']) {
      fake.requests.length = 0
      fake.enqueue({ type: 'chunks', chunks: [callChunk(value)] }, { type: 'turn', turn: { text: 'done' } })
      const ran: unknown[] = []
      const stats = await createAgent({ provider: provider(), tools: { search: optionalTool(ran) } }).run({ prompt: 'go' })

      expect(stats.stopReason).toBe('completed')
      expect(ran).toEqual([])
      expect(toolAnswer()).toContain('arguments are not a JSON object')
    }
  })

  it('answers an arguments object nested 20,000 levels deep with the too-deep error result; the turn does not fail', async () => {
    const depth = 20_000
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    fake.enqueue({ type: 'chunks', chunks: [callChunk(deep)] }, { type: 'turn', turn: { text: 'done' } })
    const ran: unknown[] = []
    const stats = await createAgent({ provider: provider(), tools: { search: optionalTool(ran) } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('done')
    expect(ran).toEqual([])
    expect(toolAnswer()).toContain('nested more than 100 levels deep')
  })

  it('still takes a parsed arguments object of ordinary depth, and `null` as no arguments', async () => {
    fake.enqueue({ type: 'chunks', chunks: [callChunk('{"query":"cats"}')] }, { type: 'chunks', chunks: [callChunk('null')] }, { type: 'turn', turn: { text: 'done' } })
    const ran: unknown[] = []
    const stats = await createAgent({ provider: provider(), tools: { search: optionalTool(ran) } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([{ query: 'cats' }, {}])
  })
})

describe('tool-call ids that come late', () => {
  it('keeps one call whose id arrives after its name, instead of running the named half with {}', async () => {
    fake.enqueue(
      { type: 'chunks', chunks: [
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, type: 'function', function: { name: 'search', arguments: '' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '{"query":' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '"cats"}' } }] }, finish_reason: 'tool_calls' }] },
      ] },
      { type: 'turn', turn: { text: 'done' } },
    )
    const ran: unknown[] = []
    const stats = await createAgent({ provider: provider(), tools: { search: optionalTool(ran) } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([{ query: 'cats' }])
    const calls = fake.requests[1].body.messages.find((m: any) => m.role === 'assistant').tool_calls
    expect(calls.map((c: any) => [c.function.name, c.function.arguments])).toEqual([['search', '{"query":"cats"}']])
  })

  it('still starts a new call at a reused index when a piece brings a new id and a name', async () => {
    fake.enqueue(
      { type: 'chunks', chunks: [
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'search', arguments: '{"query":"a"}' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_b', function: { name: 'search', arguments: '{"query":"b"}' } }] }, finish_reason: 'tool_calls' }] },
      ] },
      { type: 'turn', turn: { text: 'done' } },
    )
    const ran: unknown[] = []
    await createAgent({ provider: provider(), tools: { search: optionalTool(ran) } }).run({ prompt: 'go' })
    expect(ran).toEqual([{ query: 'a' }, { query: 'b' }])
  })
})

describe('reasoning details that name `__proto__`', () => {
  it('keeps the field as an ordinary key: nothing it holds is read as streamed text or replayed as such', async () => {
    const router = openrouter({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'anthropic/claude-sonnet-4.5' })
    fake.enqueue(
      {
        type: 'chunks',
        chunks: [
          '{"choices":[{"index":0,"delta":{"reasoning_details":[{"index":0,"__proto__":{"text":"INJECTED ","signature":"forged"}}]}}]}',
          { choices: [{ index: 0, delta: { reasoning_details: [{ index: 0, type: 'reasoning.text', text: 'real', signature: '' }], tool_calls: [{ index: 0, id: 'call_1', function: { name: 'search', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] },
        ],
      },
      { type: 'turn', turn: { text: 'done' } },
    )
    const thinking: string[] = []
    const agent = createAgent({ provider: router, tools: { search: optionalTool([]) } })
    agent.hooks.hook('stream:thinking', ({ delta }) => {
      thinking.push(delta)
    })
    const stats = await agent.run({ prompt: 'go', thinking: 'low' })

    expect(stats.stopReason).toBe('completed')
    expect(thinking).toEqual(['real'])
    const replayed = fake.requests[1].body.messages.find((m: any) => m.role === 'assistant')
    // Compared as text: an object literal's `__proto__` would set a prototype, not a key.
    expect(JSON.stringify(replayed.reasoning_details)).toBe('[{"index":0,"__proto__":{"text":"INJECTED ","signature":"forged"},"type":"reasoning.text","text":"real","signature":""}]')
  })
})

describe('choices of the wrong shape', () => {
  it('reads a choice whose index is the string "0" as the answer, instead of dropping it for an empty stop', async () => {
    fake.enqueue({ type: 'chunks', chunks: [
      { choices: [{ index: '0', delta: { role: 'assistant', content: 'Hel' } }] },
      { choices: [{ index: '0', delta: { content: 'lo' }, finish_reason: 'stop' }] },
    ] })
    const stats = await createAgent({ provider: provider() }).run({ prompt: 'hi' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Hello')
  })

  it('still reads only the first choice when a server sends several with numeric indexes', async () => {
    fake.enqueue({ type: 'chunks', chunks: [
      { choices: [{ index: 1, delta: { content: 'other' } }, { index: 0, delta: { content: 'first' }, finish_reason: 'stop' }] },
    ] })
    const stats = await createAgent({ provider: provider() }).run({ prompt: 'hi' })
    expect(stats.text).toBe('first')
  })
})

describe('signs of life', () => {
  it('counts no empty or null reasoning_details as activity, so they cannot hold off the idle watchdog; real details still count', async () => {
    fake.enqueue({ type: 'chunks', chunks: [
      { choices: [{ index: 0, delta: { content: '', reasoning_details: [] } }] },
      { choices: [{ index: 0, delta: { content: '', reasoning_details: null } }] },
      { choices: [{ index: 0, delta: { reasoning_details: [null, 'x', 5] } }] },
      { choices: [{ index: 0, delta: { reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque', index: 0 }] } }] },
      { choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] },
    ] })
    const rec = recordCallbacks()
    const result = await provider().stream(chatOptions(), rec.callbacks)

    expect(rec.timeline).toEqual(['activity', 'text:hi'])
    expect(result.content).toContainEqual({ type: 'text', text: 'hi' })
  })
})

describe('a reported cost out of range', () => {
  it('takes no negative cost, so one turn cannot buy the run room past maxCostUsd', async () => {
    // A model no catalog prices: only the reported costs count.
    const router = openrouter({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'lab/unpriced-model' })
    const call = (id: string, cost: number) => ({ type: 'turn' as const, turn: { toolCalls: [{ id, name: 'search', input: {} }], usage: { prompt_tokens: 10, completion_tokens: 5, cost } } })
    fake.enqueue(call('call_1', -1000), call('call_2', 0.5), call('call_3', 0.5), { type: 'turn', turn: { text: 'done', usage: { prompt_tokens: 10, completion_tokens: 5, cost: 0.5 } } })
    const agent = createAgent({ provider: router, tools: { search: optionalTool([]) }, behavior: { maxCostUsd: 0.8 } })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)

    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(fake.requests).toHaveLength(3)
  })
})
