/**
 * loop-overhead: the CPU the agent loop itself costs per turn.
 *
 * A 50-turn tool loop runs against the fake Anthropic server (a child
 * process, so the server's CPU is not counted here), once with zidane and
 * once with the hand-written floor over `@anthropic-ai/sdk`, in the same
 * process and the same run. Both send the same system prompt, tools and
 * conversation and get byte-identical streams back, so the difference in
 * this process's CPU time is what zidane adds: hooks, session turns, the wire
 * view, validation, watchdogs and stats.
 */

import type { Tool } from '@anthropic-ai/sdk/resources/messages'
import type { Agent, ToolDef } from '../src'
import type { Sample } from './measure'
import Anthropic from '@anthropic-ai/sdk'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { runFloorLoop } from './floor-loop'
import { measure, median, printTable, quantile } from './measure'
import { startServerProcess } from './server-process'

const TURNS = 50
const WARMUP_RUNS = 100
const MEASURED_RUNS = 100
const TARGET_RATIO = 1.2

const MODEL = 'claude-sonnet-5-5'
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
  label: string
  callsPerTurn: number
}

export interface ScenarioResult {
  label: string
  /** Medians per turn. */
  floor: Sample
  zidane: Sample
  /** zidane CPU / floor CPU, from the two medians. */
  ratio: number
  /** The same ratio taken run by run (each zidane run against the floor run beside it): quartiles, for the spread. */
  pairedRatio: { q1: number, median: number, q3: number }
}

const SCENARIOS: readonly Scenario[] = [
  { label: '1 tool call per turn', callsPerTurn: 1 },
  { label: '3 parallel tool calls per turn', callsPerTurn: 3 },
]

export async function loopOverhead(): Promise<ScenarioResult[]> {
  console.log(`loop-overhead: ${TURNS}-turn tool loop against a local fake server, ${WARMUP_RUNS} warm-up + ${MEASURED_RUNS} measured runs per loop, alternated`)
  const results: ScenarioResult[] = []
  for (const scenario of SCENARIOS)
    results.push(await runScenario(scenario))
  const summary = results.map(result => `${result.label}: ${result.ratio.toFixed(2)}×`).join(', ')
  const verdict = results.every(result => result.ratio <= TARGET_RATIO) ? 'within' : 'ABOVE'
  console.log(`\nloop-overhead zidane/floor CPU per turn: ${summary} (${verdict} the ${TARGET_RATIO}× target)`)
  return results
}

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const server = await startServerProcess(TURNS, scenario.callsPerTurn)
  try {
    const floor = floorRunner(server.url)
    const zidane = zidaneRunner(server.url, scenario.callsPerTurn > 1)
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
  console.log(`\n${result.label}`)
  printTable(['loop', 'CPU ms/turn', 'wall ms/turn', 'CPU vs floor'], [
    ['floor (@anthropic-ai/sdk by hand)', result.floor.cpuMs.toFixed(3), result.floor.wallMs.toFixed(3), '1.00×'],
    ['zidane', result.zidane.cpuMs.toFixed(3), result.zidane.wallMs.toFixed(3), `${result.ratio.toFixed(2)}×`],
  ])
  const { q1, median, q3 } = result.pairedRatio
  console.log(`run-by-run CPU ratio: median ${median.toFixed(2)}×, middle half ${q1.toFixed(2)}×–${q3.toFixed(2)}×`)
}

/** One 50-turn run of the floor loop. Exported, like `zidaneRunner`, so a profiling script can run one loop alone. */
export function floorRunner(baseURL: string): () => Promise<void> {
  const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 })
  const tools: Tool[] = [{
    name: READ_NOTE_SPEC.name,
    description: READ_NOTE_SPEC.description,
    input_schema: READ_NOTE_SPEC.inputSchema as Tool['input_schema'],
  }]
  const onText = (_delta: string) => {}
  return async () => {
    const result = await runFloorLoop({
      client,
      model: MODEL,
      maxTokens: MAX_TOKENS,
      system: SYSTEM,
      tools,
      prompt: PROMPT,
      maxTurns: TURNS + 10,
      execute: (_name, input) => readNote(input),
      onText,
    })
    if (result.turns !== TURNS)
      throw new Error(`floor loop ran ${result.turns} turns, expected ${TURNS}`)
  }
}

/** One 50-turn run of zidane, with the hook handlers a host typically registers. */
export function zidaneRunner(baseURL: string, concurrent: boolean): () => Promise<void> {
  const readNoteTool: ToolDef = {
    spec: READ_NOTE_SPEC,
    execute: input => readNote(input),
    isConcurrencySafe: concurrent,
  }
  const agent: Agent = createAgent({
    provider: anthropic({ apiKey: 'bench', baseURL, defaultModel: MODEL }),
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
      throw new Error(`zidane ran ${stats.turns} turns (${stats.stopReason}), expected ${TURNS} (completed)`)
  }
}
