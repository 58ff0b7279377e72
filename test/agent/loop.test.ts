import type { TurnAfterContext } from '../../src/hooks/hook-map'
import type { AgentBehavior } from '../../src/knobs/behavior'
import type { ToolContext } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentAbortedError, AgentBusyError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, fakeClock, injectedTexts, runCapturingTurns, textOf, toolLoop } from '../support/helpers'

describe('a text-only run', () => {
  it('returns the answer, completed, with per-turn usage and timing', async () => {
    const provider = scriptedProvider([{ text: ['Hel', 'lo'], usage: { input: 12, output: 7, cacheRead: 3, cacheCreation: 2, cost: 0.01 } }])
    const agent = createAgent({ provider })
    const stats = await agent.run({ prompt: 'hi' })

    expect(stats.text).toBe('Hello')
    expect(stats.stopReason).toBe('completed')
    expect(stats.turns).toBe(1)
    expect(stats.totalIn).toBe(12)
    expect(stats.totalOut).toBe(7)
    expect(stats.totalCacheRead).toBe(3)
    expect(stats.totalCacheCreation).toBe(2)
    expect(stats.cost).toBeCloseTo(0.01)
    expect(stats.turnUsage).toHaveLength(1)
    const usage = stats.turnUsage![0]
    expect(usage).toMatchObject({ input: 12, output: 7, finishReason: 'stop', modelId: 'scripted-model' })
    expect(usage.timeToFirstTokenMs).toBeGreaterThanOrEqual(0)
    expect(usage.streamDurationMs).toBeGreaterThanOrEqual(usage.timeToFirstTokenMs!)
    expect(stats.timeTillFirstTokenMs).toBeGreaterThanOrEqual(0)
    expect(stats.elapsed).toBeGreaterThanOrEqual(0)
    expect(provider.requests).toHaveLength(1)
    expect(provider.requests[0].messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }])
  })

  it('leaves cost unset when no turn reported one', async () => {
    const stats = await createAgent({ provider: scriptedProvider([{ text: 'x' }]) }).run({ prompt: 'p' })
    expect(stats.cost).toBeUndefined()
  })
})

describe('the tool loop', () => {
  it('runs several tools across turns, sums usage and replays every result', async () => {
    const provider = scriptedProvider([
      { text: 'Looking.', toolCalls: [{ name: 'a', input: { n: 1 }, id: 'c1' }, { name: 'b', input: { n: 2 }, id: 'c2' }] },
      { toolCalls: [{ name: 'a', input: { n: 3 }, id: 'c3' }] },
      { text: 'All done.' },
    ])
    const agent = createAgent({ provider, tools: { a: echoTool('a'), b: echoTool('b') } })
    const stats = await agent.run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.turns).toBe(3)
    expect(stats.totalIn).toBe(30)
    expect(stats.totalOut).toBe(15)
    expect(stats.text).toBe('All done.')
    expect(stats.turnUsage!.map(u => u.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop'])
    const last = provider.requests[2].messages
    expect(last.map(m => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(last[2].content).toMatchObject([
      { type: 'tool_result', callId: 'c1', output: 'a:{"n":1}' },
      { type: 'tool_result', callId: 'c2', output: 'b:{"n":2}' },
    ])
    expect(last[4].content).toMatchObject([{ type: 'tool_result', callId: 'c3', output: 'a:{"n":3}' }])
  })

  it('stops with max-turns when maxTurns is reached', async () => {
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTurns: 2 } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('max-turns')
    expect(stats.turns).toBe(2)
    expect(provider.requests).toHaveLength(2)
  })

  it('has no turn limit by default: a 30-turn tool loop completes', async () => {
    const provider = scriptedProvider(toolLoop(30, 'a', 'finished'))
    const agent = createAgent({ provider, tools: { a: echoTool('a') } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.turns).toBe(31)
    expect(stats.text).toBe('finished')
  })
})

describe('maxTurnsWarning', () => {
  it('injects the default wrap-up once, after the turn that leaves that many turns', async () => {
    const provider = scriptedProvider(toolLoop(10, 'a'))
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTurns: 5, maxTurnsWarning: 2 } })
    const stats = await agent.run({ prompt: 'go' })

    expect(stats.stopReason).toBe('max-turns')
    expect(provider.requests).toHaveLength(5)
    // Requests 1..3 went out before the warning; request 4 (index 3) ends with it.
    for (const index of [0, 1, 2])
      expect(injectedTexts(provider.requests[index].messages)).toEqual([])
    const fourth = provider.requests[3].messages
    expect(textOf(fourth.at(-1))).toMatch(/2 turns left/)
    expect(injectedTexts(provider.requests[4].messages)).toHaveLength(1)
  })

  it('records the warning as an injected user turn', async () => {
    const { turns } = await runCapturingTurns(
      { provider: scriptedProvider(toolLoop(4, 'a')), tools: { a: echoTool('a') }, behavior: { maxTurns: 3, maxTurnsWarning: 1 } },
      { prompt: 'go' },
    )
    const warnings = turns.filter(turn => turn.injected === 'max-turns-warning')
    expect(warnings).toHaveLength(1)
    expect(warnings[0].role).toBe('user')
  })

  it('sends a custom string verbatim', async () => {
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a') },
      behavior: { maxTurns: 3, maxTurnsWarning: 1, maxTurnsWarningMessage: 'WRAP IT UP' },
    })
    await agent.run({ prompt: 'go' })
    expect(injectedTexts(provider.requests[2].messages)).toEqual(['WRAP IT UP'])
    expect(injectedTexts(provider.requests[1].messages)).toEqual([])
  })

  it('builds the message from the counts with a function', async () => {
    const provider = scriptedProvider(toolLoop(6, 'a'))
    const seen: { maxTurns: number, remaining: number }[] = []
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a') },
      behavior: {
        maxTurns: 4,
        maxTurnsWarning: 3,
        maxTurnsWarningMessage: (ctx) => {
          seen.push(ctx)
          return `only ${ctx.remaining} of ${ctx.maxTurns} left`
        },
      },
    })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual([{ maxTurns: 4, remaining: 3 }])
    expect(injectedTexts(provider.requests[1].messages)).toEqual(['only 3 of 4 left'])
  })

  it.each([
    ['equal to maxTurns', 3],
    ['above maxTurns', 7],
    ['zero', 0],
    ['negative', -1],
  ])('is ignored when %s', async (_label, warnAt) => {
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTurns: 3, maxTurnsWarning: warnAt } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('max-turns')
    for (const request of provider.requests)
      expect(injectedTexts(request.messages)).toEqual([])
  })
})

describe('tools sent with the request', () => {
  it('sends every agent tool spec', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    await createAgent({ provider, tools: { a: echoTool('a'), b: echoTool('b') } }).run({ prompt: 'p' })
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['a', 'b'])
    expect(provider.requests[0].tools[0]).toMatchObject({ description: 'a tool', inputSchema: { type: 'object' } })
  })

  it('sends no tools when the run passes tools: {}', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    await createAgent({ provider, tools: { a: echoTool('a') } }).run({ prompt: 'p', tools: {} })
    expect(provider.requests[0].tools).toEqual([])
  })

  it('replaces the agent tools with the run tools', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'b', input: {} }, { name: 'a', input: {} }] },
      { text: 'x' },
    ])
    await createAgent({ provider, tools: { a: echoTool('a') } }).run({ prompt: 'p', tools: { b: echoTool('b') } })
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['b'])
    const results = provider.requests[1].messages[2].content
    expect(results[0]).toMatchObject({ output: 'b:{}' })
    expect(results[1]).toMatchObject({ isError: true })
  })
})

describe('request fields', () => {
  it('uses the default system prompt, then the agent one, then the run one', async () => {
    const provider = scriptedProvider([{ text: '1' }, { text: '2' }, { text: '3' }])
    await createAgent({ provider }).run({ prompt: 'p' })
    const withSystem = createAgent({ provider, system: 'Agent system.' })
    await withSystem.run({ prompt: 'p' })
    await withSystem.run({ prompt: 'p', system: 'Run system.' })
    expect(provider.requests.map(r => r.system)).toEqual(['You are a helpful assistant.', 'Agent system.', 'Run system.'])
  })

  it('passes thinking and model, defaulting to off and the provider default model', async () => {
    const provider = scriptedProvider([{ text: '1' }, { text: '2' }], { defaultModel: 'house-model' })
    const agent = createAgent({ provider })
    await agent.run({ prompt: 'p' })
    await agent.run({ prompt: 'p', thinking: 'high', model: 'other-model' })
    expect(provider.requests[0]).toMatchObject({ thinking: 'off', model: 'house-model' })
    expect(provider.requests[1]).toMatchObject({ thinking: 'high', model: 'other-model' })
  })

  it('passes the provider knobs of behavior to the request', async () => {
    const provider = scriptedProvider([{ text: '1' }])
    const behavior: AgentBehavior = { maxTokens: 321, cache: false, cacheTtl: '1h', thinkingBudget: 2048, taskBudget: 9000, effortHint: false }
    await createAgent({ provider, behavior }).run({ prompt: 'p' })
    expect(provider.requests[0]).toMatchObject(behavior)
  })

  it('sends a prompt given as parts, image included', async () => {
    const provider = scriptedProvider([{ text: 'a cat' }])
    const prompt = [
      { type: 'text' as const, text: 'What is this?' },
      // The PNG signature: the wire checks an image's first bytes against its type.
      { type: 'image' as const, data: 'iVBORw0KGgo=', mediaType: 'image/png' },
    ]
    await createAgent({ provider }).run({ prompt })
    expect(provider.requests[0].messages[0]).toEqual({ role: 'user', content: prompt })
  })
})

describe('behavior and modelOptions resolution', () => {
  it('merges the run behavior over the agent behavior, extensions key by key', async () => {
    let seen: ToolContext['behavior'] | undefined
    const probe = echoTool('probe', {
      execute: (_input, ctx) => {
        seen = ctx.behavior
        return 'ok'
      },
    })
    const provider = scriptedProvider(toolLoop(3, 'probe'))
    const agent = createAgent({ provider, tools: { probe }, behavior: { maxTurns: 1, maxConcurrentTools: 4, extensions: { a: 1, b: 1 } } })
    const stats = await agent.run({ prompt: 'p', behavior: { maxConcurrentTools: 2, extensions: { b: 2, c: 3 } } })

    expect(seen?.extensions).toEqual({ a: 1, b: 2, c: 3 })
    expect(seen?.maxConcurrentTools).toBe(2)
    // maxTurns still comes from the agent.
    expect(stats.stopReason).toBe('max-turns')
    expect(stats.turns).toBe(1)
  })

  it('lets a run behavior override an agent limit', async () => {
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTurns: 1 } })
    const stats = await agent.run({ prompt: 'p', behavior: { maxTurns: 3 } })
    expect(stats.turns).toBe(3)
  })

  it('prefers run modelOptions over behavior.modelOptions, and run behavior over agent behavior', async () => {
    const provider = scriptedProvider([{ text: '1' }, { text: '2' }, { text: '3' }])
    const agent = createAgent({ provider, behavior: { modelOptions: { from: 'agent' } } })
    await agent.run({ prompt: 'p' })
    await agent.run({ prompt: 'p', behavior: { modelOptions: { from: 'run-behavior' } } })
    await agent.run({ prompt: 'p', behavior: { modelOptions: { from: 'run-behavior' } }, modelOptions: { from: 'run' } })
    expect(provider.requests.map(r => r.modelOptions)).toEqual([{ from: 'agent' }, { from: 'run-behavior' }, { from: 'run' }])
  })
})

describe('run lifecycle', () => {
  it('throws a TypeError when run() has no prompt', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    const agent = createAgent({ provider })
    await expect(agent.run()).rejects.toBeInstanceOf(TypeError)
    await expect(agent.run({})).rejects.toBeInstanceOf(TypeError)
    expect(provider.requests).toHaveLength(0)
    expect(agent.running).toBe(false)
  })

  it('rejects a second concurrent run with AgentBusyError and stays usable', async () => {
    const provider = scriptedProvider([{ text: 'first', delayMs: 20 }, { text: 'third' }])
    const agent = createAgent({ provider })
    const first = agent.run({ prompt: '1' })
    expect(agent.running).toBe(true)
    await expect(agent.run({ prompt: '2' })).rejects.toBeInstanceOf(AgentBusyError)
    expect((await first).text).toBe('first')
    expect(agent.running).toBe(false)
    expect((await agent.run({ prompt: '3' })).text).toBe('third')
    expect(provider.requests).toHaveLength(2)
  })

  it('refuses runs after destroy(), and destroy() aborts the run in progress', async () => {
    const provider = scriptedProvider([{ text: 'slow', delayMs: 1_000 }, { text: 'never' }])
    const agent = createAgent({ provider })
    agent.hooks.hook('stream:start', () => {
      void agent.destroy()
    })
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('aborted')
    await expect(agent.run({ prompt: 'again' })).rejects.toBeInstanceOf(AgentAbortedError)
    expect(provider.requests).toHaveLength(1)
  })

  it('rejects a tool-less createAgent call without a provider', () => {
    expect(() => createAgent({} as never)).toThrow(TypeError)
  })
})

describe('clock', () => {
  function collectIds(agent: ReturnType<typeof createAgent>) {
    const runIds: string[] = []
    const turnIds: string[] = []
    agent.hooks.hook('agent:start', ctx => void runIds.push(ctx.runId))
    agent.hooks.hook('turn:after', (ctx: TurnAfterContext) => void turnIds.push(ctx.turnId))
    return { runIds, turnIds }
  }

  it('takes run ids and turn ids from the agent clock', async () => {
    const clock = fakeClock('agent')
    const agent = createAgent({ provider: scriptedProvider(toolLoop(1, 'a')), tools: { a: echoTool('a') }, clock })
    const { runIds, turnIds } = collectIds(agent)
    await agent.run({ prompt: 'p' })
    expect(runIds).toEqual(['agent-1'])
    expect(turnIds).toHaveLength(2)
    for (const id of turnIds)
      expect(clock.ids).toContain(id)
    expect(new Set(turnIds).size).toBe(2)
  })

  it('prefers the run clock over the agent clock', async () => {
    const agentClock = fakeClock('agent')
    const runClock = fakeClock('run')
    const agent = createAgent({ provider: scriptedProvider([{ text: 'x' }]), clock: agentClock })
    const { runIds, turnIds } = collectIds(agent)
    await agent.run({ prompt: 'p', clock: runClock })
    expect(runIds).toEqual(['run-1'])
    expect(turnIds[0]).toMatch(/^run-\d+$/)
    expect(agentClock.ids).toEqual([])
  })

  it('stamps recorded turns with the clock time', async () => {
    const time = { now: 42_000 }
    const { turns } = await runCapturingTurns({ provider: scriptedProvider([{ text: 'x' }]) }, { prompt: 'p', clock: fakeClock('c', time) })
    expect(turns.map(turn => turn.createdAt)).toEqual([42_000, 42_000])
    expect(turns.every(turn => /^c-\d+$/.test(turn.id) && turn.runId === 'c-1')).toBe(true)
  })
})

describe('the tool() helper inside a run', () => {
  it('passes parsed input with defaults applied to execute', async () => {
    let received: unknown
    const read = tool({
      name: 'read',
      description: 'Read',
      input: z.object({ path: z.string(), limit: z.number().default(10) }),
      execute: (input) => {
        received = input
        return 'ok'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'read', input: { path: 'a.txt' } }] }, { text: 'x' }])
    await createAgent({ provider, tools: { read } }).run({ prompt: 'p' })
    expect(received).toEqual({ path: 'a.txt', limit: 10 })
  })
})
