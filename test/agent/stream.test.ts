import type { AgentStream, AgentStreamEvent, ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentBusyError, AgentProviderError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { createMemoryStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { deferred } from '../support/helpers'

/** Let every pending microtask and I/O callback run: a run that is not held finishes within a few of these. */
async function settle(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++)
    await new Promise(resolve => setImmediate(resolve))
}

async function collect(stream: AgentStream): Promise<AgentStreamEvent[]> {
  const events: AgentStreamEvent[] = []
  for await (const event of stream)
    events.push(event)
  return events
}

/** A compact view of an event for order assertions. */
function label(event: AgentStreamEvent): string {
  switch (event.type) {
    case 'text':
    case 'thinking':
      return `${event.type}:${event.delta}`
    case 'tool-call':
      return `tool-call:${event.name}:${JSON.stringify(event.input)}`
    case 'tool-result':
      return `tool-result:${event.name}:${String(event.output)}${event.isError ? ':error' : ''}`
    case 'turn-start':
    case 'turn-end':
      return `${event.type}:${event.turn}`
    default:
      return event.type
  }
}

const echo = tool({
  name: 'echo',
  description: 'Echo a word back',
  input: z.object({ word: z.string() }),
  isConcurrencySafe: true,
  execute: ({ word }) => `echo ${word}`,
})

/** A tool that runs until the run's signal aborts it. */
const hang: ToolDef = {
  spec: { name: 'hang', description: 'never finishes', inputSchema: { type: 'object' } },
  execute: (_input, ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })
  }),
}

/** Every tool call in the recorded turns has exactly one result. */
function expectPaired(turns: readonly { content: readonly { type: string, id?: string, callId?: string }[] }[]): void {
  const calls = turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_call').map(block => block.id))
  const results = turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_result').map(block => block.callId))
  expect(results.sort()).toEqual(calls.sort())
}

describe('agent.stream()', () => {
  it('yields typed events in run order, pairs tool calls with results, and ends with the stats', async () => {
    const provider = scriptedProvider([
      { thinking: 'hmm', text: ['Let me ', 'check.'], toolCalls: [{ name: 'echo', input: { word: 'a' } }, { name: 'echo', input: { word: 'b' } }] },
      { text: ['Both ', 'echoed.'] },
    ])
    const agent = createAgent({ provider, tools: { echo } })
    const hookDeltas: string[] = []
    agent.hooks.hook('stream:text', ({ delta }) => void hookDeltas.push(delta))
    const runHookTools: string[] = []

    const stream = agent.stream({ prompt: 'go', hooks: { 'tool:after': ({ callId }: { callId: string }) => void runHookTools.push(callId) } })
    const events = await collect(stream)
    const stats = await stream.result

    expect(events.map(label)).toEqual([
      'run-start',
      'turn-start:1',
      'thinking:hmm',
      'text:Let me ',
      'text:check.',
      'tool-call:echo:{"word":"a"}',
      'tool-call:echo:{"word":"b"}',
      'tool-result:echo:echo a',
      'tool-result:echo:echo b',
      'turn-end:1',
      'turn-start:2',
      'text:Both ',
      'text:echoed.',
      'turn-end:2',
      'done',
    ])
    const calls = events.filter(event => event.type === 'tool-call')
    const results = events.filter(event => event.type === 'tool-result')
    expect(results.map(result => result.callId)).toEqual(calls.map(call => call.callId))
    expect(results.every(result => typeof result.durationMs === 'number' && !result.isError)).toBe(true)
    const done = events.at(-1)!
    expect(done).toEqual({ type: 'done', runId: events[0].runId, depth: 0, stats })
    expect(stats).toMatchObject({ stopReason: 'completed', turns: 2, text: 'Both echoed.' })
    expect(events.every(event => event.depth === 0 && event.childId === undefined && event.runId === events[0].runId)).toBe(true)
    // Hooks fire as before, the agent's own and the run's.
    expect(hookDeltas).toEqual(['Let me ', 'check.', 'Both ', 'echoed.'])
    expect(runHookTools).toEqual(calls.map(call => call.callId))
    expect(agent.running).toBe(false)
  })

  it('streams the real Anthropic wire: deltas, a tool call with its input, its result, retries', async () => {
    let fake: FakeAnthropic | undefined
    try {
      fake = await startFakeAnthropic()
      fake.enqueue(
        { type: 'error', status: 529 },
        { type: 'turn', turn: { thinking: { text: 'Plan.', signature: 'sig' }, text: ['Checking', ' now.'], toolCalls: [{ id: 'toolu_1', name: 'echo', input: { word: 'sse' } }] } },
        { type: 'turn', turn: { text: ['It said ', 'echo sse.'] } },
      )
      const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
      const agent = createAgent({ provider, tools: { echo }, behavior: { retry: { initialDelayMs: 1, maxDelayMs: 2 } } })
      const stream = agent.stream({ prompt: 'go', thinking: 'low' })
      const events = await collect(stream)

      expect(events.map(label)).toEqual([
        'run-start',
        'turn-start:1',
        'retry',
        // The fake server streams the reasoning in two pieces.
        'thinking:Pla',
        'thinking:n.',
        'text:Checking',
        'text: now.',
        'tool-call:echo:{"word":"sse"}',
        'tool-result:echo:echo sse',
        'turn-end:1',
        'turn-start:2',
        'text:It said ',
        'text:echo sse.',
        'turn-end:2',
        'done',
      ])
      expect(events.find(event => event.type === 'retry')).toMatchObject({ attempt: 2, error: { kind: 'overloaded' } })
      expect(events.find(event => event.type === 'tool-call')).toMatchObject({ callId: 'toolu_1', input: { word: 'sse' } })
      expect((await stream.result).text).toBe('It said echo sse.')
    }
    finally {
      await fake?.close()
    }
  })

  it('breaking out of the loop mid-tool aborts the run; every call is answered and the session stays consistent', async () => {
    const session = await createSession({ store: createMemoryStore() })
    const provider = scriptedProvider([
      { text: 'Working.', toolCalls: [{ name: 'echo', input: { word: 'x' } }, { name: 'hang', input: {} }] },
    ])
    const agent = createAgent({ provider, tools: { echo, hang }, session })
    const stream = agent.stream({ prompt: 'go' })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(label(event))
      if (event.type === 'tool-result')
        break
    }

    // The loop exits only once the run has ended.
    expect(agent.running).toBe(false)
    const stats = await stream.result
    expect(stats.stopReason).toBe('aborted')
    expect(seen.at(-1)).toBe('tool-result:echo:echo x')
    expect(provider.requests).toHaveLength(1)
    expectPaired(session.turns)
    const results = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_result'))
    expect(results.map(block => block.isError === true)).toEqual([false, true])
    expect(session.runs.at(-1)?.status).toBe('aborted')
    // Nothing more arrives, and the agent takes the next run.
    expect(await stream.next()).toEqual({ done: true, value: undefined })
    provider.push({ text: 'again' })
    expect((await agent.run({ prompt: 'next' })).text).toBe('again')
  })

  it('breaking out while text streams aborts the provider stream', async () => {
    let fake: FakeAnthropic | undefined
    try {
      fake = await startFakeAnthropic()
      // A few frames, then silence with the connection open: only the abort can end this turn.
      fake.enqueue({ type: 'stall-after', turn: { text: ['one', 'two', 'three'] }, events: 4 })
      const agent = createAgent({ provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }) })
      const stream = agent.stream({ prompt: 'go' })
      const texts: string[] = []
      for await (const event of stream) {
        if (event.type === 'text') {
          texts.push(event.delta)
          break
        }
      }
      expect(texts).toEqual(['one'])
      expect((await stream.result).stopReason).toBe('aborted')
      expect(agent.running).toBe(false)
    }
    finally {
      await fake?.close()
    }
  })

  it('a slow reader receives every delta, in order, one event each', async () => {
    const turns = Array.from({ length: 10 }, (_, turn) => ({
      text: Array.from({ length: 6 }, (_, piece) => `t${turn}p${piece} `),
      toolCalls: [{ name: 'echo', input: { word: String(turn) } }],
    }))
    const provider = scriptedProvider([...turns, { text: 'end' }])
    const agent = createAgent({ provider, tools: { echo } })
    const stream = agent.stream({ prompt: 'go', highWaterMark: 16 })
    const deltas: string[] = []
    let events = 0
    for await (const event of stream) {
      events += 1
      if (event.type === 'text')
        deltas.push(event.delta)
      await new Promise(resolve => setImmediate(resolve))
    }

    expect(deltas).toEqual([...turns.flatMap(turn => turn.text), 'end'])
    expect((await stream.result).turns).toBe(11)
    // The run waited for the reader instead of queueing everything.
    expect(stream.peakBuffered).toBeLessThanOrEqual(16)
    expect(events).toBeGreaterThan(100)
  })

  it('a paused reader holds the run at its next boundary; a flood of deltas joins instead of piling up', async () => {
    const highWaterMark = 8
    const flood = Array.from({ length: 10_000 }, (_, i) => `${i},`)
    const provider = scriptedProvider([
      { text: flood, toolCalls: [{ name: 'echo', input: { word: 'first' } }] },
      ...Array.from({ length: 50 }, (_, i) => ({ text: [`turn ${i + 2}`], toolCalls: [{ name: 'echo', input: { word: String(i) } }] })),
      { text: 'end' },
    ])
    const agent = createAgent({ provider, tools: { echo } })
    const stream = agent.stream({ prompt: 'go', highWaterMark })

    const first = await stream.next()
    expect(first.value?.type).toBe('run-start')
    await settle()
    // Paused: the whole first turn streamed, but the run waits before running its tool.
    expect(provider.requests).toHaveLength(1)
    expect(stream.buffered).toBeGreaterThanOrEqual(highWaterMark)
    // One step's boundary event (the tool call) may land on top of a full buffer before the run waits.
    expect(stream.peakBuffered).toBeLessThanOrEqual(highWaterMark + 1)

    let text = ''
    const types: string[] = []
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'text')
        text += event.delta
    }
    expect(text).toBe(`${flood.join('')}${Array.from({ length: 50 }, (_, i) => `turn ${i + 2}`).join('')}end`)
    expect(types.filter(type => type === 'tool-result')).toHaveLength(51)
    expect(stream.peakBuffered).toBeLessThanOrEqual(highWaterMark + 1)
    expect((await stream.result).turns).toBe(52)
  })

  it('a run that throws: iteration throws the typed error after the events before it, and result rejects with it', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const provider = scriptedProvider([{ text: 'partial', toolCalls: [{ name: 'echo', input: { word: 'e' } }] }, { error: { kind: 'auth', message: 'bad key' } }])
      const agent = createAgent({ provider, tools: { echo } })
      const stream = agent.stream({ prompt: 'go' })
      const seen: string[] = []
      let thrown: unknown
      try {
        for await (const event of stream)
          seen.push(label(event))
      }
      catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(AgentProviderError)
      expect(thrown).toMatchObject({ kind: 'auth' })
      expect(seen).toContain('text:partial')
      expect(seen).not.toContain('done')
      await expect(stream.result).rejects.toBe(thrown)
      expect(await stream.next()).toEqual({ done: true, value: undefined })

      // Neither iterated nor awaited: still no unhandled rejection.
      provider.push({ error: { kind: 'auth', message: 'bad key' } })
      const ignored = agent.stream({ prompt: 'again' })
      await settle()
      expect(agent.running).toBe(false)
      expect(ignored.buffered).toBeGreaterThan(0)
      expect(unhandled).toEqual([])
    }
    finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('a stream on a busy agent throws AgentBusyError from the iteration; a bad highWaterMark throws at once', async () => {
    const gate = deferred()
    const waiting: ToolDef = { spec: { name: 'wait', description: 'waits', inputSchema: { type: 'object' } }, execute: () => gate.promise.then(() => 'ok') }
    const agent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'wait', input: {} }] }, { text: 'done' }]), tools: { wait: waiting } })
    const running = agent.run({ prompt: 'go' })
    await expect(collect(agent.stream({ prompt: 'second' }))).rejects.toBeInstanceOf(AgentBusyError)
    gate.resolve()
    expect((await running).text).toBe('done')
    expect(() => agent.stream({ prompt: 'x', highWaterMark: 0 })).toThrow(RangeError)
    expect(() => agent.stream({ prompt: 'x', highWaterMark: 2.5 })).toThrow(/positive integer/)
  })

  it('carries subagent events with their depth and child id, bracketed by subagent-start and -end', async () => {
    const grandchild = scriptedProvider([{ text: ['leaf ', 'answer'] }], { name: 'leaf' })
    const child = scriptedProvider([
      { text: 'delegating', toolCalls: [{ name: 'spawn', input: { task: 'go deeper' } }] },
      { text: 'mid answer' },
    ], { name: 'mid' })
    const deep = createSpawnTool({ child: { provider: grandchild }, maxDepth: 2 })
    const spawn = createSpawnTool({ child: { provider: child, tools: { spawn: deep } }, maxDepth: 2 })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'spawn', input: { task: 'research' } }] }, { text: 'top answer' }])
    const agent = createAgent({ provider, tools: { spawn } })
    const stream = agent.stream({ prompt: 'go' })
    const events = await collect(stream)
    const top = events[0].runId

    const texts = events.filter(event => event.type === 'text').map(event => ({ delta: event.delta, depth: event.depth, childId: event.childId }))
    expect(texts).toEqual([
      { delta: 'delegating', depth: 1, childId: 'child-1' },
      { delta: 'leaf ', depth: 2, childId: 'child-1' },
      { delta: 'answer', depth: 2, childId: 'child-1' },
      { delta: 'mid answer', depth: 1, childId: 'child-1' },
      { delta: 'top answer', depth: 0, childId: undefined },
    ])
    const starts = events.filter(event => event.type === 'subagent-start')
    expect(starts.map(event => ({ id: event.id, depth: event.depth, task: event.task, fromTop: event.runId === top }))).toEqual([
      { id: 'child-1', depth: 1, task: 'research', fromTop: true },
      { id: 'child-1', depth: 2, task: 'go deeper', fromTop: false },
    ])
    const ends = events.filter(event => event.type === 'subagent-end')
    expect(ends.map(event => [event.depth, event.stats?.status])).toEqual([[2, 'completed'], [1, 'completed']])
    // Each run's calls are answered within that run.
    for (const runId of new Set(events.map(event => event.runId))) {
      const calls = events.filter(event => event.type === 'tool-call' && event.runId === runId).map(event => (event as { callId: string }).callId)
      const results = events.filter(event => event.type === 'tool-result' && event.runId === runId).map(event => (event as { callId: string }).callId)
      expect(results).toEqual(calls)
    }
    expect(events.filter(event => event.type === 'run-start').map(event => event.depth)).toEqual([0, 1, 2])
    expect(events.filter(event => event.type === 'done')).toHaveLength(1)
    expect((await stream.result).text).toBe('top answer')
  })

  it('steering and follow-ups from the reader join the run and are announced', async () => {
    const provider = scriptedProvider([
      { text: 'Step one.', toolCalls: [{ name: 'echo', input: { word: 'one' } }] },
      { text: 'Steered.' },
      { text: 'Followed up.' },
    ])
    const agent = createAgent({ provider, tools: { echo } })
    const stream = agent.stream({ prompt: 'go' })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(event.type === 'user-message' ? `user-message:${event.kind}:${String(event.prompt)}:${event.id}` : label(event))
      if (event.type === 'tool-call') {
        agent.steer('also this', { id: 's1' })
        agent.followUp('and finally that', { id: 'f1' })
      }
    }
    expect(seen).toEqual([
      'run-start',
      'turn-start:1',
      'text:Step one.',
      'tool-call:echo:{"word":"one"}',
      'tool-result:echo:echo one',
      'turn-end:1',
      'user-message:steer:also this:s1',
      'turn-start:2',
      'text:Steered.',
      'turn-end:2',
      'user-message:follow-up:and finally that:f1',
      'turn-start:3',
      'text:Followed up.',
      'turn-end:3',
      'done',
    ])
    expect((await stream.result).turns).toBe(3)
  })

  it('records into the session like run() does', async () => {
    const session = await createSession({ store: createMemoryStore() })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'echo', input: { word: 'w' } }] }, { text: 'ok' }, { text: 'second run' }])
    const agent = createAgent({ provider, tools: { echo }, session })
    await collect(agent.stream({ prompt: 'one' }))
    const events = await collect(agent.stream({ prompt: 'two' }))
    expect(events.filter(event => event.type === 'text').map(event => (event as { delta: string }).delta)).toEqual(['second run'])
    expect(session.runs.map(run => run.status)).toEqual(['completed', 'completed'])
    expect(session.turns).toHaveLength(6)
    expectPaired(session.turns)
    // The second run saw the first run's conversation.
    expect(provider.requests[2].messages).toHaveLength(5)
  })
})
