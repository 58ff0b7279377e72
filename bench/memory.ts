/**
 * memory: how much heap a run takes, and whether many runs at once leave any
 * behind or make Node print a warning.
 *
 * - **Peak of one 50-turn run**: the `loop-overhead` scenario (Anthropic
 *   Messages, one tool call per turn, fake server in a child process), run
 *   once in a fresh process per measurement, floor and zidane alternated.
 *   Each process samples `heapUsed` at every text delta and tool call and
 *   every millisecond between (`memory-child.ts`); its peak is the highest
 *   sample, garbage not yet collected included, as the process pays it.
 * - **Concurrent runs**: 1,000 agents run at once in one process, all given
 *   the same caller `AbortSignal`, three times in a row. Every
 *   `process.on('warning')` is counted (a listener limit crossed on a shared
 *   signal prints one), and the heap after the third wave (collected) is
 *   compared with the heap after the second: the first waves also grow what
 *   stays by design (compiled code, the HTTP client's pool of 1,000
 *   connections), the last shows what runs leave behind.
 */

import type { ConcurrentReport, PeakReport } from './memory-child'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { median, printTable } from './measure'
import { startServerProcess } from './server-process'

const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url))
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
const PEAK_TURNS = 50
const PEAK_TARGET = 1.3
const RETAINED_TARGET = 1.1

/** How many fresh processes `memoryPeak` starts per loop and mode. */
export interface MemoryPeakOptions {
  /** Fresh processes per loop. Default 5. */
  runs?: number
  /** Print the table. Default true. */
  print?: boolean
}

/** One loop's medians over its fresh processes, in bytes. */
export interface LoopHeap {
  /** Before the run, collected. */
  baseline: number
  /** Highest `heapUsed` sampled during the run, garbage included. */
  peak: number
  /** Highest `heapUsed` at a turn boundary, collected first: what the run holds on to. */
  livePeak: number
  /** Bytes each turn adds to what the run keeps (collected heap, turn 10 to turn 45 of a process's fourth run). */
  keptPerTurn: number
}

/** Both loops' medians and the ratios between them. */
export interface MemoryPeakResult {
  floor: LoopHeap
  zidane: LoopHeap
  /** zidane's sampled peak over the floor's (the target). */
  peakRatio: number
  /** What the run added above the heap it started from (sampled peak − baseline), zidane's over the floor's. */
  growthRatio: number
  /** Live peak − baseline, zidane's over the floor's. */
  liveGrowthRatio: number
  /** Every process ran all 50 turns. */
  correct: boolean
}

/** The size of each wave of `memoryConcurrent`. */
export interface MemoryConcurrentOptions {
  /** Runs at once. Default 1,000. */
  runs?: number
  /** Turns per run. Default 5. */
  turns?: number
  print?: boolean
}

/** The child's report, with the retained-heap ratio. */
export interface MemoryConcurrentResult extends ConcurrentReport {
  /** `after / baseline`: the heap after the measured wave over the heap after the warm-up waves. */
  retainedRatio: number
}

/** Heap peak of one 50-turn run, zidane against the floor, each in fresh processes. */
export async function memoryPeak(options: MemoryPeakOptions = {}): Promise<MemoryPeakResult> {
  const runs = options.runs ?? 5
  const print = options.print ?? true
  const server = await startServerProcess('anthropic', PEAK_TURNS, 1)
  const reports: Record<string, PeakReport[]> = { 'floor sampled': [], 'zidane sampled': [], 'floor live': [], 'zidane live': [], 'floor kept': [], 'zidane kept': [] }
  try {
    await withBundledChild(async (script) => {
      for (let i = 0; i < runs; i++) {
        // Alternate which loop goes first, so neither always meets a warmer machine.
        for (const loop of i % 2 === 0 ? ['floor', 'zidane'] : ['zidane', 'floor']) {
          for (const how of ['sampled', 'live', 'kept'])
            reports[`${loop} ${how}`].push(await child<PeakReport>(script, ['peak', loop, how, server.url]))
        }
      }
    })
  }
  finally {
    await server.stop()
  }
  const summary = (loop: string): LoopHeap => ({
    baseline: median(reports[`${loop} sampled`].map(r => r.baseline)),
    peak: median(reports[`${loop} sampled`].map(r => r.peak)),
    livePeak: median(reports[`${loop} live`].map(r => r.peak)),
    keptPerTurn: median(reports[`${loop} kept`].map(r => r.keptPerTurn ?? Number.NaN)),
  })
  const floor = summary('floor')
  const zidane = summary('zidane')
  const result: MemoryPeakResult = {
    floor,
    zidane,
    peakRatio: zidane.peak / floor.peak,
    growthRatio: (zidane.peak - zidane.baseline) / (floor.peak - floor.baseline),
    liveGrowthRatio: (zidane.livePeak - zidane.baseline) / (floor.livePeak - floor.baseline),
    correct: Object.values(reports).flat().every(report => report.turns === PEAK_TURNS),
  }
  if (print) {
    console.log(`memory: heap of one ${PEAK_TURNS}-turn run (Anthropic, 1 call/turn), ${runs} fresh processes per loop and mode, medians`)
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    const row = (label: string, heap: LoopHeap, ratios: string[]) => [label, mb(heap.baseline), mb(heap.peak), ratios[0], mb(heap.peak - heap.baseline), ratios[1], mb(heap.livePeak - heap.baseline), ratios[2]]
    printTable(['loop', 'before run MB', 'peak MB', 'vs floor', 'peak − before MB', 'vs floor', 'live peak − before MB', 'vs floor'], [
      row('floor (@anthropic-ai/sdk by hand)', floor, ['1.00×', '1.00×', '1.00×']),
      row('zidane', zidane, [result.peakRatio, result.growthRatio, result.liveGrowthRatio].map(ratio => `${ratio.toFixed(2)}×`)),
    ])
    console.log(`kept per turn (collected heap, turn 10 to turn 45 of a fourth run): floor ${floor.keptPerTurn.toFixed(0)} B, zidane ${zidane.keptPerTurn.toFixed(0)} B`)
    console.log(`memory peak zidane/floor: ${result.peakRatio.toFixed(2)}× (${result.peakRatio <= PEAK_TARGET ? 'within' : 'ABOVE'} the ${PEAK_TARGET}× target)${result.correct ? '' : '; WRONG: a run did not take 50 turns'}`)
  }
  return result
}

/** Many runs at once in one process: warnings, completion, and the heap left after they end. */
export async function memoryConcurrent(options: MemoryConcurrentOptions = {}): Promise<MemoryConcurrentResult> {
  const runs = options.runs ?? 1000
  const turns = options.turns ?? 5
  const print = options.print ?? true
  const server = await startServerProcess('anthropic', turns, 1)
  let report: ConcurrentReport
  try {
    report = await withBundledChild(script => child<ConcurrentReport>(script, ['concurrent', String(runs), String(turns), server.url]))
  }
  finally {
    await server.stop()
  }
  const result: MemoryConcurrentResult = { ...report, retainedRatio: report.after / report.baseline }
  if (print) {
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    console.log(`\nmemory: three waves of ${runs} concurrent runs of ${turns} turns in one process, one shared caller AbortSignal; heap collected after each`)
    printTable(['runs completed', 'warnings', 'heap at start MB', 'after 2 warm-up waves MB', 'peak in 3rd MB', 'after 3rd MB', 'after 3rd / after 2nd'], [[
      `${result.completed}/${runs}`,
      String(result.warnings.length),
      mb(result.start),
      mb(result.baseline),
      mb(result.peak),
      mb(result.after),
      `${result.retainedRatio.toFixed(2)}×`,
    ]])
    for (const warning of result.warnings.slice(0, 5))
      console.log(`warning: ${warning}`)
    const ok = result.warnings.length === 0 && result.completed === runs && result.retainedRatio <= RETAINED_TARGET
    console.log(`memory concurrent: ${result.warnings.length} warnings, heap after/before ${result.retainedRatio.toFixed(2)}× (${ok ? 'within' : 'ABOVE'} the targets: no warning, ${RETAINED_TARGET}×)`)
  }
  return result
}

/** Both parts, as `npm run bench` runs them. */
export async function memoryBenchmark(): Promise<{ peak: MemoryPeakResult, concurrent: MemoryConcurrentResult }> {
  const peak = await memoryPeak()
  const concurrent = await memoryConcurrent()
  return { peak, concurrent }
}

/**
 * `memory-child.ts` bundled as a package is shipped: plain JavaScript, no
 * source maps, and each loop's code in its own chunk, loaded only by the
 * process that runs it. Under `tsx` every module's source would sit in the
 * heap twice (the TypeScript and its inline source map), which is not what an
 * installed package costs. Dependencies stay external, resolved from the
 * repository's `node_modules`, so the build directory sits inside it.
 */
async function withBundledChild<T>(work: (script: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(REPO_ROOT, '.bench-memory-'))
  try {
    await build({ entryPoints: { 'memory-child': CHILD }, outdir: dir, bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'error' })
    return await work(join(dir, 'memory-child.js'))
  }
  finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Run the bundled child with `--expose-gc` and read the one JSON line it prints. */
function child<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    proc.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    proc.once('error', reject)
    proc.once('exit', (code) => {
      if (code !== 0)
        return reject(new Error(`memory child (${args.join(' ')}) exited with code ${code}`))
      try {
        resolve(JSON.parse(output.trim().split('\n').at(-1)!) as T)
      }
      catch (error) {
        reject(error)
      }
    })
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await memoryBenchmark()
