import { describe, expect, it } from 'vitest'
import { catalogs, EXPECTED_TOTAL, lookups } from '../../bench/codemode'

// The codemode benchmark runs and its arms are correct: every arm reaches the
// same answer, and the token counts it prints come from what was sent (never
// a timing).

describe('bench/codemode', () => {
  it('every arm of the 20-lookup task gives the same answer; the script sends the least', async () => {
    const [sequential, batched, script] = await lookups()
    for (const arm of [sequential, batched, script])
      expect(arm.answer).toBe(`The total is ${EXPECTED_TOTAL} dollars.`)
    expect([sequential.turns, batched.turns, script.turns]).toEqual([21, 5, 2])
    expect(script.inputTokens).toBeLessThan(batched.inputTokens)
    expect(batched.inputTokens).toBeLessThan(sequential.inputTokens)
  }, 60_000)

  it('codemode \'only\' sends a fraction of the catalog\'s tool definitions', async () => {
    const [[, [direct, only]]] = await catalogs([100])
    expect(only.toolTokens).toBeLessThan(direct.toolTokens / 5)
    expect(only.answer).toBe(direct.answer)
  }, 60_000)
})
