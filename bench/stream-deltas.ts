/**
 * stream-deltas: does a long tool-call argument cost the same per kilobyte
 * whatever its length?
 *
 * A turn streams one tool call whose JSON argument is 2 to 200 KB long, in
 * `DELTA_CHARS`-character deltas, from a fake server in a child process
 * (`delta-server.ts`). Every configuration also runs with a near-empty
 * argument, and that run's CPU is taken off, so what is left is the cost of
 * the argument itself; divided by its size it is the time per KB, which must
 * stay flat: anything that rescans or rejoins the whole argument on every
 * delta makes the 200 KB figure a hundred times the 2 KB one.
 *
 * Three configurations on each wire (Anthropic `input_json_delta`, Chat
 * Completions `tool_calls[].function.arguments`): no hook on partial input; a
 * `stream:tool-input` handler; and structured output with an
 * `output:partial` handler that reads the partial value on every delta.
 */

import type { Tool } from '@anthropic-ai/sdk/resources/messages'
import type { ChildProcess } from 'node:child_process'
import type { Agent, Provider, ToolDef } from '../src'
import type { DeltaProvider } from './delta-payload'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { openai } from '../src/providers/openai'
import { deltaArgument, deltaPrompt } from './delta-payload'
import { runFloorLoop } from './floor-loop'
import { runOpenAIFloorLoop } from './floor-loop-openai'
import { measure, median, printTable } from './measure'

/** The hand-written floor loop, or zidane with these readers of partial input attached. */
export type DeltaVariant = 'floor' | 'plain' | 'tool-input' | 'output-partial'

/** What to run; the defaults are what `npm run bench` runs, a smoke test passes fewer sizes and runs. */
export interface StreamDeltasOptions {
  /** Argument sizes in KB. Default 2, 8, 32, 100, 200. */
  sizesKb?: readonly number[]
  providers?: readonly DeltaProvider[]
  variants?: readonly DeltaVariant[]
  /** Measured runs per size are scaled from this (fewer for large sizes). Default 40. */
  runs?: number
  /** Print the tables. Default true. */
  print?: boolean
}

/** One configuration's figures. */
export interface StreamDeltasResult {
  provider: DeltaProvider
  variant: DeltaVariant
  /** Median CPU ms of a run with the near-empty argument. */
  baseCpuMs: number
  sizes: { kb: number, runs: number, cpuMs: number, usPerKb: number }[]
  /** µs per KB at the largest size over the same at the smallest. */
  ratio: number
  /** Every run's tool input (or output) equalled the argument sent, and the run ended as expected. */
  correct: boolean
}

const DEFAULT_SIZES_KB = [2, 8, 32, 100, 200]
const MODELS: Readonly<Record<DeltaProvider, string>> = { 'anthropic': 'claude-sonnet-5-5', 'openai-chat': 'gpt-5.2' }
const WARMUP_ROUNDS = 5
/** The near-empty argument of the baseline run (a title and no records). */
const BASE_BYTES = 1
const TARGET_RATIO = 1.5

const ITEM_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer' }, text: { type: 'string' }, done: { type: 'boolean' } },
  required: ['id', 'text', 'done'],
  additionalProperties: false,
}
const REPORT_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, items: { type: 'array', items: ITEM_SCHEMA } },
  required: ['title', 'items'],
  additionalProperties: false,
}

/** Every configuration on both wires (unless narrowed), each wire's table printed as it finishes. */
export async function streamDeltas(options: StreamDeltasOptions = {}): Promise<StreamDeltasResult[]> {
  const sizes = options.sizesKb ?? DEFAULT_SIZES_KB
  const runs = options.runs ?? 40
  const print = options.print ?? true
  if (print)
    console.log(`stream-deltas: one tool call streamed in 24-character deltas, sizes ${sizes.join(', ')} KB; CPU of a near-empty call taken off`)
  const results: StreamDeltasResult[] = []
  for (const provider of options.providers ?? ['anthropic', 'openai-chat'] as const) {
    const server = await startDeltaServer(provider)
    try {
      const mine: StreamDeltasResult[] = []
      for (const variant of options.variants ?? ['floor', 'plain', 'tool-input', 'output-partial'] as const)
        mine.push(await runConfiguration(provider, variant, server.url, sizes, runs))
      if (print)
        printWire(provider, mine)
      results.push(...mine)
    }
    finally {
      await server.stop()
    }
  }
  if (print) {
    const summary = results.map(result => `${result.provider} ${result.variant} ${result.ratio.toFixed(2)}×`).join(', ')
    // The target is the tool-call argument's path (with and without a hook on its pieces). Reading
    // `output:partial`'s value on every delta builds a fresh value each time, which copies the
    // containers still open: its growth is that copy, so it is reported beside the target, not in it.
    const worstOf = (variants: readonly DeltaVariant[]) => {
      const ratios = results.filter(result => variants.includes(result.variant)).map(result => result.ratio)
      return ratios.length === 0 ? undefined : Math.max(...ratios)
    }
    const worst = worstOf(['plain', 'tool-input'])
    const partial = worstOf(['output-partial'])
    console.log(`\nstream-deltas µs/KB at ${sizes.at(-1)} KB over ${sizes[0]} KB: ${summary}`)
    if (worst !== undefined)
      console.log(`tool-call argument path: zidane's worst ${worst.toFixed(2)}×, ${worst <= TARGET_RATIO ? 'within' : 'ABOVE'} ${TARGET_RATIO}×`)
    if (partial !== undefined)
      console.log(`output:partial value read on every delta: ${partial.toFixed(2)}× (each read copies the open containers' members: no reparse, but not flat for one long array)`)
  }
  return results
}

async function runConfiguration(provider: DeltaProvider, variant: DeltaVariant, url: string, sizesKb: readonly number[], runs: number): Promise<StreamDeltasResult> {
  const runner = variant === 'floor' ? floorDeltaRunner(provider, url) : deltaRunner(provider, variant, url)
  const all = [BASE_BYTES, ...sizesKb.map(kb => kb * 1024)]
  // Small sizes get more runs: their figure is a small difference between two noisy medians.
  const runsOf = (bytes: number) => Math.max(Math.min(runs, 8), Math.min(runs * 4, Math.round(runs * 8 * 1024 / bytes)))
  let correct = true
  for (let round = 0; round < WARMUP_ROUNDS; round++) {
    for (const bytes of all)
      correct = (await runner(bytes))() && correct
  }
  const samples = new Map<number, number[]>(all.map(bytes => [bytes, []]))
  const rounds = Math.max(...all.map(runsOf))
  for (let round = 0; round < rounds; round++) {
    // Rotate the order every round, so a busy moment on the machine is shared by all sizes.
    for (let k = 0; k < all.length; k++) {
      const bytes = all[(k + round) % all.length]
      const taken = samples.get(bytes)!
      if (taken.length >= runsOf(bytes))
        continue
      let check = () => false
      taken.push((await measure(async () => {
        check = await runner(bytes)
      })).cpuMs)
      // Checked outside the measured time: comparing a 200 KB value is not the loop's work.
      correct = check() && correct
    }
  }
  const baseCpuMs = median(samples.get(BASE_BYTES)!)
  const sizes = sizesKb.map((kb) => {
    const taken = samples.get(kb * 1024)!
    const cpuMs = median(taken)
    return { kb, runs: taken.length, cpuMs, usPerKb: (cpuMs - baseCpuMs) * 1000 / kb }
  })
  const ratio = sizes.at(-1)!.usPerKb / sizes[0].usPerKb
  return { provider, variant, baseCpuMs, sizes, ratio, correct }
}

const VARIANT_LABELS: Readonly<Record<DeltaVariant, string>> = {
  'floor': 'floor (client by hand)',
  'plain': 'zidane',
  'tool-input': 'zidane + stream:tool-input',
  'output-partial': 'zidane + output:partial value',
}

/** One table per wire: µs per KB of each configuration at each size, then the largest size's figure over the smallest's. */
function printWire(provider: DeltaProvider, results: readonly StreamDeltasResult[]): void {
  console.log(`\n${provider === 'anthropic' ? 'Anthropic Messages' : 'OpenAI Chat Completions'}: CPU µs per KB of argument (runs per size: ${results[0].sizes.map(size => size.runs).join('/')})`)
  const rows = results[0].sizes.map((size, i) => [`${size.kb} KB`, ...results.map(result => result.sizes[i].usPerKb.toFixed(1))])
  rows.push([`${results[0].sizes.at(-1)!.kb} KB / ${results[0].sizes[0].kb} KB`, ...results.map(result => `${result.ratio.toFixed(2)}×`)])
  rows.push(['near-empty call, ms', ...results.map(result => result.baseCpuMs.toFixed(2))])
  printTable(['argument', ...results.map(result => VARIANT_LABELS[result.variant])], rows)
  for (const result of results) {
    if (!result.correct)
      console.log(`WRONG (${VARIANT_LABELS[result.variant]}): a run did not receive the argument that was sent`)
  }
}

/** Runs one conversation for an argument of `bytes` bytes; the returned check says whether it went right. */
export type DeltaRun = (bytes: number) => Promise<() => boolean>

/** The hand-written loop of `loop-overhead` over the official client, with the same tool: it parses the arguments once. */
export function floorDeltaRunner(provider: DeltaProvider, baseURL: string): DeltaRun {
  let received: unknown
  const execute = (_name: string, input: Record<string, unknown>) => {
    received = input
    return 'Written.'
  }
  const common = { model: MODELS[provider], maxTokens: 8192, system: 'You write reports.', maxTurns: 3, execute, onText: () => {} }
  const spec = { name: 'write_report', description: 'Write the report.' }
  const anthropicClient = provider === 'anthropic' ? new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 }) : undefined
  const openaiClient = provider === 'openai-chat' ? new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 }) : undefined
  return async (bytes) => {
    received = undefined
    const prompt = deltaPrompt(bytes)
    const result = anthropicClient
      ? await runFloorLoop({ ...common, client: anthropicClient, prompt, tools: [{ ...spec, input_schema: REPORT_SCHEMA as Tool['input_schema'] }] })
      : await runOpenAIFloorLoop({ ...common, client: openaiClient!, prompt, tools: [{ type: 'function', function: { ...spec, parameters: REPORT_SCHEMA } }] })
    const input = received
    return () => result.turns === 2 && JSON.stringify(input) === JSON.stringify(deltaArgument(bytes))
  }
}

/**
 * One agent per configuration; each call runs one conversation asking for an
 * argument of `bytes` bytes. Its check says whether the tool (or structured
 * output) got exactly that argument and the run completed.
 */
export function deltaRunner(provider: DeltaProvider, variant: DeltaVariant, baseURL: string): DeltaRun {
  let received: unknown
  let streamedChars = 0
  let partialReads = 0
  let partialItems = 0
  const report: ToolDef = {
    spec: { name: 'write_report', description: 'Write the report.', inputSchema: REPORT_SCHEMA },
    execute: (input) => {
      received = input
      return 'Written.'
    },
  }
  const model: Provider = provider === 'anthropic'
    ? anthropic({ apiKey: 'bench', baseURL, defaultModel: MODELS.anthropic })
    : openai({ apiKey: 'bench', baseURL, api: 'chat', defaultModel: MODELS['openai-chat'] })
  const structured = variant === 'output-partial'
  const agent: Agent = createAgent({
    provider: model,
    tools: structured ? {} : { report },
    behavior: structured ? { maxTurns: 3, schema: REPORT_SCHEMA } : { maxTurns: 3 },
  })
  if (variant === 'tool-input') {
    agent.hooks.hook('stream:tool-input', (ctx) => {
      streamedChars += ctx.delta.length
    })
  }
  if (structured) {
    agent.hooks.hook('output:partial', (ctx) => {
      // What a progress display does: look at the value written so far.
      const value = ctx.value as { items?: unknown[] } | undefined
      partialReads += 1
      partialItems = value?.items?.length ?? 0
    })
  }
  return async (bytes) => {
    received = undefined
    streamedChars = 0
    partialReads = 0
    partialItems = 0
    const stats = await agent.run({ prompt: deltaPrompt(bytes) })
    const seen = { input: received, chars: streamedChars, reads: partialReads, items: partialItems }
    return () => {
      if (stats.stopReason !== 'completed')
        return false
      const argument = deltaArgument(bytes)
      const expected = JSON.stringify(argument)
      // The last partial value, read as the closing brace streamed, already holds every record.
      if (structured)
        return JSON.stringify(stats.output) === expected && seen.reads > 0 && seen.items === argument.items.length
      if (variant === 'tool-input' && seen.chars !== expected.length)
        return false
      return JSON.stringify(seen.input) === expected
    }
  }
}

interface DeltaServer {
  url: string
  stop: () => Promise<void>
}

const SERVER_SCRIPT = fileURLToPath(new URL('./delta-server.ts', import.meta.url))
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Start `delta-server.ts` in a child process; it exits by itself if this process dies (it watches its stdin). */
export async function startDeltaServer(provider: DeltaProvider): Promise<DeltaServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, provider], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  const stop = () => stopChild(child)
  try {
    return { url: await firstLine(child), stop }
  }
  catch (error) {
    await stop()
    throw error
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => done(new Error('delta server did not print its URL in time')), 20_000)
    function done(error: Error | undefined, url?: string) {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.off('exit', onExit)
      if (error)
        reject(error)
      else
        resolve(url!)
    }
    function onExit(code: number | null) {
      done(new Error(`delta server exited early (code ${code})`))
    }
    function onData(chunk: Buffer) {
      buffered += chunk.toString('utf8')
      const end = buffered.indexOf('\n')
      if (end >= 0)
        done(undefined, buffered.slice(0, end).trim())
    }
    child.stdout?.on('data', onData)
    child.once('exit', onExit)
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null)
    return
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await streamDeltas()
