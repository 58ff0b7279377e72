/**
 * Servers that number each answer's calls from zero (`call_0`, `ollama_0`)
 * reuse the same id every turn. Pairing keys calls by id across the whole
 * conversation, so before this the second turn's call and its result were
 * dropped from every later request: the model no longer saw what it had done.
 * A call whose id an earlier turn used is now recorded as `<id>_<n>`.
 */

import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { echoTool } from '../support/helpers'

const idsOf = (blocks: readonly { type: string, id?: string, callId?: string }[]) => blocks.flatMap(block => block.type === 'tool_call' ? [`call ${block.id}`] : block.type === 'tool_result' ? [`result ${block.callId}`] : [])

describe('a tool-call id reused from an earlier turn', () => {
  it('gets a name of its own, so every call and result stays on the wire; a resumed run names the same way', async () => {
    const turn = (n: number) => ({ toolCalls: [{ id: 'call_0', name: 'echo', input: { n } }] })
    const provider = scriptedProvider([turn(1), turn(2), turn(3), { text: 'done' }])
    const session = await createSession()
    const repairs: unknown[] = []
    const agent = createAgent({ provider, session, tools: { echo: echoTool('echo') }, hooks: { 'pairing:repair': (ctx: unknown) => void repairs.push(ctx) } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const last = provider.requests.at(-1)!.messages.flatMap(message => message.content)
    expect(idsOf(last)).toEqual(['call call_0', 'result call_0', 'call call_0_2', 'result call_0_2', 'call call_0_3', 'result call_0_3'])
    expect(repairs).toEqual([])
    expect(idsOf(session.turns.flatMap(t => t.content))).toEqual(['call call_0', 'result call_0', 'call call_0_2', 'result call_0_2', 'call call_0_3', 'result call_0_3'])

    // The next run on the same session goes on numbering from what the session holds.
    const next = scriptedProvider([turn(4), { text: 'done' }])
    await createAgent({ provider: next, session, tools: { echo: echoTool('echo') } }).run({ prompt: 'more' })
    expect(idsOf(next.requests.at(-1)!.messages.flatMap(message => message.content)).slice(-2)).toEqual(['call call_0_4', 'result call_0_4'])
  })

  it('calls sharing an id within one turn: all but the first renamed, each paired with its own result', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'dup', name: 'echo', input: { n: 1 } }, { id: 'dup', name: 'echo', input: { n: 2 } }, { id: 'dup_2', name: 'echo', input: { n: 3 } }] },
      { toolCalls: [{ id: 'dup', name: 'echo', input: { n: 4 } }] },
      { text: 'done' },
    ])
    const session = await createSession()
    const repairs: unknown[] = []
    const agent = createAgent({ provider, session, tools: { echo: echoTool('echo') }, hooks: { 'pairing:repair': (ctx: unknown) => void repairs.push(ctx) } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const last = provider.requests.at(-1)!.messages.flatMap(message => message.content)
    // `dup_2` is the third call's own id, so the second `dup` skips it.
    expect(idsOf(last)).toEqual([
      'call dup',
      'call dup_3',
      'call dup_2',
      'result dup',
      'result dup_3',
      'result dup_2',
      'call dup_4',
      'result dup_4',
    ])
    expect(repairs).toEqual([])
    // Each result is the one of its own call.
    const outputs = last.flatMap(block => block.type === 'tool_result' ? [(block as { output?: unknown }).output] : [])
    expect(outputs).toEqual(['echo:{"n":1}', 'echo:{"n":2}', 'echo:{"n":3}', 'echo:{"n":4}'])
  })

  describe('over Chat Completions, against a server numbering each answer\'s calls from zero', () => {
    let fake: FakeOpenAI
    beforeEach(async () => {
      fake = await startFakeOpenAI()
    })
    afterEach(async () => {
      await fake.close()
    })

    it('sends both calls and both results back', async () => {
      fake.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: 'call_0', name: 'echo', input: { n: 1 } }] } },
        { type: 'turn', turn: { toolCalls: [{ id: 'call_0', name: 'echo', input: { n: 2 } }] } },
        { type: 'turn', turn: { text: 'done' } },
      )
      const agent = createAgent({ provider: openai({ apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2' }), tools: { echo: echoTool('echo') } })
      expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
      const body = fake.requests[2].body as { messages: { role: string, tool_calls?: { id: string }[], tool_call_id?: string }[] }
      const wire = body.messages.flatMap(message => [...(message.tool_calls ?? []).map(call => `call ${call.id}`), ...(message.tool_call_id ? [`result ${message.tool_call_id}`] : [])])
      expect(wire).toEqual(['call call_0', 'result call_0', 'call call_0_2', 'result call_0_2'])
    })
  })

  it('an id of a megabyte is kept as its start and a hash, the same on every run, and stays paired', async () => {
    const long = `call_${'x'.repeat(1_000_000)}`
    const script = () => scriptedProvider([
      { toolCalls: [{ id: long, name: 'echo', input: { n: 1 } }, { id: `${long}y`, name: 'echo', input: { n: 2 } }] },
      { text: 'done' },
    ])
    const stored: string[][] = []
    for (let i = 0; i < 2; i++) {
      const session = await createSession()
      const provider = script()
      const agent = createAgent({ provider, session, tools: { echo: echoTool('echo') } })
      expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
      const ids = idsOf(session.turns.flatMap(turn => turn.content))
      stored.push(ids)
      expect(idsOf(provider.requests.at(-1)!.messages.flatMap(message => message.content))).toEqual(ids)
    }
    expect(stored[0]).toEqual(stored[1])
    const [first, second] = [stored[0]![0]!.slice(5), stored[0]![1]!.slice(5)]
    expect(first.length).toBeLessThanOrEqual(128)
    expect(first.startsWith('call_xxx')).toBe(true)
    expect(second).not.toBe(first)
    expect(stored[0]).toEqual([`call ${first}`, `call ${second}`, `result ${first}`, `result ${second}`])
  })

  it('over the Anthropic wire, two tool_use blocks sharing an id go back as two calls with their own results', async () => {
    const fake = await startFakeAnthropic()
    try {
      fake.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: 'toolu_same', name: 'echo', input: { n: 1 } }, { id: 'toolu_same', name: 'echo', input: { n: 2 } }] } },
        { type: 'turn', turn: { text: 'done' } },
      )
      const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url }), tools: { echo: echoTool('echo') } })
      expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
      const body = fake.requests[1]!.body as { messages: { content: string | { type: string, id?: string, tool_use_id?: string }[] }[] }
      const wire = body.messages.flatMap(message => typeof message.content === 'string' ? [] : message.content.flatMap(block => block.type === 'tool_use' ? [`call ${block.id}`] : block.type === 'tool_result' ? [`result ${block.tool_use_id}`] : []))
      // The API refuses a message whose tool_use ids repeat; each id is now unique and answered.
      expect(wire).toEqual(['call toolu_same', 'call toolu_same_2', 'result toolu_same', 'result toolu_same_2'])
    }
    finally {
      await fake.close()
    }
  })
})
