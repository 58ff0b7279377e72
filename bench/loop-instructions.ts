/**
 * loop-instructions: the loop comparison counted in instructions, which the
 * machine's load cannot move.
 *
 * CPU time on a shared two-core machine moves by ±5% between runs, more than
 * the difference being looked for. Here each loop runs under cachegrind
 * (valgrind's instruction counter), answered from recordings as in
 * `loop-in-process`, and the figure is the number of instructions per turn:
 * the same from one run to the next within a few tenths of a percent. Each
 * figure is the difference between two processes that differ only in their
 * measured runs, so start-up, module loading and warm-up cancel out. Three
 * set-ups: the floor alone in its process, zidane alone in its process, and
 * both in one process alternated as `loop-overhead` runs them. V8 runs
 * single-threaded so the count repeats (see `countInstructions`); the JIT
 * compiler's own work is shown apart.
 *
 *   node --import tsx bench/loop-instructions.ts [anthropic|openai-chat] [calls per turn]
 *
 * Needs `valgrind` on the PATH (a system package, not an npm one); without
 * it the script says so and exits. About 12 minutes on two cores.
 */

import type { LoopInProcessOptions } from './loop-in-process'
import type { ChildPlan, LoopName } from './loop-instructions-child'
import type { BenchProvider } from './loop-script'
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { printTable } from './measure'
import { recordAnswers, saveAnswers } from './recorded-answers'

const run = promisify(execFile)
/** `(id) name` the first time a compressed name appears, `(id)` after. */
const COMPRESSED_NAME = /^\((\d+)\)(?: (.*))?$/
const JIT_COMPILER = /compiler::|Maglev|maglev|turboshaft|OptimizedCompilationJob|Zone|RegisterAllocat|InstructionSelector/
const GARBAGE_COLLECTOR = /Scaveng|Marking|MarkCompact|Sweeper|Evacuat|heap::|Heap::|RememberedSet|SlotSet|MemoryChunk|NewSpace|PagedSpace|BodyDescriptor|Pretenuring/
const JSON_CODE = /Json/
const HERE = dirname(fileURLToPath(import.meta.url))

/** As `loop-in-process` takes them, with its own run counts. */
export interface LoopInstructionsOptions extends Omit<LoopInProcessOptions, 'warmRuns' | 'runs'> {
  /** Warm-up runs (rounds, when both loops share the process) before the measured ones (default 150: the JIT has settled by then). */
  warmRuns?: number
  /** Measured runs per loop (default 20). */
  runs?: number
}

/** Instructions per turn, by where they were spent. */
export type Breakdown = Record<Category, number>

export const CATEGORIES = ['generated code', 'V8 builtins', 'garbage collector', 'JSON', 'everything else', 'JIT compiler'] as const
export type Category = typeof CATEGORIES[number]

export interface LoopInstructionsResult {
  floorAlone: Breakdown
  zidaneAlone: Breakdown
  floorShared: Breakdown
  zidaneShared: Breakdown
  /** The symbols where zidane alone spends the most instructions per turn over the floor alone (generated code and the compiler left out). */
  topDifferences: { name: string, floor: number, zidane: number }[]
}

export async function loopInstructions(options: LoopInstructionsOptions = {}): Promise<LoopInstructionsResult | undefined> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.log('loop-instructions: valgrind is not on the PATH (install the system package to run this benchmark); skipped')
    return undefined
  }
  const provider = options.provider ?? 'anthropic'
  const callsPerTurn = options.callsPerTurn ?? 1
  const turns = options.turns ?? 50
  const warmRuns = options.warmRuns ?? 150
  const runs = options.runs ?? 20
  const dir = mkdtempSync(join(tmpdir(), 'zidane-loop-instructions-'))
  try {
    const answersFile = join(dir, 'answers.json')
    writeFileSync(answersFile, JSON.stringify(saveAnswers(await recordAnswers(provider, turns, callsPerTurn, join(dir, 'record')))))
    const child = await bundleChild()
    const plan = (warm: ChildPlan['warm'], measured: LoopName[]): ChildPlan =>
      ({ answersFile, provider, callsPerTurn, config: options.config ?? 'defaults', turns, warm, warmRuns, measured, runs })
    const processes = {
      floorBase: plan('floor', []),
      floor: plan('floor', ['floor']),
      zidaneBase: plan('zidane', []),
      zidane: plan('zidane', ['zidane']),
      sharedBase: plan('both', []),
      sharedFloor: plan('both', ['floor']),
      sharedBoth: plan('both', ['floor', 'zidane']),
    }
    const counted = await inParallel(Object.entries(processes), availableParallelism(), async ([name, childPlan]) =>
      [name, await countInstructions(child, childPlan, join(dir, `${name}.out`))] as const)
    const byName = Object.fromEntries(counted) as Record<keyof typeof processes, Map<string, number>>
    const perTurn = runs * turns
    const floorAlone = perFunction(byName.floor, byName.floorBase, perTurn)
    const zidaneAlone = perFunction(byName.zidane, byName.zidaneBase, perTurn)
    const result: LoopInstructionsResult = {
      floorAlone: breakdown(floorAlone),
      zidaneAlone: breakdown(zidaneAlone),
      floorShared: breakdown(perFunction(byName.sharedFloor, byName.sharedBase, perTurn)),
      zidaneShared: breakdown(perFunction(byName.sharedBoth, byName.sharedFloor, perTurn)),
      topDifferences: topDifferences(floorAlone, zidaneAlone, 15),
    }
    if (options.print ?? true)
      printResult(result, { provider, callsPerTurn, warmRuns, runs, turns })
    return result
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The child bundled to plain JavaScript next to `node_modules` (so its
 * packages resolve), so valgrind runs Node alone, without the TypeScript
 * loader and its compiler process.
 */
async function bundleChild(): Promise<string> {
  const outDir = join(HERE, '..', 'node_modules', '.cache', 'zidane-bench')
  mkdirSync(outDir, { recursive: true })
  const outfile = join(outDir, 'loop-instructions-child.mjs')
  await build({ entryPoints: [join(HERE, 'loop-instructions-child.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', outfile, logLevel: 'warning' })
  return outfile
}

/**
 * Instructions per function of one child process, counted by cachegrind.
 * V8 runs single-threaded (`--single-threaded`: the JIT compiler and the
 * garbage collector on the main thread): with its helper threads, when a
 * background compilation lands depends on timing, and two identical
 * processes differed by hundreds of thousands of instructions per turn;
 * single-threaded, two identical processes agree within 0.1%.
 */
async function countInstructions(child: string, plan: ChildPlan, outFile: string): Promise<Map<string, number>> {
  await run('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', `--cachegrind-out-file=${outFile}`, process.execPath, '--single-threaded', child, JSON.stringify(plan)], { maxBuffer: 16 * 1024 * 1024 })
  return parseCachegrind(readFileSync(outFile, 'utf8'))
}

/**
 * Instructions per function name from a cachegrind output file. Cost lines
 * follow `fn=` lines; names may be written once as `(id) name` and then as
 * `(id)` alone. One pass over the text.
 */
export function parseCachegrind(text: string): Map<string, number> {
  const totals = new Map<string, number>()
  const names = new Map<string, string>()
  let current = ''
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1)
      end = text.length
    const line = text.slice(start, end)
    start = end + 1
    if (line.startsWith('fn=')) {
      current = resolveName(line.slice(3), names)
      continue
    }
    const first = line.charCodeAt(0)
    if (first < 48 || first > 57 || current === '')
      continue
    const space = line.indexOf(' ')
    if (space === -1)
      continue
    const count = Number(line.slice(space + 1).split(' ', 1)[0])
    if (Number.isFinite(count))
      totals.set(current, (totals.get(current) ?? 0) + count)
  }
  return totals
}

function resolveName(raw: string, names: Map<string, string>): string {
  const compressed = COMPRESSED_NAME.exec(raw)
  if (!compressed)
    return raw
  if (compressed[2] !== undefined)
    names.set(compressed[1], compressed[2])
  return names.get(compressed[1]) ?? raw
}

/** Which part of the process a function belongs to, from its symbol. */
export function categoryOf(name: string): Category {
  if (name === '???')
    return 'generated code'
  if (JIT_COMPILER.test(name))
    return 'JIT compiler'
  if (GARBAGE_COLLECTOR.test(name))
    return 'garbage collector'
  if (JSON_CODE.test(name))
    return 'JSON'
  if (name.startsWith('Builtins_'))
    return 'V8 builtins'
  return 'everything else'
}

/** (with − without) per turn, by category. */
/** Per-symbol figures summed by category. */
export function breakdown(perSymbol: ReadonlyMap<string, number>): Breakdown {
  const result = Object.fromEntries(CATEGORIES.map(category => [category, 0])) as Breakdown
  for (const [name, count] of perSymbol)
    result[categoryOf(name)] += count
  return result
}

/** (with − without) per turn, symbol by symbol. */
export function perFunction(withRuns: ReadonlyMap<string, number>, without: ReadonlyMap<string, number>, turns: number): Map<string, number> {
  const result = new Map<string, number>()
  for (const name of new Set([...withRuns.keys(), ...without.keys()]))
    result.set(name, ((withRuns.get(name) ?? 0) - (without.get(name) ?? 0)) / turns)
  return result
}

/** The `count` symbols where `zidane` spends the most over `floor`, leaving out what cannot be told apart (generated code) or repeated (the compiler). */
export function topDifferences(floor: ReadonlyMap<string, number>, zidane: ReadonlyMap<string, number>, count: number): LoopInstructionsResult['topDifferences'] {
  return [...new Set([...floor.keys(), ...zidane.keys()])]
    .filter(name => categoryOf(name) !== 'generated code' && categoryOf(name) !== 'JIT compiler')
    .map(name => ({ name, floor: floor.get(name) ?? 0, zidane: zidane.get(name) ?? 0 }))
    .sort((a, b) => (b.zidane - b.floor) - (a.zidane - a.floor))
    .slice(0, count)
}

export function total(figures: Breakdown, withoutCompiler = false): number {
  return CATEGORIES.reduce((sum, category) => sum + (withoutCompiler && category === 'JIT compiler' ? 0 : figures[category]), 0)
}

function printResult(result: LoopInstructionsResult, setup: { provider: BenchProvider, callsPerTurn: number, warmRuns: number, runs: number, turns: number }): void {
  console.log(`loop-instructions: ${setup.provider}, ${setup.callsPerTurn} call(s) per turn; ${setup.runs} measured runs of ${setup.turns} turns after ${setup.warmRuns} warm-up runs; thousands of instructions per turn`)
  const columns = [result.floorAlone, result.zidaneAlone, result.floorShared, result.zidaneShared]
  const thousands = (value: number) => (value / 1000).toFixed(0)
  printTable(['', 'floor alone', 'zidane alone', 'floor, shared process', 'zidane, shared process'], [
    ...CATEGORIES.map(category => [category, ...columns.map(figures => thousands(figures[category]))]),
    ['total', ...columns.map(figures => thousands(total(figures)))],
    ['total without the JIT compiler', ...columns.map(figures => thousands(total(figures, true)))],
  ])
  const ratio = (a: Breakdown, b: Breakdown, withoutCompiler: boolean) => (total(a, withoutCompiler) / total(b, withoutCompiler)).toFixed(3)
  console.log(`  zidane / floor, each alone in its process: ${ratio(result.zidaneAlone, result.floorAlone, true)}× without the JIT compiler (${ratio(result.zidaneAlone, result.floorAlone, false)}× with it)`)
  console.log(`  zidane / floor, sharing one process:       ${ratio(result.zidaneShared, result.floorShared, true)}× without the JIT compiler (${ratio(result.zidaneShared, result.floorShared, false)}× with it)`)
  console.log('\n  where zidane alone spends the most over the floor alone (instructions per turn; generated code and the compiler left out):')
  printTable(['floor', 'zidane', 'more', 'symbol'], result.topDifferences.map(({ name, floor, zidane }) =>
    [floor.toFixed(0), zidane.toFixed(0), (zidane - floor).toFixed(0), name.replaceAll('v8::internal::', '').slice(0, 100)]))
}

async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = Array.from({ length: items.length })
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index])
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker))
  return results
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const provider = process.argv[2] === 'openai-chat' ? 'openai-chat' : 'anthropic'
  await loopInstructions({ provider, callsPerTurn: Number(process.argv[3] ?? 1) })
}
