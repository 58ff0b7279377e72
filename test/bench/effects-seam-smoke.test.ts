import { describe, expect, it } from 'vitest'
import { countSeamCalls, seamCallCosts } from '../../bench/effects-seam'

// The seam-cost figures the loop benchmark prints: the count must see every
// model call and tool execution of the run (one model call per turn, one tool
// execution per call), and the per-call costs must be finite. No timings here.

const TURNS = 5

describe('effects seam count', () => {
  it.each([
    ['anthropic', 1],
    ['openai-chat', 3],
  ] as const)('%s, %i call(s) per turn: one model call per turn and one tool execution per call', async (provider, calls) => {
    const perTurn = await countSeamCalls(provider, calls, 'defaults', TURNS)
    expect(perTurn.model).toBe(1)
    expect(perTurn.tool).toBe(((TURNS - 1) * calls) / TURNS)
    expect(perTurn.now).toBeGreaterThan(0)
    expect(perTurn.id).toBeGreaterThan(0)
  })

  it('prices each kind of seam call', async () => {
    const costs = await seamCallCosts()
    for (const value of Object.values(costs)) {
      expect(Number.isFinite(value)).toBe(true)
      expect(value).toBeGreaterThanOrEqual(0)
    }
  }, 60_000)
})
