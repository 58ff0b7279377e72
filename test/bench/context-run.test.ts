import type { AgentBehavior } from '../../src'
import { describe, expect, it } from 'vitest'
import { runContextScenario, SCREENSHOT_EDGE } from '../../bench/context-run'

// The context benchmark's claims, on a shorter run, as a test: every request
// extends the previous one byte for byte except at the documented frontier
// steps (tail moves, new summaries, media aged off, reads gone stale), the
// kept tool output never passes the tail threshold, the summary call reads its
// input from the simulated cache, and the policy-free run never rewrites its
// prefix while its tool output grows past the threshold.

const TURNS = 40
const THRESHOLD = 32_768

/** Every context knob, scaled to a 40-turn run. */
function knobs(resultsDir: string): AgentBehavior {
  return {
    compactStrategy: 'tail',
    compactThreshold: THRESHOLD,
    compactLowWaterFraction: 0.2,
    compactKeepTurns: 4,
    persistThreshold: 16_384,
    persistDir: resultsDir,
    persistExcludeTools: ['read_file'],
    maxImageEdge: 80,
    mediaBudget: { maxItems: 2 },
    elideStaleReads: 'stub',
  }
}

describe('the context scenario', () => {
  it('policy-free: every request extends the previous one, and the tool output grows past the threshold', async () => {
    const run = await runContextScenario({}, TURNS)
    expect(run.rewrites).toBe(0)
    expect(run.frontierSteps).toBe(0)
    expect(run.hitRatio).toBeGreaterThan(0.9)
    expect(run.persistedFiles).toBe(0)
    expect(run.maxSentImageEdge).toBe(SCREENSHOT_EDGE)
    const kept = run.requests.map(request => request.keptToolOutputBytes)
    expect(kept.at(-1)).toBeGreaterThan(4 * THRESHOLD)
  }, 60_000)

  it('every context knob: each stage steps, the rewrites are exactly the frontier steps, the kept output stays under the threshold', async () => {
    const run = await runContextScenario(knobs, TURNS)
    expect(run.stepsByStage.tail).toBeGreaterThan(1)
    expect(run.stepsByStage.media).toBeGreaterThan(0)
    // Two reads per ten turns go stale (one edited, one rewritten), each a step of its own.
    expect(run.stepsByStage.staleRead).toBe(8)
    expect(run.stepsByStage.summary).toBe(0)
    expect(run.rewrites).toBe(run.frontierSteps)
    for (const request of run.requests)
      expect(request.keptToolOutputBytes).toBeLessThanOrEqual(THRESHOLD)
    // One test run per ten turns went to disk; screenshots were sent downscaled.
    expect(run.persistedFiles).toBe(TURNS / 10)
    expect(run.maxSentImageEdge).toBe(80)
  }, 60_000)

  it('with auto-compaction on top: the summary call reads the cached prefix, and each new summary is a step', async () => {
    const run = await runContextScenario(dir => ({ ...knobs(dir), autoCompact: { contextWindow: 20_000, keepTurns: 4 } }), TURNS)
    expect(run.summaryHitRatios.length).toBeGreaterThan(0)
    for (const ratio of run.summaryHitRatios)
      expect(ratio).toBeGreaterThanOrEqual(0.9)
    // The summary call reads the whole previous request from the cache; only the turn since and the instruction are new.
    run.requests.forEach((request, index) => {
      if (request.summaryCall)
        expect(request.cache.readBytes).toBe(run.requests[index - 1].cache.totalBytes)
    })
    expect(run.stepsByStage.summary).toBe(run.summaryHitRatios.length)
    expect(run.rewrites).toBe(run.frontierSteps)
    for (const request of run.requests)
      expect(request.keptToolOutputBytes).toBeLessThanOrEqual(THRESHOLD)
  }, 60_000)
})
