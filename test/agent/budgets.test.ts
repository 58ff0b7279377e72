import type { AgentClock } from '../../src/core/clock'
import type { ToolResult } from '../../src/providers/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools/spawn'
import { echoTool, fakeClock, pairingProblems, runCapturingTurns, toolLoop } from '../support/helpers'

function costlyLoop(costs: number[]) {
  return [
    ...costs.map((cost, i) => ({ toolCalls: [{ name: 'a', input: { i }, id: `c${i}` }], usage: { input: 10, output: 5, cost } })),
    { text: 'done', usage: { input: 10, output: 5, cost: 0 } },
  ]
}

describe('maxCostUsd', () => {
  it('throws a cost budget error after the crossing turn, with that turn\'s tool results recorded', async () => {
    const provider = scriptedProvider(costlyLoop([0.4, 0.4, 0.4, 0.4]))
    let ran = 0
    const a = echoTool('a', {
      execute: () => {
        ran++
        return 'ok'
      },
    })
    const recorded: ToolResult[][] = []
    const { error, turns } = await runCapturingTurns(
      { provider, tools: { a }, behavior: { maxCostUsd: 1 }, hooks: { 'tool-results:after': ctx => void recorded.push(ctx.results) } },
      { prompt: 'p' },
    )

    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'cost', max: 1 })
    expect((error as AgentBudgetExceededError).spent).toBeCloseTo(1.2)
    // Turn 3 crossed the line: it ran its tool and recorded the result before the stop.
    expect(provider.requests).toHaveLength(3)
    expect(ran).toBe(3)
    expect(recorded.map(results => results.map(r => r.callId))).toEqual([['c0'], ['c1'], ['c2']])
    expect(turns.at(-1)!.content).toMatchObject([{ type: 'tool_result', callId: 'c2' }])
    expect(pairingProblems(turns)).toEqual([])
  })

  it('fires agent:error with the budget error', async () => {
    const errors: unknown[] = []
    const agent = createAgent({ provider: scriptedProvider(costlyLoop([2])), tools: { a: echoTool('a') }, behavior: { maxCostUsd: 1 } })
    agent.hooks.hook('agent:error', ctx => void errors.push(ctx.error))
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(errors).toEqual([error])
  })

  it.each([0, -1, Number.NaN])('is off with %s', async (value) => {
    const agent = createAgent({ provider: scriptedProvider(costlyLoop([5, 5, 5])), tools: { a: echoTool('a') }, behavior: { maxCostUsd: value } })
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.cost).toBe(15)
  })
})

describe('maxTotalTokens', () => {
  it('counts input + output only, and throws a tokens budget error', async () => {
    // 15 counted tokens per turn; cache tokens would cross the cap on turn 1 if they counted.
    const turns = toolLoop(5, 'a').map(turn => ({ ...turn, usage: { input: 10, output: 5, cacheRead: 1_000, cacheCreation: 1_000 } }))
    const provider = scriptedProvider(turns)
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTotalTokens: 40 } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'tokens', max: 40, spent: 45 })
    expect(provider.requests).toHaveLength(3)
  })

  it('does not trip exactly at the cap', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTotalTokens: 30 } })
    expect((await agent.run({ prompt: 'p' })).stopReason).toBe('completed')
  })

  it('is off with 0', async () => {
    const agent = createAgent({ provider: scriptedProvider(toolLoop(5, 'a')), tools: { a: echoTool('a') }, behavior: { maxTotalTokens: 0 } })
    expect((await agent.run({ prompt: 'p' })).stopReason).toBe('completed')
  })
})

describe('maxWallMs', () => {
  /** A tool that moves the fake clock forward, as if each call took 5 s. */
  function slowTool(time: { now: number }) {
    return echoTool('a', {
      execute: () => {
        time.now += 5_000
        return 'took 5s'
      },
    })
  }

  it('reads the run clock and throws a wallClock budget error', async () => {
    const time = { now: 1_000_000 }
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({ provider, tools: { a: slowTool(time) }, clock: fakeClock('w', time), behavior: { maxWallMs: 8_000 } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 8_000, spent: 10_000 })
    expect(provider.requests).toHaveLength(2)
  })

  it('awaits an async clock', async () => {
    const time = { now: 0 }
    const clock: AgentClock = { now: async () => time.now, randomUUID: () => globalThis.crypto.randomUUID() }
    const provider = scriptedProvider(toolLoop(5, 'a'))
    const agent = createAgent({ provider, tools: { a: slowTool(time) }, clock, behavior: { maxWallMs: 12_000 } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toMatchObject({ name: 'AgentBudgetExceededError', limit: 'wallClock', spent: 15_000 })
    expect(provider.requests).toHaveLength(3)
  })

  it('is off with 0', async () => {
    const time = { now: 0 }
    const agent = createAgent({ provider: scriptedProvider(toolLoop(5, 'a')), tools: { a: slowTool(time) }, clock: fakeClock('w', time), behavior: { maxWallMs: 0 } })
    expect((await agent.run({ prompt: 'p' })).stopReason).toBe('completed')
    expect(time.now).toBe(25_000)
  })
})

describe('run budgets count what subagents spent', () => {
  /** A parent whose first turn spawns a child; the child's one answer costs `child`, each parent turn `parent`. */
  async function delegating(behavior: Record<string, number>, child: { cost: number, input: number }, parent: { cost: number, input: number }) {
    const childProvider = scriptedProvider([{ text: 'child answer', usage: { input: child.input, output: 0, cost: child.cost } }])
    const spawn = createSpawnTool({ child: { provider: childProvider } })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'spawn', input: { task: 'dig' }, id: 's1' }], usage: { input: parent.input, output: 0, cost: parent.cost } },
      { text: 'done', usage: { input: parent.input, output: 0, cost: parent.cost } },
    ])
    const agent = createAgent({ provider, tools: { spawn }, behavior })
    const outcome = await agent.run({ prompt: 'go' }).then(stats => stats, (error: unknown) => error)
    return { outcome, parentRequests: provider.requests.length }
  }

  it('maxCostUsd: a child under the cap on its own still puts the parent over it', async () => {
    const { outcome, parentRequests } = await delegating({ maxCostUsd: 1 }, { cost: 0.9, input: 10 }, { cost: 0.2, input: 10 })
    expect(outcome).toBeInstanceOf(AgentBudgetExceededError)
    expect(outcome).toMatchObject({ limit: 'cost', max: 1 })
    expect((outcome as AgentBudgetExceededError).spent).toBeCloseTo(1.1)
    // The spawn turn crossed the line: the parent asks nothing more.
    expect(parentRequests).toBe(1)
  })

  it('maxTotalTokens: the child\'s input and output count toward the parent\'s ceiling', async () => {
    const { outcome } = await delegating({ maxTotalTokens: 1000 }, { cost: 0, input: 950 }, { cost: 0, input: 100 })
    expect(outcome).toBeInstanceOf(AgentBudgetExceededError)
    expect(outcome).toMatchObject({ limit: 'tokens', max: 1000, spent: 1050 })
  })

  it('under the cap, the run ends normally and reports the same spend in its stats', async () => {
    const { outcome } = await delegating({ maxCostUsd: 5 }, { cost: 0.9, input: 10 }, { cost: 0.2, input: 10 })
    expect(outcome).toMatchObject({ text: 'done' })
    expect((outcome as { cost: number }).cost).toBeCloseTo(1.3)
  })
})
