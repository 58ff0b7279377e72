/**
 * turn-footprint: how much code one turn runs, counted instead of timed.
 *
 * The loop-overhead benchmark's loops (the hand-written floor and zidane's
 * `defaults` configuration, each persisting every turn) run against the same
 * fake server, one after the other. After a warm-up, V8's precise coverage
 * counts every function call of a few whole runs; the counts are grouped by
 * where the function lives (zidane's `src/`, the vendor SDK, Node's own code
 * such as undici and streams, the benchmark's loop code) and divided by the
 * turns run.
 *
 * Why count: on this machine a CPU time per turn moves by several percent
 * between runs, while these counts are exact and repeat. And the code a turn
 * runs costs more than its own time: a turn that runs many distinct
 * functions leaves less of the processor's caches to the SDK and undici code
 * that runs next (see bench/README.md, "What a turn runs"), so the count of
 * distinct functions per turn is a figure to bring down in itself.
 *
 * `functions per turn` counts the functions called at least once per turn on
 * average (most of them run exactly once or a fixed number of times per
 * turn); `calls per turn` counts every call.
 */

import type { Session as InspectorSession } from 'node:inspector/promises'
import type { BenchProvider } from './loop-script'
import { mkdtempSync, rmSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { floorRunner, zidaneRunner } from './loop-runners'
import { printTable } from './measure'
import { startServerProcess } from './server-process'

/** Where a counted function lives. */
export type CodeOrigin = 'zidane' | 'SDK' | 'Node' | 'loop code (bench)' | 'other packages'

const ORIGINS: readonly CodeOrigin[] = ['zidane', 'SDK', 'Node', 'loop code (bench)', 'other packages']
/** The vendor clients the loops call through. */
const VENDOR_SDK = /\/node_modules\/(?:@anthropic-ai\/sdk|openai)\//

/** One loop's code per turn, by origin. */
export interface LoopFootprint {
  turns: number
  byOrigin: Record<CodeOrigin, { functions: number, calls: number }>
  /** Over every origin. */
  functions: number
  calls: number
  /** zidane's share by source file (path under `src/`), most calls first. */
  zidaneFiles: { file: string, functions: number, calls: number }[]
}

export interface TurnFootprint {
  provider: BenchProvider
  callsPerTurn: number
  floor: LoopFootprint
  zidane: LoopFootprint
}

export interface TurnFootprintOptions {
  provider?: BenchProvider
  callsPerTurn?: number
  /** Turns per run (default 50, as in loop-overhead). */
  turns?: number
  /** Runs of each loop before counting (default 10). */
  warmRuns?: number
  /** Runs of each loop counted (default 4). */
  countedRuns?: number
  /** Print the table (default true). */
  print?: boolean
  /** Also print zidane's source files with the most calls per turn, this many (default: `BENCH_FOOTPRINT_FILES`, else none). */
  files?: number
}

export async function turnFootprint(options: TurnFootprintOptions = {}): Promise<TurnFootprint> {
  const provider = options.provider ?? 'anthropic'
  const callsPerTurn = options.callsPerTurn ?? 1
  const turns = options.turns ?? 50
  const warmRuns = options.warmRuns ?? 10
  const countedRuns = options.countedRuns ?? 4
  const server = await startServerProcess(provider, turns, callsPerTurn)
  const dir = mkdtempSync(join(tmpdir(), 'zidane-footprint-'))
  const inspector = new Session()
  inspector.connect()
  try {
    const shared = { baseURL: server.url, maxTurns: turns + 10 }
    const floor = floorRunner(provider, { ...shared, dir: join(dir, 'floor') })
    const zidane = zidaneRunner(provider, 'defaults', callsPerTurn > 1, { ...shared, dir: join(dir, 'zidane') })
    for (let run = 0; run < warmRuns; run++) {
      await floor()
      await zidane()
    }
    await inspector.post('Profiler.enable')
    const result: TurnFootprint = {
      provider,
      callsPerTurn,
      floor: await count(inspector, async () => {
        const done = await floor()
        return done.turns
      }, countedRuns),
      zidane: await count(inspector, async () => {
        const done = await zidane()
        if (done.stopReason !== 'completed')
          throw new Error(`turn-footprint: zidane stopped with ${done.stopReason}`)
        return done.turns
      }, countedRuns),
    }
    if (options.print ?? true)
      printFootprint(result, options.files ?? Number(process.env.BENCH_FOOTPRINT_FILES ?? 0))
    return result
  }
  finally {
    inspector.disconnect()
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Call counts of `runs` runs of one loop, per turn and by origin. */
async function count(inspector: InspectorSession, run: () => Promise<number>, runs: number): Promise<LoopFootprint> {
  await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  let turns = 0
  for (let index = 0; index < runs; index++)
    turns += await run()
  const { result } = await inspector.post('Profiler.takePreciseCoverage')
  await inspector.post('Profiler.stopPreciseCoverage')
  const byOrigin = Object.fromEntries(ORIGINS.map(origin => [origin, { functions: 0, calls: 0 }])) as LoopFootprint['byOrigin']
  const files = new Map<string, { file: string, functions: number, calls: number }>()
  for (const script of result) {
    const origin = originOf(script.url)
    if (!origin)
      continue
    const file = origin === 'zidane' ? script.url.slice(script.url.lastIndexOf('/src/') + 1) : undefined
    for (const fn of script.functions) {
      // Without block detail, a function's first range is its whole body and counts its calls.
      const calls = fn.ranges[0]?.count ?? 0
      if (calls === 0)
        continue
      const perTurn = calls >= turns ? 1 : 0
      byOrigin[origin].calls += calls / turns
      byOrigin[origin].functions += perTurn
      if (file) {
        const entry = files.get(file) ?? { file, functions: 0, calls: 0 }
        entry.calls += calls / turns
        entry.functions += perTurn
        files.set(file, entry)
      }
    }
  }
  const all = Object.values(byOrigin)
  return {
    turns,
    byOrigin,
    functions: all.reduce((sum, entry) => sum + entry.functions, 0),
    calls: all.reduce((sum, entry) => sum + entry.calls, 0),
    zidaneFiles: [...files.values()].sort((a, b) => b.calls - a.calls),
  }
}

/** The origin of a script's URL; `undefined` for code that is neither loop's (the inspector's own, `eval`). */
export function originOf(url: string): CodeOrigin | undefined {
  if (url.startsWith('node:'))
    return 'Node'
  if (url.includes('/node_modules/'))
    return VENDOR_SDK.test(url) ? 'SDK' : 'other packages'
  if (url.includes('/src/'))
    return 'zidane'
  if (url.includes('/bench/'))
    return 'loop code (bench)'
  return undefined
}

function printFootprint(result: TurnFootprint, files: number): void {
  const fixed = (value: number) => value.toFixed(value >= 100 ? 0 : 1)
  console.log(`\nturn footprint: ${result.provider}, ${result.callsPerTurn} tool call(s) per turn, counted over ${result.zidane.turns} turns of each loop`)
  printTable(['origin', 'floor functions/turn', 'floor calls/turn', 'zidane functions/turn', 'zidane calls/turn'], [
    ...ORIGINS.map(origin => [
      origin,
      String(result.floor.byOrigin[origin].functions),
      fixed(result.floor.byOrigin[origin].calls),
      String(result.zidane.byOrigin[origin].functions),
      fixed(result.zidane.byOrigin[origin].calls),
    ]),
    ['all', String(result.floor.functions), fixed(result.floor.calls), String(result.zidane.functions), fixed(result.zidane.calls)],
  ])
  console.log(`zidane over floor: ${(result.zidane.functions / result.floor.functions).toFixed(2)}× the functions, ${(result.zidane.calls / result.floor.calls).toFixed(2)}× the calls per turn`)
  if (files > 0) {
    console.log(`\nzidane's source files with the most calls per turn`)
    printTable(['file', 'functions/turn', 'calls/turn'], result.zidane.zidaneFiles.slice(0, files).map(entry => [entry.file, String(entry.functions), fixed(entry.calls)]))
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await turnFootprint({ files: Number(process.env.BENCH_FOOTPRINT_FILES ?? 12) })
