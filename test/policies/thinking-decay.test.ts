/**
 * `thinkingDecay` through the public API: the budget each request carries on
 * the Anthropic wire (explicit `enabled` budgets) and on OpenRouter's
 * (`reasoning.max_tokens`), the three forms, the cases it must leave alone,
 * and a property test of the schedules against their definitions.
 */

import type { AgentBehavior, ThinkingDecay } from '../../src'
import type { PolicyScriptStep } from '../../src/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentBehaviorError } from '../../src/errors'
import { decayedThinkingBudget, thinkingDecay } from '../../src/policies/thinking-decay'
import { openrouter } from '../../src/providers/openrouter'
import { runPolicyScript } from '../../src/testing'
import { startFakeOpenAI } from '../support/fake-openai'
import { budgetsSent } from './knobs/scenarios/thinking'

const note = tool({ name: 'note', description: 'Take a note.', input: z.object({ text: z.string() }), execute: async () => 'noted' })

/** Budgets a run of `turns` turns asks for, per the policy alone (no provider). */
async function scheduled(behavior: AgentBehavior, turns: number, thinking: 'high' | 'adaptive' = 'high', envelope = false): Promise<(number | undefined)[]> {
  const steps: PolicyScriptStep[] = []
  for (let turn = 1; turn <= turns; turn++)
    steps.push({ phase: 'request', request: { thinkingBudget: behavior.thinkingBudget } }, { phase: 'afterTurn' })
  const result = await runPolicyScript(thinkingDecay, {
    behavior,
    thinking,
    provider: { name: 'p', capabilities: { images: false, documents: false, toolResultMedia: false, thinking: true, promptCache: false, adaptiveBudgetIsEnvelope: envelope } },
    steps,
  })
  return result.steps.flatMap(step => step.phase === 'request' ? [step.request.thinkingBudget] : [])
}

describe('thinkingDecay', () => {
  it('step: full budget through afterTurn, then the floor, on the Anthropic wire', async () => {
    expect(await budgetsSent({ thinkingDecay: { afterTurn: 2, floor: 1024 } })).toEqual([8192, 8192, 1024, 1024])
  })

  it('geometric: the documented example (8192, factor 0.5 after turn 5, floor 1024)', async () => {
    expect(await scheduled({ thinkingBudget: 8192, thinkingDecay: { afterTurn: 5, factor: 0.5, floor: 1024 } }, 9))
      .toEqual([8192, 8192, 8192, 8192, 8192, 4096, 2048, 1024, 1024])
    expect(await budgetsSent({ thinkingDecay: { afterTurn: 1, factor: 0.5, floor: 1024 } })).toEqual([8192, 4096, 2048, 1024])
  })

  it('function: called with the 1-based run turn and the base budget; its value is sent', async () => {
    const calls: [number, number][] = []
    const decay: ThinkingDecay = (turn, base) => {
      calls.push([turn, base])
      return turn >= 3 ? base / 4 : base
    }
    expect(await budgetsSent({ thinkingDecay: decay })).toEqual([8192, 8192, 2048, 2048])
    expect(calls).toEqual([[1, 8192], [2, 8192], [3, 8192], [4, 8192]])
  })

  it('a function returning no usable budget fails the run with AgentBehaviorError', async () => {
    const error = await budgetsSent({ thinkingDecay: () => Number.NaN }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBehaviorError)
    expect((error as AgentBehaviorError).knob).toBe('thinkingDecay')
  })

  it('is skipped for adaptive thinking where the budget caps the whole response (Anthropic)', async () => {
    // Adaptive on Anthropic sends the budget as the `max_tokens` envelope: it must stay put.
    expect(await budgetsSent({ thinkingDecay: { afterTurn: 1, floor: 1024 } }, 'adaptive')).toEqual([8192, 8192, 8192, 8192])
  })

  it('still decays adaptive thinking where the budget is a real per-turn budget (OpenRouter reasoning.max_tokens)', async () => {
    const fake = await startFakeOpenAI()
    try {
      for (let n = 1; n <= 2; n++)
        fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `call_${n}`, name: 'note', input: { text: 'x' } }] } })
      fake.enqueue({ type: 'turn', turn: { text: 'done' } })
      const agent = createAgent({
        provider: openrouter({ apiKey: 'test-key', baseURL: fake.url }),
        tools: { note },
        behavior: { thinkingBudget: 8000, thinkingDecay: { afterTurn: 1, floor: 2000 } },
      })
      await agent.run({ prompt: 'go', thinking: 'adaptive', model: 'anthropic/claude-sonnet-4.6' })
      expect(fake.requests.map(request => request.body.reasoning?.max_tokens)).toEqual([8000, 2000, 2000])
    }
    finally {
      await fake.close()
    }
  })

  it('does nothing without thinkingBudget, or with thinking off, and never touches taskBudget', async () => {
    expect(await budgetsSent({ thinkingBudget: undefined, thinkingDecay: { afterTurn: 0, floor: 1024 } }, 'high')).toEqual([64_000, 64_000, 64_000, 64_000])
    const off = await runPolicyScript(thinkingDecay, { behavior: { thinkingBudget: 8192, thinkingDecay: { afterTurn: 0, floor: 1024 } }, thinking: 'off', steps: [{ phase: 'request', request: { thinkingBudget: 8192 } }] })
    expect(off.enabled).toBe(false)
    expect(await scheduled({ thinkingBudget: 8192, taskBudget: 50_000, thinkingDecay: { afterTurn: 0, floor: 1024 } }, 2, 'adaptive', true)).toEqual([8192, 8192])
  })

  it('refuses malformed schedules at createAgent, naming the field', () => {
    const agentWith = (thinkingDecay: unknown) => () => createAgent({ provider: openrouter({ apiKey: 'k' }), behavior: { thinkingDecay: thinkingDecay as ThinkingDecay } })
    expect(agentWith({ afterTurn: 2 })).toThrow(/thinkingDecay\.floor/)
    expect(agentWith({ afterTurn: -1, floor: 1024 })).toThrow(/thinkingDecay\.afterTurn/)
    expect(agentWith({ afterTurn: 1, floor: 1024, factor: 1.5 })).toThrow(/thinkingDecay\.factor/)
    expect(agentWith(12)).toThrow(AgentBehaviorError)
  })

  it('schedules: never above the base, the base through afterTurn, whole numbers, at most one change for a step', () => {
    const budget = fc.integer({ min: 1024, max: 64_000 })
    const schedule = fc.oneof(
      fc.record({ afterTurn: fc.integer({ min: 0, max: 20 }), floor: fc.integer({ min: 1, max: 70_000 }) }),
      fc.record({ afterTurn: fc.integer({ min: 0, max: 20 }), factor: fc.double({ min: 0.01, max: 1, noNaN: true }), floor: fc.integer({ min: 1, max: 70_000 }) }),
    )
    fc.assert(fc.property(budget, schedule, (base, decay) => {
      const budgets = Array.from({ length: 40 }, (_, i) => decayedThinkingBudget(decay, i + 1, base))
      for (const [i, value] of budgets.entries()) {
        expect(Number.isInteger(value)).toBe(true)
        expect(value).toBeLessThanOrEqual(base)
        if (i + 1 <= decay.afterTurn)
          expect(value).toBe(base)
        else
          expect(value).toBeGreaterThanOrEqual(Math.floor(Math.min(base, decay.floor)))
        if (i > 0)
          expect(value).toBeLessThanOrEqual(budgets[i - 1])
      }
      if (!('factor' in decay))
        expect(new Set(budgets).size).toBeLessThanOrEqual(2)
    }))
  })
})
