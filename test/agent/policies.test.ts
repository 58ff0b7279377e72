import type { BehaviorPolicy, CallDecision } from '../../src/agent'
import type { ToolOutput } from '../../src/core/tool-io'
import type { RunContext } from '../../src/loop/run-context'
import type { WireStage } from '../../src/wire/stage'
import { describe, expect, it } from 'vitest'
import { continueWith, createAgent, definePolicy, nudge } from '../../src/agent'
import { AgentBudgetExceededError, AgentContextExceededError, AgentPolicyError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, injectedTexts, runCapturingTurns, textOf } from '../support/helpers'

/** At most `max` tool calls per run, counted over whole batches (a parallel batch is gated at once). */
function callBudget(max: number): BehaviorPolicy<{ used: number }> {
  return {
    name: 'call-budget',
    initialState: () => ({ used: 0 }),
    gateBatch({ state, calls }) {
      let used = state.used
      const decisions = calls.map((call): CallDecision | undefined => {
        if (call.decided)
          return undefined
        if (used >= max)
          return { type: 'block', reason: `the run may make ${max} tool calls` }
        used += 1
        return undefined
      })
      return { decisions, state: { used } }
    },
  }
}

describe('createAgent({ policies })', () => {
  it('refuses duplicate names, an unknown `after`, a cycle and a policy without a name, with a typed error', () => {
    const provider = scriptedProvider([])
    const make = (policies: BehaviorPolicy[]) => () => createAgent({ provider, policies })
    expect(make([{ name: 'a' }, { name: 'a' }])).toThrow(AgentPolicyError)
    expect(make([{ name: 'a' }, { name: 'a' }])).toThrow(expect.objectContaining({ problem: 'duplicate', policy: 'a' }))
    expect(make([{ name: 'run-budgets' }])).toThrow(expect.objectContaining({ problem: 'duplicate' }))
    expect(make([{ name: 'a', after: ['nope'] }])).toThrow(expect.objectContaining({ problem: 'unknown-after', message: expect.stringContaining('"nope"') }))
    expect(make([{ name: 'a', after: ['b'] }, { name: 'b', after: ['a'] }])).toThrow(expect.objectContaining({ problem: 'cycle', message: expect.stringMatching(/"a".*"b"/) }))
    expect(make([{ name: '' }])).toThrow(expect.objectContaining({ problem: 'invalid' }))
    expect(make([{ name: 'x', afterTurn: 'no' as never }])).toThrow(expect.objectContaining({ problem: 'invalid', message: expect.stringContaining('afterTurn') }))
  })

  it('runs host policies after the built-ins in list order, moved by `after`', async () => {
    const order: string[] = []
    const probe = (name: string, after?: string[]): BehaviorPolicy => ({
      name,
      after,
      enabled: () => {
        order.push(name)
        return false
      },
    })
    const agent = createAgent({ provider: scriptedProvider([{ text: 'ok' }]), policies: [probe('first', ['second']), probe('second'), probe('late', ['steering'])] })
    await agent.run({ prompt: 'go' })
    expect(order).toEqual(['second', 'first', 'late'])
  })

  it('refuses a state that is not plain JSON when the run starts', async () => {
    const agent = createAgent({ provider: scriptedProvider([{ text: 'ok' }]), policies: [{ name: 'mapper', initialState: () => new Map() as never }] })
    await expect(agent.run({ prompt: 'go' })).rejects.toThrow(expect.objectContaining({ name: 'AgentPolicyError', problem: 'state', message: expect.stringContaining('Map') }))
  })
})

describe('request phase', () => {
  it('patches the request fields; each policy sees the earlier patch', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    const seen: (number | undefined)[] = []
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a'), b: echoTool('b') },
      policies: [
        { name: 'small', request: ({ request }) => ({ decision: { maxTokens: 100, system: `${request.system} Be brief.` } }) },
        {
          name: 'narrow',
          request: ({ request }) => {
            seen.push(request.maxTokens)
            return { decision: { tools: request.tools.filter(tool => tool.name === 'a') } }
          },
        },
      ],
    })
    await agent.run({ prompt: 'go', system: 'You help.' })
    expect(seen).toEqual([100])
    expect(provider.requests[0]).toMatchObject({ maxTokens: 100, system: 'You help. Be brief.' })
    expect(provider.requests[0].tools.map(tool => tool.name)).toEqual(['a'])
  })
})

describe('wire stages', () => {
  it('are collected from the enabled policies into the run, in policy order', async () => {
    const stage = (name: string): WireStage => ({ name, apply: messages => messages })
    let run: RunContext | undefined
    const capture: BehaviorPolicy = {
      name: 'capture',
      enabled: (_behavior, view) => {
        run = view as RunContext
        return false
      },
    }
    await runCapturingTurns({
      provider: scriptedProvider([{ text: 'ok' }]),
      policies: [
        { name: 'one', wireStages: () => [stage('one:a'), stage('one:b')] },
        { name: 'off', enabled: () => false, wireStages: () => [stage('off')] },
        { name: 'two', wireStages: () => [stage('two')] },
        capture,
      ],
    }, { prompt: 'go' })
    expect(run!.wireStages.map(s => s.name)).toEqual(['one:a', 'one:b', 'two'])
  })
})

describe('batch gate', () => {
  it('gates a parallel batch at once, before any call runs, so a budget is atomic across it', async () => {
    let running = 0
    let maxRunning = 0
    const slow = echoTool('slow', {
      isConcurrencySafe: true,
      execute: async () => {
        running += 1
        maxRunning = Math.max(maxRunning, running)
        await new Promise(resolve => setTimeout(resolve, 5))
        running -= 1
        return 'ran'
      },
    })
    const provider = scriptedProvider([
      { toolCalls: [1, 2, 3].map(i => ({ name: 'slow', input: { i }, id: `c${i}` })) },
      { toolCalls: [{ name: 'slow', input: { i: 4 }, id: 'c4' }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { slow }, policies: [callBudget(2)] })
    await agent.run({ prompt: 'go' })
    const results = (index: number) => provider.requests[index].messages.at(-1)!.content.map(block => block.type === 'tool_result' ? block.output : '')
    expect(results(1)).toEqual(['ran', 'ran', 'Blocked: the run may make 2 tool calls'])
    expect(results(2)).toEqual(['Blocked: the run may make 2 tool calls'])
    expect(maxRunning).toBe(2)
  })

  it('shows later policies what earlier ones decided, and does not count calls the loop already refused', async () => {
    const seen: (string | undefined)[][] = []
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'nope', input: {} }, { name: 'a', input: {} }, { name: 'a', input: {} }] },
      { text: 'done' },
    ])
    const watcher: BehaviorPolicy = {
      name: 'watcher',
      gateBatch: ({ calls }) => void seen.push(calls.map(call => call.decided?.type)),
    }
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, policies: [callBudget(1), watcher] })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual([['block', undefined, 'block']])
    const outputs = provider.requests[1].messages.at(-1)!.content.map(block => block.type === 'tool_result' ? String(block.output) : '')
    expect(outputs[0]).toMatch(/no tool named "nope"/)
    expect(outputs[1]).toBe('a:{}')
    expect(outputs[2]).toBe('Blocked: the run may make 1 tool calls')
  })

  it('a substitute answers the call without running it; a later block wins over it, a later substitute does not', async () => {
    let ran = 0
    const a = echoTool('a', {
      execute: () => {
        ran += 1
        return 'real'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: { n: 1 } }, { name: 'a', input: { n: 2 } }] }, { text: 'done' }])
    const agent = createAgent({
      provider,
      tools: { a },
      policies: [
        { name: 'cache', gateBatch: ({ calls }) => ({ decisions: calls.map(() => ({ type: 'substitute', result: 'cached' }) as const) }) },
        { name: 'deny-2', gateBatch: ({ calls }) => ({ decisions: calls.map(call => call.input.n === 2 ? { type: 'block', reason: 'two is out' } as const : undefined) }) },
        // Ranks below a block and, of two substitutes, the earlier one stays.
        { name: 'late-cache', gateBatch: ({ calls }) => ({ decisions: calls.map(() => ({ type: 'substitute', result: 'late' }) as const) }) },
      ],
    })
    await agent.run({ prompt: 'go' })
    const outputs = provider.requests[1].messages.at(-1)!.content.map(block => block.type === 'tool_result' ? block.output : '')
    expect(outputs).toEqual(['cached', 'Blocked: two is out'])
    expect(ran).toBe(0)
  })
})

describe('per-call gate and result phase', () => {
  it('the host tool:gate fires after the policy gate, sees its verdict, and has the last word', async () => {
    const seen: { block?: boolean, reason?: string }[] = []
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: { n: 1 } }, { name: 'a', input: { n: 2 } }] }, { text: 'done' }])
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a') },
      policies: [{ name: 'no-a', gateCall: () => ({ decision: { type: 'block', reason: 'policy says no' } }) }],
      hooks: {
        'tool:gate': (gate) => {
          seen.push({ block: gate.block, reason: gate.reason })
          if (gate.input.n === 2)
            gate.block = false
        },
      },
    })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual([{ block: true, reason: 'policy says no' }, { block: true, reason: 'policy says no' }])
    const outputs = provider.requests[1].messages.at(-1)!.content.map(block => block.type === 'tool_result' ? block.output : '')
    expect(outputs).toEqual(['Blocked: policy says no', 'a:{"n":2}'])
  })

  it('a result phase sees the result after tool:transform, and may replace it before tool:after', async () => {
    const afterSeen: ToolOutput[] = []
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }])
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a') },
      policies: [{ name: 'redact', result: ({ result }) => ({ decision: { type: 'replace', result: `${String(result)} [redacted]` } }) }],
      hooks: {
        'tool:transform': (ctx) => {
          ctx.result = `${String(ctx.result)} [transformed]`
        },
        'tool:after': ctx => void afterSeen.push(ctx.result),
      },
    })
    await agent.run({ prompt: 'go' })
    expect(afterSeen).toEqual(['a:{} [transformed] [redacted]'])
  })

  it('a gate that throws blocks the call; an abort decision aborts the run', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { toolCalls: [{ name: 'a', input: {} }] }, { text: 'never' }])
    let calls = 0
    const agent = createAgent({
      provider,
      tools: { a: echoTool('a') },
      policies: [{
        name: 'flaky',
        gateCall: () => {
          calls += 1
          if (calls === 1)
            throw new Error('boom')
          return { decision: { type: 'abort', reason: new Error('enough') } }
        },
      }],
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(textOf(provider.requests[1].messages.at(-1))).toBe('')
    expect(provider.requests[1].messages.at(-1)!.content[0]).toMatchObject({ output: 'Blocked: a policy gate failed (boom)', isError: true })
    expect(stats.stopReason).toBe('aborted')
    expect(provider.requests).toHaveLength(2)
  })
})

describe('after-turn phase', () => {
  it('takes one continuation per turn: the first wins, a later one is dropped', async () => {
    const provider = scriptedProvider([{ text: 'first' }, { text: 'second' }])
    const agent = createAgent({
      provider,
      policies: [
        { name: 'one', afterTurn: ({ turn }) => turn === 1 ? { decision: continueWith('go on (one)', 'nudge') } : undefined },
        { name: 'two', afterTurn: ({ turn, decided }) => turn === 1 ? { decision: continueWith(`go on (two, after ${decided.continues})`, 'nudge') } : undefined },
      ],
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.turns).toBe(2)
    expect(injectedTexts(provider.requests[1].messages)).toEqual(['go on (one)'])
  })

  it('a stop outranks a continuation; an abort outranks a stop', async () => {
    const stopper = createAgent({
      provider: scriptedProvider([{ text: 'x', finishReason: 'pause' }, { text: 'never' }]),
      policies: [{ name: 'stopper', afterTurn: () => ({ decision: { type: 'stop', reason: 'completed' } }) }],
    })
    const stopped = await stopper.run({ prompt: 'go' })
    expect(stopped).toMatchObject({ stopReason: 'completed', turns: 1 })

    const aborter = createAgent({
      provider: scriptedProvider([{ text: 'x' }]),
      policies: [
        { name: 'stopper', afterTurn: () => ({ decision: { type: 'stop', reason: 'max-turns' } }) },
        { name: 'aborter', afterTurn: () => ({ decision: { type: 'abort', reason: new Error('guard') } }) },
      ],
    })
    expect((await aborter.run({ prompt: 'go' })).stopReason).toBe('aborted')
  })

  it('a fail decision throws its error, after the host\'s turn:after hooks ran', async () => {
    const hooks: string[] = []
    const agent = createAgent({
      provider: scriptedProvider([{ text: 'x' }]),
      policies: [{ name: 'strict', afterTurn: () => ({ decision: { type: 'fail', error: new AgentBudgetExceededError('cost', 1, 2) } }) }],
      hooks: { 'turn:after': () => void hooks.push('agent') },
    })
    await expect(agent.run({ prompt: 'go', hooks: { 'turn:after': () => void hooks.push('run') } })).rejects.toBeInstanceOf(AgentBudgetExceededError)
    expect(hooks).toEqual(['agent', 'run'])
  })

  it('merges a turn\'s injections (a nudge, a steered message) into one user turn', async () => {
    let agent: ReturnType<typeof createAgent>
    const a = echoTool('a', {
      execute: () => {
        agent.steer('Also check the tests.', { id: 's1' })
        return 'ok'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }])
    const injected: (string | undefined)[] = []
    agent = createAgent({
      provider,
      tools: { a },
      policies: [{ name: 'reminder', afterTurn: ({ turn }) => turn === 1 ? { decision: nudge('Remember the style guide.', 'nudge') } : undefined }],
      hooks: { 'steer:inject': ({ id }) => void injected.push(id) },
    })
    await agent.run({ prompt: 'go' })
    const messages = provider.requests[1].messages
    expect(messages.map(m => m.role)).toEqual(['user', 'assistant', 'user', 'user'])
    expect(messages[3].content).toEqual([
      { type: 'text', text: 'Remember the style guide.', origin: 'injected' },
      { type: 'text', text: 'Also check the tests.' },
    ])
    expect(injected).toEqual(['s1'])
  })

  it('marks a merged turn injected only when the loop wrote all of it', async () => {
    const { turns } = await runCapturingTurns({
      provider: scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }]),
      tools: { a: echoTool('a') },
      policies: [
        { name: 'n1', afterTurn: ({ turn }) => turn === 1 ? { decision: nudge('one', 'nudge') } : undefined },
        { name: 'n2', afterTurn: ({ turn }) => turn === 1 ? { decision: [nudge('two', 'max-turns-warning'), nudge('three', 'nudge')] } : undefined },
      ],
    }, { prompt: 'go' })
    const merged = turns.filter(turn => turn.injected)
    expect(merged).toHaveLength(1)
    expect(merged[0]).toMatchObject({ injected: 'nudge', content: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] })
  })

  it('keeps policy state on the run state, fresh for every run', async () => {
    const counts: number[] = []
    const counter = definePolicy<{ turns: number }>({
      name: 'counter',
      initialState: () => ({ turns: 0 }),
      afterTurn: ({ state }) => {
        counts.push(state.turns + 1)
        return { state: { turns: state.turns + 1 } }
      },
    })
    const agent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'x' }, { text: 'y' }]), tools: { a: echoTool('a') }, policies: [counter] })
    await agent.run({ prompt: 'one' })
    await agent.run({ prompt: 'two' })
    expect(counts).toEqual([1, 2, 1])
  })
})

describe('provider-error phase', () => {
  const overflow = { error: { kind: 'context_exceeded' as const, message: 'prompt is too long' } }

  function shrinkOnOverflow(): BehaviorPolicy<{ shrink: boolean }> {
    return {
      name: 'shrink-on-overflow',
      initialState: () => ({ shrink: false }),
      providerError: ({ kind }) => kind === 'context_exceeded' ? { decision: { type: 'retry' }, state: { shrink: true } } : undefined,
      request: ({ state }) => state.shrink ? { decision: { maxTokens: 256 }, state: { shrink: false } } : undefined,
    }
  }

  it('retries a turn that overflowed the context once, with the request the policies adjust', async () => {
    const provider = scriptedProvider([overflow, { text: 'fits now' }])
    const agent = createAgent({ provider, policies: [shrinkOnOverflow()] })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats).toMatchObject({ text: 'fits now', stopReason: 'completed', turns: 1 })
    expect(provider.requests.map(request => request.maxTokens)).toEqual([undefined, 256])
  })

  it('grants one retry per turn: a second failure of the same turn ends the run with the typed error', async () => {
    const provider = scriptedProvider([overflow, overflow, { text: 'never' }])
    const agent = createAgent({ provider, policies: [shrinkOnOverflow()] })
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentContextExceededError)
    expect(provider.requests).toHaveLength(2)
  })

  it('may stop the run cleanly; without a decision the error ends the run as before', async () => {
    const stopper = createAgent({
      provider: scriptedProvider([overflow]),
      policies: [{ name: 'give-up', providerError: ({ kind }) => kind === 'context_exceeded' ? { decision: { type: 'stop', reason: 'length' } } : undefined }],
    })
    expect((await stopper.run({ prompt: 'go' })).stopReason).toBe('length')

    const quiet = createAgent({ provider: scriptedProvider([overflow]), policies: [{ name: 'quiet', providerError: () => undefined }] })
    await expect(quiet.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentContextExceededError)
  })
})
