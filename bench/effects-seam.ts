/**
 * What the run's effects seam costs inside the loop benchmark. Every clock
 * read, id, random draw, sleep, model call, tool execution and policy step
 * of a run goes through `RunEffects`; with the default effects each is one
 * more function call around the work. Two figures give the cost per turn:
 *
 * - how many times a run goes through the seam, counted in one unmeasured
 *   run of each loop with a counting wrapper around the default effects;
 * - what one pass through each kind of seam call costs next to making the
 *   call directly (`Date.now()`, `exec()`), in a tight loop in this process.
 *
 * Their product, per turn, is printed beside the loop's own figures and as a
 * share of the floor's CPU per turn (the scale the benchmark's ratios use).
 */

import type { RunEffects } from '../src'
import type { ScenarioResult } from './loop-overhead'
import type { LoopConfig, Persistence } from './loop-runners'
import type { BenchProvider } from './loop-script'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultRunEffects } from '../src'
import { flatUUID } from '../src/core/clock'
import { zidaneRunner } from './loop-runners'
import { printTable } from './measure'
import { startServerProcess } from './server-process'

/** The seam's methods, in the order the table prints them. */
const KINDS = ['now', 'id', 'random', 'sleep', 'model', 'tool', 'step'] as const
type SeamKind = typeof KINDS[number]

/** How many times each method is called, per turn of one run. */
export type SeamCalls = Record<SeamKind, number>

/** Effects that count each call, then do what the default effects do. */
function countingEffects(counts: SeamCalls): RunEffects {
  const base = defaultRunEffects()
  return {
    now: () => {
      counts.now++
      return base.now()
    },
    id: () => {
      counts.id++
      return base.id()
    },
    random: () => {
      counts.random++
      return base.random()
    },
    sleep: (ms, signal) => {
      counts.sleep++
      return base.sleep(ms, signal)
    },
    model: (kind, request, exec) => {
      counts.model++
      return base.model(kind, request, exec)
    },
    tool: (call, exec) => {
      counts.tool++
      return base.tool(call, exec)
    },
    step: (name, exec) => {
      counts.step++
      return base.step(name, exec)
    },
  }
}

/** Seam calls per turn of one run of a loop (one run, after one warm-up run, neither timed). */
export async function countSeamCalls(provider: BenchProvider, callsPerTurn: number, config: LoopConfig, turns: number, persistence: Persistence = 'file'): Promise<SeamCalls> {
  const server = await startServerProcess(provider, turns, callsPerTurn)
  const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-seam-'))
  try {
    const counts = Object.fromEntries(KINDS.map(kind => [kind, 0])) as SeamCalls
    const run = zidaneRunner(provider, config, callsPerTurn > 1, { baseURL: server.url, dir, maxTurns: turns + 10, effects: countingEffects(counts), persistence })
    const result = await run()
    if (result.turns !== turns)
      throw new Error(`the seam count's run made ${result.turns} turns, expected ${turns}`)
    return Object.fromEntries(KINDS.map(kind => [kind, counts[kind] / turns])) as SeamCalls
  }
  finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const CALLS_PER_SAMPLE = 200_000
const SAMPLES = 7

/** CPU nanoseconds per call of `work`, the median of a few samples of many calls. */
async function nsPerCall(work: () => unknown): Promise<number> {
  const figures: number[] = []
  for (let sample = 0; sample < SAMPLES; sample++) {
    const before = process.cpuUsage()
    for (let i = 0; i < CALLS_PER_SAMPLE; i++)
      await work()
    const used = process.cpuUsage(before)
    figures.push(((used.user + used.system) * 1000) / CALLS_PER_SAMPLE)
  }
  figures.sort((a, b) => a - b)
  return figures[Math.floor(SAMPLES / 2)]
}

/**
 * What one pass through each method of the default effects costs over the
 * direct call, in CPU nanoseconds (never below zero: a difference inside
 * the noise counts as free). Sleeps are timed at 0 ms both ways.
 */
export async function seamCallCosts(): Promise<Record<SeamKind, number>> {
  const effects = defaultRunEffects()
  const exec = () => Promise.resolve(1)
  const request = { provider: 'bench', model: 'bench', id: 'bench', attempt: 1, body: {} }
  const call = { runId: 'bench', turnId: 'bench', callId: 'bench', name: 'bench', input: {} }
  const over = async (seam: () => unknown, direct: () => unknown) => Math.max(0, await nsPerCall(seam) - await nsPerCall(direct))
  // Sync calls are timed awaited too, so both sides carry the same await.
  return {
    now: await over(() => effects.now(), () => Date.now()),
    // Against the id as the default clock mints it (`flatUUID`: the UUID flattened into one string).
    id: await over(() => effects.id(), () => flatUUID()),
    random: await over(() => effects.random(), () => Math.random()),
    sleep: 0,
    model: await over(() => effects.model('turn', request, exec), exec),
    tool: await over(() => effects.tool(call, exec), exec),
    step: await over(() => effects.step('bench', exec), exec),
  }
}

/**
 * Print, per scenario and configuration, the seam calls per turn and what
 * they cost: CPU ns per turn and as a share of the floor's CPU per turn.
 */
export async function printSeamCost(results: readonly ScenarioResult[], turns: number): Promise<void> {
  const costs = await seamCallCosts()
  console.log('\neffects seam: what one call through the default effects costs over the direct call (CPU ns)')
  printTable([...KINDS], [KINDS.map(kind => kind === 'sleep' ? '—' : costs[kind].toFixed(1))])
  const rows: string[][] = []
  for (const result of results) {
    for (const { config } of result.configs) {
      const calls = await countSeamCalls(result.provider, result.callsPerTurn, config, turns, result.persistence)
      const perTurnNs = KINDS.reduce((sum, kind) => sum + calls[kind] * costs[kind], 0)
      const share = perTurnNs / (result.floor.cpuMs * 1e6)
      rows.push([`${result.provider}, ${result.label}, ${config}`, ...KINDS.map(kind => calls[kind].toFixed(1)), perTurnNs.toFixed(1), `${(share * 100).toFixed(3)}%`])
    }
  }
  console.log('\neffects seam: calls per turn, and their cost beside the loop figures above')
  printTable(['scenario', ...KINDS, 'seam CPU ns/turn', 'of floor CPU/turn'], rows)
}
