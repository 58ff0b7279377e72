/**
 * context: a 200-turn scripted tool-heavy run (Anthropic wire, the fake
 * server's prompt-cache simulation with its five-minute TTL) with context
 * economics on, against the same run with no compaction at all. Printed:
 * the prompt size over the run, the cache-hit ratio (bytes read from the
 * cache / bytes sent; target >= 0.90), the requests that are not a byte-prefix
 * extension of the previous one against the frontier steps (must be equal),
 * the share of each auto-compaction call's input read from the cache (target
 * >= 0.90), and the input billed against the policy-free run (target <= 0.5).
 */

import type { AgentBehavior } from '../src'
import type { ContextRun } from './context-run'
import { READ_RATE, runContextScenario, WRITE_RATE } from './context-run'
import { printTable } from './measure'

const TURNS = 200

/**
 * The behavior of the measured runs, in one object: the context knobs of
 * other families (large-result persistence, media ageing, stale-read
 * elision) join it here.
 */
export const CONTEXT_BEHAVIOR: AgentBehavior = {
  compactStrategy: 'tail',
  compactThreshold: 262_144,
  compactLowWaterFraction: 0.1,
  compactKeepTurns: 4,
}

/** The second scenario: the same, with auto-compaction on an 80k-token window. */
export const AUTO_COMPACT_BEHAVIOR: AgentBehavior = {
  ...CONTEXT_BEHAVIOR,
  autoCompact: { contextWindow: 80_000, keepTurns: 6 },
}

const MARKS = [1, 50, 100, 150, 200] as const

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`
}

export async function contextBenchmark(): Promise<{ base: ContextRun, tail: ContextRun, auto: ContextRun }> {
  const base = await runContextScenario({}, TURNS)
  const tail = await runContextScenario(CONTEXT_BEHAVIOR, TURNS)
  const auto = await runContextScenario(AUTO_COMPACT_BEHAVIOR, TURNS)
  const runs = [['policy-free', base], ['tail compaction', tail], ['tail + auto-compaction', auto]] as const

  console.log(`context: ${TURNS} tool turns, prompt size (messages, as sent) at request n`)
  printTable(['run', ...MARKS.map(mark => `#${mark}`), 'max'], runs.map(([name, run]) => {
    const normal = run.requests.filter(request => !request.summaryCall)
    return [name, ...MARKS.map(mark => kb(normal[Math.min(mark, normal.length) - 1].promptBytes)), kb(Math.max(...normal.map(request => request.promptBytes)))]
  }))
  console.log('')
  printTable(['run', 'requests', 'cache hit', 'rewrites', 'frontier steps', 'billed input', 'vs policy-free'], runs.map(([name, run]) => [
    name,
    String(run.requests.length),
    run.hitRatio.toFixed(3),
    String(run.rewrites),
    String(run.frontierSteps),
    kb(run.billed),
    (run.billed / base.billed).toFixed(3),
  ]))
  console.log(`\nbilled input = uncached + cache writes × ${WRITE_RATE} + cache reads × ${READ_RATE} (Anthropic's five-minute rates); without reads: ${
    runs.map(([name, run]) => `${name} ${kb(run.billedWithoutReads)}`).join(', ')}`)
  const summaries = auto.summaryHitRatios
  console.log(`auto-compaction calls: ${summaries.length}, input read from cache: ${summaries.map(ratio => ratio.toFixed(3)).join(', ') || 'none'} (target >= 0.90)`)
  const checks = [
    ['cache hit (tail) >= 0.90', tail.hitRatio >= 0.9],
    ['cache hit (auto) >= 0.90', auto.hitRatio >= 0.9],
    ['rewrites == frontier steps (tail)', tail.rewrites === tail.frontierSteps],
    ['rewrites == frontier steps (auto)', auto.rewrites === auto.frontierSteps],
    ['summary calls read >= 0.90 from cache', summaries.length > 0 && summaries.every(ratio => ratio >= 0.9)],
    ['billed (tail) <= 0.5 × policy-free', tail.billed <= 0.5 * base.billed],
    ['billed (auto) <= 0.5 × policy-free', auto.billed <= 0.5 * base.billed],
  ] as const
  for (const [name, ok] of checks)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${name}`)
  return { base, tail, auto }
}
