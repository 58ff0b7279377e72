import { describe, expect, it } from 'vitest'
import { runContextScenario } from '../../bench/context-run'

// The context benchmark's claims, on a shorter run, as a test: every request
// extends the previous one byte for byte except at the documented frontier
// steps (tail moves and new summaries), the summary call reads its input from
// the simulated cache, and the policy-free run never rewrites its prefix.

const TURNS = 40

describe('the context scenario', () => {
  it('policy-free: every request extends the previous one', async () => {
    const run = await runContextScenario({}, TURNS)
    expect(run.rewrites).toBe(0)
    expect(run.frontierSteps).toBe(0)
    expect(run.hitRatio).toBeGreaterThan(0.9)
  }, 60_000)

  it('tail compaction: the rewrites are exactly the frontier steps', async () => {
    const run = await runContextScenario({ compactStrategy: 'tail', compactThreshold: 32_768, compactLowWaterFraction: 0.2 }, TURNS)
    expect(run.frontierSteps).toBeGreaterThan(2)
    expect(run.rewrites).toBe(run.frontierSteps)
  }, 60_000)

  it('auto-compaction: the summary call reads the cached prefix, and each new summary is a step', async () => {
    const run = await runContextScenario({ autoCompact: { contextWindow: 25_000, keepTurns: 4 } }, TURNS)
    expect(run.summaryHitRatios.length).toBeGreaterThan(0)
    for (const ratio of run.summaryHitRatios)
      expect(ratio).toBeGreaterThanOrEqual(0.9)
    expect(run.rewrites).toBe(run.frontierSteps)
    const normal = run.requests.filter(request => !request.summaryCall)
    expect(Math.max(...normal.map(request => request.promptBytes))).toBeLessThan(25_000 * 4)
  }, 60_000)
})
