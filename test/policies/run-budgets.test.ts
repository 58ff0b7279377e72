import type { PolicyScriptStepResult } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { AgentBudgetExceededError } from '../../src/errors'
import { runBudgets } from '../../src/policies/run-budgets'
import { runPolicyScript } from '../../src/testing'

const errorOf = (step: PolicyScriptStepResult) => step.phase === 'afterTurn' ? step.error : undefined

describe('run-budgets', () => {
  it('is off without a budget, and with non-positive or non-finite ones', async () => {
    expect((await runPolicyScript(runBudgets, { steps: [] })).enabled).toBe(false)
    for (const value of [0, -1, Number.NaN])
      expect((await runPolicyScript(runBudgets, { behavior: { maxCostUsd: value, maxTotalTokens: value }, steps: [] })).enabled).toBe(false)
  })

  it('fails with a cost budget error after the turn that crosses the line, counting every turn', async () => {
    const { steps } = await runPolicyScript(runBudgets, {
      behavior: { maxCostUsd: 1 },
      steps: [0.4, 0.4, 0.4].map(cost => ({ phase: 'afterTurn' as const, usage: { input: 10, output: 5, cost } })),
    })
    expect(steps.map(step => errorOf(step) !== undefined)).toEqual([false, false, true])
    const error = errorOf(steps[2])
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'cost', max: 1 })
    expect((error as AgentBudgetExceededError).spent).toBeCloseTo(1.2)
  })

  it('counts input + output tokens, and the cost check comes first', async () => {
    const { steps } = await runPolicyScript(runBudgets, {
      behavior: { maxTotalTokens: 100, maxCostUsd: 5 },
      steps: [{ phase: 'afterTurn', usage: { input: 60, output: 30, cacheRead: 500 } }, { phase: 'afterTurn', usage: { input: 10, output: 1, cost: 6 } }],
    })
    expect(errorOf(steps[0])).toBeUndefined()
    expect(steps[1]).toMatchObject({ error: { limit: 'cost' } })
    const tokens = await runPolicyScript(runBudgets, { behavior: { maxTotalTokens: 100 }, steps: [{ phase: 'afterTurn', usage: { input: 60, output: 30 } }, { phase: 'afterTurn', usage: { input: 10, output: 1 } }] })
    expect(tokens.steps[1]).toMatchObject({ error: { limit: 'tokens', max: 100, spent: 101 } })
  })

  it('reads wall time on the run clock', async () => {
    const { steps } = await runPolicyScript(runBudgets, {
      behavior: { maxWallMs: 1_000 },
      steps: [{ phase: 'afterTurn', elapsedMs: 999 }, { phase: 'afterTurn', elapsedMs: 1_001 }],
    })
    expect(errorOf(steps[0])).toBeUndefined()
    expect(steps[1]).toMatchObject({ error: { limit: 'wallClock', max: 1_000, spent: 1_001 } })
  })
})
