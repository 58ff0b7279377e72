import type { AgentHookName, TurnAfterContext } from '../../src/hooks/hook-map'
import type { ScriptedTurn } from '../../src/testing'
import type { ToolDef } from '../../src/tools/types'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentAbortedError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, pairingProblems, runCapturingTurns, ticks } from '../support/helpers'

describe('aborting a stream', () => {
  it('agent.abort() during a slow stream ends the run as aborted, agent:abort before agent:done', async () => {
    const provider = scriptedProvider([{ text: 'never seen', delayMs: 5_000 }])
    const agent = createAgent({ provider })
    const order: string[] = []
    agent.hooks.hook('stream:start', () => {
      setTimeout(() => agent.abort(), 5)
    })
    agent.hooks.hook('agent:abort', ctx => void order.push(`abort:${(ctx.reason as Error).name}`))
    agent.hooks.hook('agent:done', ctx => void order.push(`done:${ctx.stopReason}`))
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('aborted')
    expect(stats.text).toBe('')
    expect(order).toEqual(['abort:AgentAbortedError', 'done:aborted'])
    expect(agent.running).toBe(false)
  })

  it('aborts through the run signal', async () => {
    const provider = scriptedProvider([{ text: 'slow', delayMs: 5_000 }])
    const agent = createAgent({ provider })
    const controller = new AbortController()
    agent.hooks.hook('stream:start', () => {
      setTimeout(() => controller.abort('signal reason'), 5)
    })
    let reason: unknown
    agent.hooks.hook('agent:abort', (ctx) => {
      reason = ctx.reason
    })
    const stats = await agent.run({ prompt: 'p', signal: controller.signal })
    expect(stats.stopReason).toBe('aborted')
    expect(reason).toBe('signal reason')
  })

  it('does not call the provider when the run signal is already aborted', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    const agent = createAgent({ provider })
    const stats = await agent.run({ prompt: 'p', signal: AbortSignal.abort() })
    expect(stats.stopReason).toBe('aborted')
    expect(stats.turns).toBe(0)
    expect(provider.requests).toHaveLength(0)
  })

  it('is not hung by a provider that ignores the abort signal', async () => {
    const provider = {
      name: 'deaf',
      meta: { defaultModel: 'm' },
      capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
      stream: () => new Promise<never>(() => {}),
    }
    const agent = createAgent({ provider })
    agent.hooks.hook('stream:start', () => {
      setTimeout(() => agent.abort(), 5)
    })
    expect((await agent.run({ prompt: 'p' })).stopReason).toBe('aborted')
  })

  it('stops a retry backoff when aborted', async () => {
    const provider = scriptedProvider([{ error: { kind: 'overloaded', retryable: true } }, { text: 'never' }])
    const agent = createAgent({ provider, behavior: { retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } } })
    agent.hooks.hook('stream:retry', () => {
      setTimeout(() => agent.abort(), 5)
    })
    expect((await agent.run({ prompt: 'p' })).stopReason).toBe('aborted')
    expect(provider.requests).toHaveLength(1)
  })
})

describe('aborting while tools run', () => {
  it('aborts the tool signal and gives every call of the turn exactly one result', async () => {
    let toolSignal: AbortSignal | undefined
    let othersRan = 0
    let abortRun = () => {}
    const slow = echoTool('slow', {
      execute: (_input, ctx) => {
        toolSignal = ctx.signal
        setTimeout(abortRun, 1)
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        })
      },
    })
    const other = echoTool('other', {
      execute: () => {
        othersRan++
        return 'other'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'slow', input: {}, id: 't1' }, { name: 'other', input: {}, id: 't2' }, { name: 'other', input: {}, id: 't3' }] }])
    const agent = createAgent({ provider, tools: { slow, other } })
    abortRun = () => agent.abort()
    const after: TurnAfterContext[] = []
    agent.hooks.hook('turn:after', ctx => void after.push(ctx))
    const stats = await agent.run({ prompt: 'p' })

    expect(stats.stopReason).toBe('aborted')
    expect(toolSignal?.aborted).toBe(true)
    expect(othersRan).toBe(0)
    expect(after).toHaveLength(1)
    const results = after[0].toolResults
    expect(results.map(r => r.callId)).toEqual(['t1', 't2', 't3'])
    expect(results.every(r => r.isError)).toBe(true)
    expect(results[0].output).toMatch(/^Aborted: .*while this tool was running/)
    expect(results[1].output).toMatch(/^Aborted: .*before this tool call started/)
    expect(results[2].output).toMatch(/^Aborted: .*before this tool call started/)
  })

  it('records the paired results in the conversation', async () => {
    // Aborted once a tool is running (not on a timer from the start, which a slow first run could outlive).
    let abort = () => {}
    const hang = echoTool('hang', {
      execute: () => {
        setTimeout(abort, 5)
        return new Promise(() => {})
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'hang', input: {}, id: 'h1' }, { name: 'hang', input: {}, id: 'h2' }] }])
    const { stats, turns } = await runCapturingTurns({ provider, tools: { hang } }, { prompt: 'p' }, (controller) => {
      abort = () => controller.abort(new AgentAbortedError())
    })
    expect(stats?.stopReason).toBe('aborted')
    expect(turns.map(t => t.role)).toEqual(['user', 'assistant', 'user'])
    expect(pairingProblems(turns)).toEqual([])
  })

  it('is not hung by a tool that ignores its signal', async () => {
    let abortRun = () => {}
    const deaf = echoTool('deaf', {
      execute: () => {
        setTimeout(abortRun, 1)
        return new Promise(() => {})
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'deaf', input: {} }] }, { text: 'never' }])
    const agent = createAgent({ provider, tools: { deaf } })
    abortRun = () => agent.abort()
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('aborted')
    expect(provider.requests).toHaveLength(1)
  })

  it('handles a tool that aborts the run and then fails (no unhandled rejection)', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      let abortRun = () => {}
      const guard = echoTool('guard', {
        execute: async () => {
          abortRun()
          throw new Error('late failure')
        },
      })
      const agent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'guard', input: {} }] }]), tools: { guard } })
      abortRun = () => agent.abort()
      const stats = await agent.run({ prompt: 'p' })
      await new Promise(resolve => setTimeout(resolve, 5))
      expect(stats.stopReason).toBe('aborted')
      expect(unhandled).toEqual([])
    }
    finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it.each(['tool:gate', 'tool:before'] as const)('does not start a tool when %s aborts the run', async (hook) => {
    let ran = 0
    const work = echoTool('work', {
      execute: () => {
        ran++
        return 'did work'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'work', input: {}, id: 'w1' }] }, { text: 'never' }])
    const agent = createAgent({ provider, tools: { work } })
    agent.hooks.hook(hook, () => agent.abort())
    const results: string[] = []
    agent.hooks.hook('tool:after', ctx => void results.push(String(ctx.result)))
    const stats = await agent.run({ prompt: 'p' })
    await ticks(5)
    expect(stats.stopReason).toBe('aborted')
    expect(ran).toBe(0)
    expect(results).toHaveLength(1)
    expect(results[0]).toMatch(/^Aborted: .*before this tool call started/)
  })
})

describe('abort pairing property', () => {
  const HOOKS: AgentHookName[] = ['turn:before', 'stream:start', 'stream:text', 'stream:end', 'usage', 'tool:gate', 'tool:before', 'tool:transform', 'tool:after', 'tool-results:after', 'turn:after']

  const callArb = fc.record({ safe: fc.boolean(), ticks: fc.integer({ min: 0, max: 6 }), ignoresSignal: fc.boolean() })
  const turnArb = fc.record({ text: fc.boolean(), calls: fc.array(callArb, { minLength: 1, maxLength: 4 }) })
  const abortArb = fc.oneof(
    fc.record({ kind: fc.constant('tool-start' as const), k: fc.integer({ min: 1, max: 12 }) }),
    fc.record({ kind: fc.constant('hook' as const), hook: fc.constantFrom(...HOOKS), nth: fc.integer({ min: 1, max: 4 }) }),
  )

  it('every tool_call keeps exactly one tool_result whatever the abort point', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(turnArb, { minLength: 1, maxLength: 4 }),
      abortArb,
      fc.integer({ min: 1, max: 4 }),
      async (script, abortAt, maxConcurrentTools) => {
        let abortRequested = false
        let startedAfterAbort = false
        let starts = 0
        let abort: () => void = () => {}
        const requestAbort = () => {
          abortRequested = true
          abort()
        }

        const makeTool = (name: string, safe: boolean): ToolDef => ({
          spec: { name, description: name, inputSchema: { type: 'object' } },
          isConcurrencySafe: safe,
          async execute(input: { ticks: number, ignoresSignal: boolean }, ctx) {
            if (abortRequested)
              startedAfterAbort = true
            starts++
            if (abortAt.kind === 'tool-start' && starts === abortAt.k)
              requestAbort()
            if (input.ignoresSignal) {
              await ticks(input.ticks)
              return 'ignored the signal'
            }
            for (let i = 0; i < input.ticks; i++) {
              if (ctx.signal.aborted)
                throw new Error('stopped early')
              await Promise.resolve()
            }
            return 'ok'
          },
        })

        const turns: ScriptedTurn[] = script.map(turn => ({
          text: turn.text ? 'working' : undefined,
          toolCalls: turn.calls.map(call => ({ name: call.safe ? 'safe' : 'unsafe', input: { ticks: call.ticks, ignoresSignal: call.ignoresSignal } })),
        }))
        turns.push({ text: 'finished' })

        const hookCounts = new Map<string, number>()
        const hooks = abortAt.kind === 'hook'
          ? {
              [abortAt.hook]: () => {
                const n = (hookCounts.get(abortAt.hook) ?? 0) + 1
                hookCounts.set(abortAt.hook, n)
                if (n === abortAt.nth)
                  requestAbort()
              },
            }
          : undefined

        const provider = scriptedProvider(turns)
        const run = await runCapturingTurns(
          { provider, tools: { safe: makeTool('safe', true), unsafe: makeTool('unsafe', false) }, hooks, behavior: { maxConcurrentTools } },
          { prompt: 'go' },
          (controller) => {
            abort = () => controller.abort(new AgentAbortedError())
          },
        )

        expect(run.error).toBeUndefined()
        expect(['aborted', 'completed']).toContain(run.stats!.stopReason)
        expect(run.stats!.stopReason === 'aborted').toBe(abortRequested)
        expect(pairingProblems(run.turns)).toEqual([])
        expect(startedAfterAbort).toBe(false)
        // The last request the model saw is well paired too.
        const last = provider.requests.at(-1)
        if (last)
          expect(pairingProblems(last.messages)).toEqual([])
      },
    ), { numRuns: 50 })
  })
})
