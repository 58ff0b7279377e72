/**
 * loop-overhead: the CPU the agent loop itself costs per turn.
 *
 * A 50-turn tool loop runs against a fake model server (a child process, so
 * the server's CPU is not counted here), once with zidane and once with a
 * hand-written floor loop over the provider's official client, in the same
 * process and the same run. Two wire formats: the Anthropic Messages API
 * (floor over `@anthropic-ai/sdk`, `floor-loop.ts`) and OpenAI Chat
 * Completions (floor over `openai`, `floor-loop-openai.ts`). Both loops send
 * the same system prompt, tools and conversation and get byte-identical
 * streams back, so the difference in this process's CPU time is what zidane
 * adds: hooks, session turns, the wire view, validation, watchdogs and stats.
 */

import type { Tool } from '@anthropic-ai/sdk/resources/messages'
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions'
import type { Agent, Provider, ToolDef } from '../src'
import type { Sample } from './measure'
import type { BenchProvider } from './server-process'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { openai } from '../src/providers/openai'
import { runFloorLoop } from './floor-loop'
import { runOpenAIFloorLoop } from './floor-loop-openai'
import { measure, median, printTable, quantile } from './measure'
import { startServerProcess } from './server-process'

const TURNS = 50
const WARMUP_RUNS = 100
const MEASURED_RUNS = 100
const TARGET_RATIO = 1.2

/** The model each path names; both loops of a path send the same one. */
const MODELS: Readonly<Record<BenchProvider, string>> = {
  'anthropic': 'claude-sonnet-5-5',
  'openai-chat': 'gpt-5.2',
}
/** How each path's floor is labelled in the tables. */
const FLOOR_LABELS: Readonly<Record<BenchProvider, string>> = {
  'anthropic': 'floor (@anthropic-ai/sdk by hand)',
  'openai-chat': 'floor (openai by hand)',
}
const PROVIDER_LABELS: Readonly<Record<BenchProvider, string>> = {
  'anthropic': 'Anthropic Messages',
  'openai-chat': 'OpenAI Chat Completions',
}
const MAX_TOKENS = 8192
const SYSTEM = 'You are a careful coding assistant. Read the files you need before answering.'
const PROMPT = 'Check every module under src/ and tell me when you are done.'

const READ_NOTE_SPEC = {
  name: 'read_note',
  description: 'Read the note kept for a source file.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path relative to the repository root.' },
      maxLines: { type: 'integer', description: 'Most lines to return.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
}

/** The tool both loops run: cheap and deterministic, so the loop is what gets measured. */
function readNote(input: Record<string, unknown>): string {
  return `${String(input.path)}: 12 lines, last changed in the previous commit.`
}

interface Scenario {
  provider: BenchProvider
  label: string
  callsPerTurn: number
}

export interface ScenarioResult {
  provider: BenchProvider
  label: string
  /** Medians per turn. */
  floor: Sample
  zidane: Sample
  /** zidane CPU / floor CPU, from the two medians. */
  ratio: number
  /** The same ratio taken run by run (each zidane run against the floor run beside it): quartiles, for the spread. */
  pairedRatio: { q1: number, median: number, q3: number }
}

const ALL_SCENARIOS: readonly Scenario[] = (['anthropic', 'openai-chat'] as const).flatMap(provider => [
  { provider, label: '1 tool call per turn', callsPerTurn: 1 },
  { provider, label: '3 parallel tool calls per turn', callsPerTurn: 3 },
])

/**
 * `BENCH_LOOP=anthropic:3` (or `openai-chat`, `openai-chat:1`, comma-separated)
 * runs only the matching scenarios, for quick comparisons while profiling.
 */
const SCENARIOS: readonly Scenario[] = selectScenarios(process.env.BENCH_LOOP)

function selectScenarios(filter: string | undefined): readonly Scenario[] {
  if (!filter)
    return ALL_SCENARIOS
  const wanted = filter.split(',').map(item => item.trim().split(':'))
  const selected = ALL_SCENARIOS.filter(scenario => wanted.some(([provider, calls]) =>
    provider === scenario.provider && (calls === undefined || Number(calls) === scenario.callsPerTurn)))
  if (selected.length === 0)
    throw new Error(`BENCH_LOOP=${filter} matches no scenario (try anthropic:3 or openai-chat)`)
  return selected
}

export async function loopOverhead(): Promise<ScenarioResult[]> {
  console.log(`loop-overhead: ${TURNS}-turn tool loop against a local fake server, ${WARMUP_RUNS} warm-up + ${MEASURED_RUNS} measured runs per loop, alternated`)
  const results: ScenarioResult[] = []
  for (const scenario of SCENARIOS)
    results.push(await runScenario(scenario))
  const summary = results.map(result => `${PROVIDER_LABELS[result.provider]}, ${result.label}: ${result.ratio.toFixed(2)}×`).join('; ')
  const verdict = results.every(result => result.ratio <= TARGET_RATIO) ? 'within' : 'ABOVE'
  console.log(`\nloop-overhead zidane/floor CPU per turn: ${summary} (${verdict} the ${TARGET_RATIO}× target)`)
  return results
}

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const server = await startServerProcess(scenario.provider, TURNS, scenario.callsPerTurn)
  try {
    const floor = floorRunner(scenario.provider, server.url)
    const zidane = zidaneRunner(scenario.provider, server.url, scenario.callsPerTurn > 1)
    for (let i = 0; i < WARMUP_RUNS; i++) {
      await floor()
      await zidane()
    }
    const floorSamples: Sample[] = []
    const zidaneSamples: Sample[] = []
    for (let i = 0; i < MEASURED_RUNS; i++) {
      // Swap the order each round so neither loop always runs right after the other.
      if (i % 2 === 0) {
        floorSamples.push(await measure(floor))
        zidaneSamples.push(await measure(zidane))
      }
      else {
        zidaneSamples.push(await measure(zidane))
        floorSamples.push(await measure(floor))
      }
    }
    const floorPerTurn = perTurn(floorSamples)
    const zidanePerTurn = perTurn(zidaneSamples)
    const pairs = zidaneSamples.map((sample, i) => sample.cpuMs / floorSamples[i].cpuMs)
    const result: ScenarioResult = {
      provider: scenario.provider,
      label: scenario.label,
      floor: floorPerTurn,
      zidane: zidanePerTurn,
      ratio: zidanePerTurn.cpuMs / floorPerTurn.cpuMs,
      pairedRatio: { q1: quantile(pairs, 0.25), median: quantile(pairs, 0.5), q3: quantile(pairs, 0.75) },
    }
    printScenario(result)
    return result
  }
  finally {
    await server.stop()
  }
}

/** Median over the runs, divided by the turns of one run. */
function perTurn(samples: readonly Sample[]): Sample {
  return {
    cpuMs: median(samples.map(sample => sample.cpuMs)) / TURNS,
    wallMs: median(samples.map(sample => sample.wallMs)) / TURNS,
  }
}

function printScenario(result: ScenarioResult): void {
  console.log(`\n${PROVIDER_LABELS[result.provider]}, ${result.label}`)
  printTable(['loop', 'CPU ms/turn', 'wall ms/turn', 'CPU vs floor'], [
    [FLOOR_LABELS[result.provider], result.floor.cpuMs.toFixed(3), result.floor.wallMs.toFixed(3), '1.00×'],
    ['zidane', result.zidane.cpuMs.toFixed(3), result.zidane.wallMs.toFixed(3), `${result.ratio.toFixed(2)}×`],
  ])
  const { q1, median, q3 } = result.pairedRatio
  console.log(`run-by-run CPU ratio: median ${median.toFixed(2)}×, middle half ${q1.toFixed(2)}×–${q3.toFixed(2)}×`)
}

/** One 50-turn run of the floor loop. Exported, like `zidaneRunner`, so a profiling script can run one loop alone. */
export function floorRunner(provider: BenchProvider, baseURL: string): () => Promise<void> {
  const run = provider === 'anthropic' ? anthropicFloor(baseURL) : openaiChatFloor(baseURL)
  return async () => {
    const turns = await run()
    if (turns !== TURNS)
      throw new Error(`floor loop (${provider}) ran ${turns} turns, expected ${TURNS}`)
  }
}

/** The host's text sink: a no-op, as in zidane's `stream:text` handler. */
function onText(_delta: string): void {}

function execute(_name: string, input: Record<string, unknown>): string {
  return readNote(input)
}

function anthropicFloor(baseURL: string): () => Promise<number> {
  const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 })
  const tools: Tool[] = [{
    name: READ_NOTE_SPEC.name,
    description: READ_NOTE_SPEC.description,
    input_schema: READ_NOTE_SPEC.inputSchema as Tool['input_schema'],
  }]
  return async () => {
    const result = await runFloorLoop({
      client,
      model: MODELS.anthropic,
      maxTokens: MAX_TOKENS,
      system: SYSTEM,
      tools,
      prompt: PROMPT,
      maxTurns: TURNS + 10,
      execute,
      onText,
    })
    return result.turns
  }
}

function openaiChatFloor(baseURL: string): () => Promise<number> {
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 })
  const tools: ChatCompletionFunctionTool[] = [{
    type: 'function',
    function: {
      name: READ_NOTE_SPEC.name,
      description: READ_NOTE_SPEC.description,
      parameters: READ_NOTE_SPEC.inputSchema,
    },
  }]
  return async () => {
    const result = await runOpenAIFloorLoop({
      client,
      model: MODELS['openai-chat'],
      maxTokens: MAX_TOKENS,
      system: SYSTEM,
      tools,
      prompt: PROMPT,
      maxTurns: TURNS + 10,
      execute,
      onText,
    })
    return result.turns
  }
}

/** One 50-turn run of zidane, with the hook handlers a host typically registers. */
export function zidaneRunner(provider: BenchProvider, baseURL: string, concurrent: boolean): () => Promise<void> {
  const readNoteTool: ToolDef = {
    spec: READ_NOTE_SPEC,
    execute: input => readNote(input),
    isConcurrencySafe: concurrent,
  }
  const model: Provider = provider === 'anthropic'
    ? anthropic({ apiKey: 'bench', baseURL, defaultModel: MODELS.anthropic })
    : openai({ apiKey: 'bench', baseURL, api: 'chat', defaultModel: MODELS['openai-chat'] })
  const agent: Agent = createAgent({
    provider: model,
    tools: { readNote: readNoteTool },
    system: SYSTEM,
    behavior: { maxTurns: TURNS + 10, maxTokens: MAX_TOKENS },
  })
  // What a host typically registers: stream the text somewhere, log finished tool calls.
  agent.hooks.hook('stream:text', (_ctx) => {})
  agent.hooks.hook('tool:after', (_ctx) => {})
  return async () => {
    const stats = await agent.run({ prompt: PROMPT })
    if (stats.turns !== TURNS || stats.stopReason !== 'completed')
      throw new Error(`zidane (${provider}) ran ${stats.turns} turns (${stats.stopReason}), expected ${TURNS} (completed)`)
  }
}
