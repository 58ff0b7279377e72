/**
 * context: a 200-turn scripted tool-heavy run (Anthropic wire, the fake
 * server's prompt-cache simulation with its five-minute TTL) with every
 * context knob on (tail compaction, large-result persistence, PNG
 * downscaling, media ageing, stale-read elision), then with auto-compaction
 * on top, against the same run with none of them. Printed:
 * the prompt size over the run, the cache-hit ratio (bytes read from the
 * cache / bytes sent; target >= 0.90), the requests that are not a byte-prefix
 * extension of the previous one against the frontier steps (must be equal),
 * the share of each auto-compaction call's input read from the cache (target
 * >= 0.90), and the input billed against the policy-free run (target <= 0.5).
 */

import type { AgentBehavior } from '../src'
import type { ContextRun, ScenarioBehavior } from './context-run'
import { READ_RATE, runContextScenario, WRITE_RATE } from './context-run'
import { printTable } from './measure'

const TURNS = 200

/** Tool-output bytes on the wire past which tail compaction steps. */
export const TAIL_THRESHOLD = 262_144

/**
 * The behavior of the measured runs: every context knob, built around the
 * run's own directory for persisted results.
 */
export function CONTEXT_BEHAVIOR(resultsDir: string): AgentBehavior {
  return {
    compactStrategy: 'tail',
    compactThreshold: TAIL_THRESHOLD,
    compactLowWaterFraction: 0.1,
    compactKeepTurns: 4,
    persistThreshold: 16_384,
    persistDir: resultsDir,
    persistExcludeTools: ['read_file'],
    maxImageEdge: 80,
    mediaBudget: { maxItems: 6 },
    elideStaleReads: 'stub',
  }
}

/** The second scenario: the same, with auto-compaction on an 80k-token window. */
export const AUTO_COMPACT_BEHAVIOR: ScenarioBehavior = resultsDir => ({
  ...CONTEXT_BEHAVIOR(resultsDir),
  autoCompact: { contextWindow: 80_000, keepTurns: 6 },
})

const MARKS = [1, 50, 100, 150, 200] as const

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`
}

export async function contextBenchmark(): Promise<{ base: ContextRun, tail: ContextRun, auto: ContextRun }> {
  const base = await runContextScenario({}, TURNS)
  const tail = await runContextScenario(CONTEXT_BEHAVIOR, TURNS)
  const auto = await runContextScenario(AUTO_COMPACT_BEHAVIOR, TURNS)
  const runs = [['policy-free', base], ['context knobs', tail], ['knobs + auto-compaction', auto]] as const

  console.log(`context: ${TURNS} tool turns, prompt size (messages, as sent) at request n`)
  printTable(['run', ...MARKS.map(mark => `#${mark}`), 'max'], runs.map(([name, run]) => {
    const normal = run.requests.filter(request => !request.summaryCall)
    return [name, ...MARKS.map(mark => kb(normal[Math.min(mark, normal.length) - 1].promptBytes)), kb(Math.max(...normal.map(request => request.promptBytes)))]
  }))
  console.log('')
  const most = (run: ContextRun, field: 'toolOutputBytes' | 'keptToolOutputBytes') => kb(Math.max(...run.requests.map(request => request[field])))
  console.log(`tool output on the wire, max over the run: not stubbed (what compactThreshold = ${kb(TAIL_THRESHOLD)} bounds) ${runs.map(([name, run]) => `${name} ${most(run, 'keptToolOutputBytes')}`).join(', ')}; stubs included ${runs.map(([name, run]) => `${name} ${most(run, 'toolOutputBytes')}`).join(', ')}`)
  console.log(`results persisted: ${runs.map(([name, run]) => `${name} ${run.persistedFiles}`).join(', ')}; largest image edge sent: ${runs.map(([name, run]) => `${name} ${run.maxSentImageEdge} px`).join(', ')}`)
  console.log('')
  printTable(['run', 'requests', 'cache hit', 'rewrites', 'frontier steps', 'tail / summary / media / stale', 'billed input', 'vs policy-free'], runs.map(([name, run]) => [
    name,
    String(run.requests.length),
    run.hitRatio.toFixed(3),
    String(run.rewrites),
    String(run.frontierSteps),
    `${run.stepsByStage.tail} / ${run.stepsByStage.summary} / ${run.stepsByStage.media} / ${run.stepsByStage.staleRead}`,
    kb(run.billed),
    (run.billed / base.billed).toFixed(3),
  ]))
  console.log(`\nbilled input = uncached + cache writes × ${WRITE_RATE} + cache reads × ${READ_RATE} (Anthropic's five-minute rates); without reads: ${
    runs.map(([name, run]) => `${name} ${kb(run.billedWithoutReads)}`).join(', ')}`)
  const summaries = auto.summaryHitRatios
  console.log(`auto-compaction calls: ${summaries.length}, input read from cache: ${summaries.map(ratio => ratio.toFixed(3)).join(', ') || 'none'} (target >= 0.90)`)
  const underThreshold = (run: ContextRun) => run.requests.every(request => request.keptToolOutputBytes <= TAIL_THRESHOLD)
  const checks = [
    ['kept tool output <= threshold on every request (knobs)', underThreshold(tail)],
    ['kept tool output <= threshold on every request (auto)', underThreshold(auto)],
    ['policy-free run passes the threshold', !underThreshold(base)],
    ['cache hit (knobs) >= 0.90', tail.hitRatio >= 0.9],
    ['cache hit (auto) >= 0.90', auto.hitRatio >= 0.9],
    ['rewrites == frontier steps (knobs)', tail.rewrites === tail.frontierSteps],
    ['rewrites == frontier steps (auto)', auto.rewrites === auto.frontierSteps],
    ['summary calls read >= 0.90 from cache', summaries.length > 0 && summaries.every(ratio => ratio >= 0.9)],
    ['billed (knobs) <= 0.5 × policy-free', tail.billed <= 0.5 * base.billed],
    ['billed (auto) <= 0.5 × policy-free', auto.billed <= 0.5 * base.billed],
  ] as const
  for (const [name, ok] of checks)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${name}`)
  return { base, tail, auto }
}
