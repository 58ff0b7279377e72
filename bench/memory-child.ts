/**
 * One measured process of the `memory` benchmark, started by `memory.ts`
 * (bundled first, see there) with `--expose-gc` so that it can collect before
 * and after. It prints one line of JSON on stdout and exits. Also runs as is:
 *
 *   node --expose-gc --import tsx bench/memory-child.ts peak <floor|zidane> <sampled|live|kept> <baseURL>
 *   node --expose-gc --import tsx bench/memory-child.ts concurrent <runs> <turns> <baseURL>
 *
 * `peak`: one 50-turn run (the `loop-overhead` scenario, Anthropic Messages,
 * one call per turn) of the floor or of zidane. `sampled`: `heapUsed` is
 * read at every text delta and tool call of the run and every millisecond
 * between, garbage included. `live`: the heap is collected and read at each
 * tool call only, so the figure is what the run holds on to. `kept`: as
 * `live`, in the fourth run of the process (see `keptPerTurn`).
 * `concurrent`: `<runs>` agents run at once in this process against the
 * server (which plays `<turns>` turns), all given one shared caller
 * `AbortSignal`, as a server passes its shutdown signal to every request;
 * reports warnings printed, stop reasons, and the heap before and after. The
 * runs go in three waves of `<runs>`; the heap after the third is compared
 * with the heap after the second.
 */

import type { Tool } from '@anthropic-ai/sdk/resources/messages'
import type { ToolDef } from '../src'
import type { Provider } from '../src/providers/types'
import { PROMPT, READ_NOTE_SPEC, readNote, SYSTEM } from './read-note'

/** What a `peak` child prints. */
export interface PeakReport {
  /** `heapUsed` after the client (and agent) were built and a full collection, just before the run. */
  baseline: number
  /** The highest `heapUsed` sampled during the run (collected first in `live` mode). */
  peak: number
  samples: number
  turns: number
  /**
   * `kept` mode: the collected heap at the 45th turn boundary less the one at
   * the 10th, over the 35 turns between, in the fourth run of the process (the
   * first three compile the code): what each turn adds to what the run keeps
   * (its conversation, ids, memos).
   */
  keptPerTurn?: number
}

/** What a `concurrent` child prints. */
export interface ConcurrentReport {
  runs: number
  /** Runs of the measured wave that ended `completed` after the expected turns (fewer if the first wave had fewer). */
  completed: number
  /** Every `process.on('warning')` seen, as `name: message`. */
  warnings: string[]
  /** `heapUsed` after loading and a full collection, before any run. */
  start: number
  /** `heapUsed` after two warm-up waves of as many runs and a full collection, before the measured wave. */
  baseline: number
  /** The highest `heapUsed` sampled while they ran. */
  peak: number
  /** `heapUsed` once they all ended and the heap was collected. */
  after: number
}

const MODEL = 'claude-sonnet-5-5'
const TURNS = 50
const SAMPLE_EVERY_MS = 1

const gc = (globalThis as { gc?: () => void }).gc
if (!gc)
  throw new Error('memory-child needs --expose-gc')

let peak = 0
let samples = 0
/** `live` mode: collect before each sample, and sample only at turn boundaries (each tool call). */
let live = false
/** The turn boundaries whose collected heap `keptPerTurn` compares, and what was read there. */
const KEPT_FROM = 10
const KEPT_TO = 45
let boundaries = 0
const keptAt = new Map<number, number>()
function sample(boundary = false): void {
  if (live) {
    if (!boundary)
      return
    gc!()
  }
  const used = process.memoryUsage().heapUsed
  if (live && (++boundaries === KEPT_FROM || boundaries === KEPT_TO))
    keptAt.set(boundaries, used)
  samples++
  if (used > peak)
    peak = used
}

/** Collect until the heap stops shrinking, letting pending callbacks (closed sockets, timers) run between passes. */
async function settle(): Promise<number> {
  let used = Number.POSITIVE_INFINITY
  for (let pass = 0; pass < 10; pass++) {
    await new Promise(resolve => setTimeout(resolve, 20))
    gc!()
    const now = process.memoryUsage().heapUsed
    if (now >= used * 0.995)
      return now
    used = now
  }
  return used
}

/** Each loop loads only its own modules, so the floor's heap holds no zidane code. */
async function zidaneAgentMaker(): Promise<(provider: Provider) => ReturnType<typeof import('../src')['createAgent']>> {
  const { createAgent } = await import('../src')
  return (provider) => {
    const tool: ToolDef = { spec: READ_NOTE_SPEC, execute: input => readNote(input) }
    const agent = createAgent({ provider, tools: { readNote: tool }, system: SYSTEM, behavior: { maxTurns: TURNS + 10, maxTokens: 8192 } })
    // The handlers a host typically registers (as in loop-overhead); they sample the heap too.
    agent.hooks.hook('stream:text', () => sample())
    agent.hooks.hook('tool:after', () => sample(true))
    return agent
  }
}

async function anthropicProvider(baseURL: string): Promise<Provider> {
  const { anthropic } = await import('../src/providers/anthropic')
  return anthropic({ apiKey: 'bench', baseURL, defaultModel: MODEL })
}

async function peakRun(loop: string, how: string, baseURL: string): Promise<PeakReport> {
  let run: () => Promise<number>
  if (loop === 'floor') {
    const { default: Anthropic } = await import('@anthropic-ai/sdk')
    const { runFloorLoop } = await import('./floor-loop')
    const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 })
    const tools: Tool[] = [{ name: READ_NOTE_SPEC.name, description: READ_NOTE_SPEC.description, input_schema: READ_NOTE_SPEC.inputSchema as Tool['input_schema'] }]
    run = async () => (await runFloorLoop({
      client,
      model: MODEL,
      maxTokens: 8192,
      system: SYSTEM,
      tools,
      prompt: PROMPT,
      maxTurns: TURNS + 10,
      execute: (_name, input) => {
        sample(true)
        return readNote(input)
      },
      onText: () => sample(),
    })).turns
  }
  else if (loop === 'zidane') {
    const agent = (await zidaneAgentMaker())(await anthropicProvider(baseURL))
    run = async () => (await agent.run({ prompt: PROMPT })).turns
  }
  else {
    throw new Error(`memory-child: loop must be floor or zidane, got ${loop}`)
  }
  // `kept`: three runs first, so what the measured run adds is its data, not code still being compiled.
  const warmRuns = how === 'kept' ? 3 : 0
  for (let warm = 0; warm < warmRuns; warm++)
    await run()
  // Set after the warm-up runs, which need no collection at each turn.
  live = how === 'live' || how === 'kept'
  boundaries = 0
  keptAt.clear()
  const baseline = await settle()
  peak = baseline
  samples = 0
  const timer = live ? undefined : setInterval(sample, SAMPLE_EVERY_MS)
  const turns = await run()
  clearInterval(timer)
  const from = keptAt.get(KEPT_FROM)
  const to = keptAt.get(KEPT_TO)
  const keptPerTurn = how !== 'kept' || from === undefined || to === undefined ? undefined : (to - from) / (KEPT_TO - KEPT_FROM)
  return { baseline, peak, samples, turns, keptPerTurn }
}

async function concurrentRuns(runs: number, turns: number, baseURL: string): Promise<ConcurrentReport> {
  const warnings: string[] = []
  process.on('warning', warning => warnings.push(`${warning.name}: ${warning.message}`))
  const provider = await anthropicProvider(baseURL)
  const makeAgent = await zidaneAgentMaker()
  // The host's signal, shared by every run (a server's shutdown signal); never aborted here.
  const shutdown = new AbortController()
  const wave = async (count: number) => {
    // A new agent per run, as a server makes one per request; they all start before any finishes.
    const running: Promise<{ stopReason: string, turns: number }>[] = []
    for (let n = 0; n < count; n++)
      running.push(makeAgent(provider).run({ prompt: PROMPT, signal: shutdown.signal }))
    const stats = await Promise.all(running)
    return stats.filter(entry => entry.stopReason === 'completed' && entry.turns === turns).length
  }
  const start = await settle()
  // Two warm-up waves of the same size: modules loaded, code compiled (V8 keeps optimizing into the second), and the
  // HTTP client's connection pool grown to this many connections (its clients stay pooled after their sockets
  // close). What the measured wave leaves on top of that is what runs keep.
  const warmed = Math.min(await wave(runs), await wave(runs))
  const baseline = await settle()
  await snapshot('before')
  peak = baseline
  const timer = setInterval(sample, SAMPLE_EVERY_MS)
  const completed = Math.min(warmed, await wave(runs))
  clearInterval(timer)
  const after = await settle()
  await snapshot('after')
  return { runs, completed, warnings, start, baseline, peak, after }
}

/** `MEMORY_SNAPSHOT_DIR=<dir>`: heap snapshots before and after the concurrent runs, to find what stays. */
async function snapshot(name: string): Promise<void> {
  const dir = process.env.MEMORY_SNAPSHOT_DIR
  if (dir)
    (await import('node:v8')).writeHeapSnapshot(`${dir}/concurrent-${name}.heapsnapshot`)
}

const [mode, ...args] = process.argv.slice(2)
const report = mode === 'peak'
  ? await peakRun(args[0], args[1], args[2])
  : mode === 'concurrent'
    ? await concurrentRuns(Number(args[0]), Number(args[1]), args[2])
    : undefined
if (!report)
  throw new Error(`memory-child: mode must be peak or concurrent, got ${mode}`)
process.stdout.write(`${JSON.stringify(report)}\n`)
process.exit(0)
