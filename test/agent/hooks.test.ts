import type { AgentHookName, AgentHooks } from '../../src/hooks/hook-map'
import type { ToolDef } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { OperationTimeoutError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, textOf, wait } from '../support/helpers'

const ALL_HOOKS: AgentHookName[] = [
  'agent:start',
  'agent:done',
  'agent:abort',
  'agent:error',
  'turn:before',
  'turn:after',
  'system:transform',
  'context:transform',
  'stream:start',
  'stream:text',
  'stream:thinking',
  'stream:end',
  'stream:retry',
  'usage',
  'tool:gate',
  'tool:before',
  'tool:transform',
  'tool:after',
  'tool:error',
  'tool-results:after',
]

interface Recorded { name: AgentHookName, ctx: any }

/** Register a recorder on every hook; contexts are copied shallowly at call time. */
function recordAll(): { events: Recorded[], hooks: { [K in AgentHookName]: AgentHooks[K] } } {
  const events: Recorded[] = []
  const hooks = {} as { [K in AgentHookName]: AgentHooks[K] }
  for (const name of ALL_HOOKS)
    (hooks as Record<string, (ctx: unknown) => void>)[name] = ctx => void events.push({ name, ctx: { ...(ctx as object) } })
  return { events, hooks }
}

const boom: ToolDef = echoTool('boom', {
  execute: () => {
    throw new Error('kaput')
  },
})

describe('every hook fires with its documented context', () => {
  it('covers a run with thinking, text, a retry, a tool that works and one that throws', async () => {
    const { events, hooks } = recordAll()
    const provider = scriptedProvider([
      { error: { kind: 'overloaded', retryable: true } },
      { thinking: 'hmm', text: ['a', 'b'], toolCalls: [{ name: 'ok', input: { q: 1 }, id: 'k1' }, { name: 'boom', input: {}, id: 'k2' }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { ok: echoTool('ok'), boom }, hooks, behavior: { retry: { initialDelayMs: 0 } } })
    const stats = await agent.run({ prompt: 'go', depth: 2, parentRunId: 'parent-run', parentCallId: 'parent-call', metadata: { m: 1 }, tracingContext: { traceparent: 't' } })

    const fired = new Set(events.map(e => e.name))
    for (const name of ALL_HOOKS.filter(n => n !== 'agent:abort' && n !== 'agent:error'))
      expect(fired, name).toContain(name)
    expect(fired).not.toContain('agent:abort')
    expect(fired).not.toContain('agent:error')

    const start = events.find(e => e.name === 'agent:start')!.ctx
    expect(start).toMatchObject({ provider: 'scripted', model: 'scripted-model', prompt: 'go', metadata: { m: 1 }, tracingContext: { traceparent: 't' } })
    const runId = start.runId
    expect(typeof runId).toBe('string')
    for (const { name, ctx } of events)
      expect(ctx, name).toMatchObject({ runId, depth: 2, parentRunId: 'parent-run', parentCallId: 'parent-call' })

    const turnAfters = events.filter(e => e.name === 'turn:after').map(e => e.ctx)
    expect(turnAfters.map(c => c.turn)).toEqual([1, 2])
    const [turn1, turn2] = turnAfters.map(c => c.turnId as string)
    const streamScoped: AgentHookName[] = ['turn:before', 'system:transform', 'context:transform', 'stream:start', 'stream:text', 'stream:thinking', 'stream:end', 'stream:retry', 'usage', 'tool-results:after']
    for (const { name, ctx } of events.filter(e => streamScoped.includes(e.name)))
      expect([turn1, turn2], name).toContain(ctx.turnId)

    // Per-turn hooks fire once per turn; stream:start once per attempt.
    const count = (name: AgentHookName) => events.filter(e => e.name === name).length
    expect(count('turn:before')).toBe(2)
    expect(count('usage')).toBe(2)
    expect(count('stream:end')).toBe(2)
    expect(count('stream:start')).toBe(3)
    expect(events.filter(e => e.name === 'stream:start').map(e => e.ctx.attempt)).toEqual([1, 2, 1])
    expect(count('stream:retry')).toBe(1)
    expect(count('tool:gate')).toBe(2)
    expect(count('tool:before')).toBe(2)
    expect(count('tool:transform')).toBe(2)
    expect(count('tool:after')).toBe(2)
    expect(count('tool:error')).toBe(1)
    expect(count('agent:done')).toBe(1)

    const toolEvents = events.filter(e => e.name.startsWith('tool:'))
    for (const { name, ctx } of toolEvents) {
      expect(ctx.turnId, name).toBe(turn1)
      expect(['k1', 'k2'], name).toContain(ctx.callId)
      expect(ctx.name, name).toBe(ctx.callId === 'k1' ? 'ok' : 'boom')
      expect(ctx.displayName, name).toBe(ctx.name)
    }
    expect(events.find(e => e.name === 'tool:before')!.ctx.input).toEqual({ q: 1 })
    expect(events.find(e => e.name === 'tool:error')!.ctx).toMatchObject({ callId: 'k2', error: expect.objectContaining({ message: 'kaput' }) })

    const retry = events.find(e => e.name === 'stream:retry')!.ctx
    expect(retry).toMatchObject({ turnId: turn1, attempt: 2, error: expect.objectContaining({ kind: 'overloaded' }) })
    expect(events.find(e => e.name === 'stream:end' && e.ctx.turnId === turn1)!.ctx).toMatchObject({ finishReason: 'tool-calls' })
    expect(events.find(e => e.name === 'tool-results:after')!.ctx.results.map((r: { callId: string }) => r.callId)).toEqual(['k1', 'k2'])
    expect(events.find(e => e.name === 'turn:before')!.ctx.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go' }] }])
    expect(events.find(e => e.name === 'system:transform')!.ctx.system).toBe('You are a helpful assistant.')
    expect(turnAfters[0].assistant.role).toBe('assistant')
    expect(turnAfters[0].toolResults).toHaveLength(2)
    expect(turnAfters[1]).toMatchObject({ finishReason: 'stop', toolResults: [] })

    const done = events.find(e => e.name === 'agent:done')!.ctx
    expect(done.stopReason).toBe('completed')
    expect(done.stats).toBe(stats)
    expect(events.at(-1)!.name).toBe('agent:done')
    expect(events[0].name).toBe('agent:start')
  })

  it('fires agent:abort with the reason and then agent:done', async () => {
    const { events, hooks } = recordAll()
    const provider = scriptedProvider([{ text: 'slow', delayMs: 1_000 }])
    const agent = createAgent({ provider, hooks })
    agent.hooks.hook('stream:start', () => agent.abort('user left'))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('aborted')
    const names = events.map(e => e.name)
    expect(names.indexOf('agent:abort')).toBeLessThan(names.indexOf('agent:done'))
    expect(events.find(e => e.name === 'agent:abort')!.ctx.reason).toBe('user left')
    expect(events.find(e => e.name === 'agent:done')!.ctx.stopReason).toBe('aborted')
  })

  it('fires agent:error with the error when the run throws', async () => {
    const { events, hooks } = recordAll()
    const provider = scriptedProvider([{ error: { kind: 'auth', message: 'bad key' } }])
    const agent = createAgent({ provider, hooks })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)
    expect(error.name).toBe('AgentProviderError')
    const failed = events.filter(e => e.name === 'agent:error')
    expect(failed).toHaveLength(1)
    expect(failed[0].ctx.error).toBe(error)
    expect(events.some(e => e.name === 'agent:done')).toBe(false)
  })
})

describe('tool:gate', () => {
  it('blocks a call: the model sees Blocked: <reason> and the tool never runs', async () => {
    let ran = 0
    const shell = echoTool('shell', {
      execute: () => {
        ran++
        return 'ran'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'shell', input: { cmd: 'rm -rf /' } }] }, { text: 'ok' }])
    const agent = createAgent({ provider, tools: { shell } })
    agent.hooks.hook('tool:gate', (ctx) => {
      ctx.block = true
      ctx.reason = 'destructive command'
    })
    await agent.run({ prompt: 'p' })
    expect(ran).toBe(0)
    expect(provider.requests[1].messages[2].content[0]).toMatchObject({ output: 'Blocked: destructive command', isError: true })
  })

  it('substitutes a result without running the tool, and transform/after still fire', async () => {
    let ran = 0
    const read = echoTool('read', {
      execute: () => {
        ran++
        return 'fresh'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'read', input: {} }] }, { text: 'ok' }])
    const seen: string[] = []
    const agent = createAgent({ provider, tools: { read } })
    agent.hooks.hook('tool:gate', (ctx) => {
      ctx.result = 'cached'
    })
    agent.hooks.hook('tool:transform', (ctx) => {
      seen.push(`transform:${ctx.result}`)
      ctx.result = `${ctx.result}!`
    })
    agent.hooks.hook('tool:after', ctx => void seen.push(`after:${ctx.result}:${ctx.isError}`))
    agent.hooks.hook('tool:before', () => void seen.push('before'))
    await agent.run({ prompt: 'p' })
    expect(ran).toBe(0)
    expect(seen).toEqual(['transform:cached', 'after:cached!:false'])
    expect(provider.requests[1].messages[2].content[0]).toMatchObject({ output: 'cached!' })
  })
})

describe('tool:transform and tool:after', () => {
  it('lets tool:transform rewrite what the model receives', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'ok' }])
    const agent = createAgent({ provider, tools: { a: echoTool('a', { execute: () => 'secret=hunter2' }) } })
    agent.hooks.hook('tool:transform', (ctx) => {
      expect(ctx.outputBytes).toBe('secret=hunter2'.length)
      ctx.result = (ctx.result as string).replace('hunter2', '***')
    })
    await agent.run({ prompt: 'p' })
    expect(provider.requests[1].messages[2].content[0]).toMatchObject({ output: 'secret=***' })
  })

  it('reports outcome, outputBytes and durationMs on tool:after', async () => {
    const edit = echoTool('edit', {
      execute: async (_input, ctx) => {
        ctx.reportOutcome('edited')
        await wait(2)
        return 'héllo ✓'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'edit', input: {} }] }, { text: 'ok' }])
    const agent = createAgent({ provider, tools: { edit } })
    const after: any[] = []
    agent.hooks.hook('tool:after', ctx => void after.push(ctx))
    await agent.run({ prompt: 'p' })
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ outcome: 'edited', isError: false, result: 'héllo ✓', outputBytes: Buffer.byteLength('héllo ✓') })
    expect(after[0].outputBytes).toBe(10)
    expect(typeof after[0].durationMs).toBe('number')
    expect(after[0].durationMs).toBeGreaterThanOrEqual(0)
  })
})

describe('request transforms', () => {
  it('system:transform changes this request only', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'ok' }])
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, system: 'base' })
    let calls = 0
    agent.hooks.hook('system:transform', (ctx) => {
      calls++
      if (calls === 1)
        ctx.system = `${ctx.system} + extra`
    })
    await agent.run({ prompt: 'p' })
    expect(provider.requests.map(r => r.system)).toEqual(['base + extra', 'base'])
  })

  it('context:transform changes what is sent but never the recorded turns', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'ok' }])
    const agent = createAgent({ provider, tools: { a: echoTool('a') } })
    let calls = 0
    agent.hooks.hook('context:transform', (ctx) => {
      calls++
      if (calls === 1)
        ctx.messages = [{ role: 'user', content: [{ type: 'text', text: 'REWRITTEN' }] }]
      else
        ctx.messages[0] = { ...ctx.messages[0], content: [{ type: 'text', text: 'ALSO REWRITTEN' }] }
    })
    const before: string[] = []
    agent.hooks.hook('turn:before', ctx => void before.push(textOf(ctx.messages[0])))
    await agent.run({ prompt: 'original' })
    expect(textOf(provider.requests[0].messages[0])).toBe('REWRITTEN')
    expect(textOf(provider.requests[1].messages[0])).toBe('ALSO REWRITTEN')
    // The wire view each turn starts from is still built from the untouched turns.
    expect(before).toEqual(['original', 'original'])
    expect(provider.requests[1].messages).toHaveLength(3)
  })
})

describe('streaming hooks', () => {
  it('forwards text and thinking deltas in order with the turn id', async () => {
    const provider = scriptedProvider([{ thinking: 'let me think', text: ['one ', 'two ', 'three'] }])
    const agent = createAgent({ provider })
    const deltas: string[] = []
    const turnIds = new Set<string>()
    agent.hooks.hook('stream:thinking', (ctx) => {
      deltas.push(`think:${ctx.delta}`)
      turnIds.add(ctx.turnId)
    })
    agent.hooks.hook('stream:text', (ctx) => {
      deltas.push(`text:${ctx.delta}`)
      turnIds.add(ctx.turnId)
    })
    await agent.run({ prompt: 'p' })
    expect(deltas).toEqual(['think:let me think', 'text:one ', 'text:two ', 'text:three'])
    expect(turnIds.size).toBe(1)
  })

  it('fires usage exactly once per turn with that turn\'s usage', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'a', input: {} }], usage: { input: 100, output: 1 } },
      { toolCalls: [{ name: 'a', input: {} }], usage: { input: 200, output: 2 } },
      { text: 'x', usage: { input: 300, output: 3 } },
    ])
    const agent = createAgent({ provider, tools: { a: echoTool('a') } })
    const usages: number[] = []
    agent.hooks.hook('usage', ctx => void usages.push(ctx.usage.input))
    await agent.run({ prompt: 'p' })
    expect(usages).toEqual([100, 200, 300])
  })
})

describe('per-run hooks', () => {
  it('attaches single and array handlers for one run and detaches them after', async () => {
    const provider = scriptedProvider([{ text: '1' }, { text: '2' }])
    const agent = createAgent({ provider })
    const fired: string[] = []
    const hooks = {
      'agent:done': () => void fired.push('done'),
      'turn:after': [() => void fired.push('after-1'), () => void fired.push('after-2')],
    }
    await agent.run({ prompt: 'p', hooks })
    expect(fired).toEqual(['after-1', 'after-2', 'done'])
    await agent.run({ prompt: 'p' })
    expect(fired).toEqual(['after-1', 'after-2', 'done'])
  })

  it('detaches per-run hooks when the run throws', async () => {
    const provider = scriptedProvider([{ error: { kind: 'auth' } }, { text: 'ok' }])
    const agent = createAgent({ provider })
    let calls = 0
    await expect(agent.run({ prompt: 'p', hooks: { 'agent:start': () => void calls++ } })).rejects.toThrow()
    await agent.run({ prompt: 'p' })
    expect(calls).toBe(1)
  })

  it('refuses an unknown hook name, without leaving the valid ones attached', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    const agent = createAgent({ provider })
    let calls = 0
    // @ts-expect-error an unknown event name is refused by the type too; this checks the run-time refusal
    await expect(agent.run({ prompt: 'p', hooks: { 'turn:after': () => void calls++, 'turn:afterr': () => {} } })).rejects.toThrow(/Unknown hook "turn:afterr"/)
    expect(agent.running).toBe(false)
    expect(provider.requests).toHaveLength(0)
    await agent.run({ prompt: 'p' })
    expect(calls).toBe(0)
  })

  it('refuses an unknown hook name at createAgent', () => {
    expect(() => createAgent({ provider: scriptedProvider(), hooks: { 'nope:nope': () => {} } as never })).toThrow(TypeError)
  })
})

describe('hookTimeoutMs', () => {
  const never = () => new Promise<void>(() => {})

  it.each(['context:transform', 'system:transform', 'turn:before'] as const)('fails the run with OperationTimeoutError when %s never settles', async (name) => {
    const provider = scriptedProvider([{ text: 'x' }])
    const agent = createAgent({ provider, behavior: { hookTimeoutMs: 20 } })
    agent.hooks.hook(name, never)
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(OperationTimeoutError)
    expect(error.timeoutMs).toBe(20)
    expect(error.operation).toContain(name)
    expect(provider.requests).toHaveLength(0)
    expect(agent.running).toBe(false)
  })

  it.each(['turn:after', 'agent:done', 'agent:start', 'usage', 'stream:end', 'tool:after', 'tool-results:after'] as const)('only waits out the timeout when the observer %s never settles', async (name) => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'finished' }])
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { hookTimeoutMs: 15 } })
    agent.hooks.hook(name, never)
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('finished')
  })

  it('is disabled by 0: a slow transform is awaited and applied', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    const agent = createAgent({ provider, behavior: { hookTimeoutMs: 0 } })
    agent.hooks.hook('context:transform', async (ctx) => {
      await wait(30)
      ctx.messages = [{ role: 'user', content: [{ type: 'text', text: 'late but applied' }] }]
    })
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('completed')
    expect(textOf(provider.requests[0].messages[0])).toBe('late but applied')
  })

  it('times out the same slow transform when set lower than it', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    const agent = createAgent({ provider, behavior: { hookTimeoutMs: 5 } })
    agent.hooks.hook('context:transform', () => wait(30))
    await expect(agent.run({ prompt: 'p' })).rejects.toBeInstanceOf(OperationTimeoutError)
  })
})
