/**
 * loop-overhead: the CPU the agent loop itself costs per turn.
 *
 * A 50-turn tool loop runs against a fake model server (a child process, so
 * the server's CPU is not counted here): a hand-written floor loop over the
 * provider's official client, and zidane in several configurations
 * (`loop-runners.ts`), alternated in the same process and the same run.
 * Three wire formats: the Anthropic Messages API, OpenAI Chat Completions
 * and the OpenAI Responses API. Every loop sends the same system prompt,
 * tools and conversation and gets byte-identical streams back, so the
 * difference in this process's CPU time is what zidane adds. Each scenario
 * runs twice: with every turn persisted to a file (the floor by hand, zidane
 * through a file-backed session), and with nothing persisted on either side
 * (the floor without its log, zidane without a session), where zidane's own
 * work is a larger share of the turn.
 */

import type { LoopCode } from './built-code'
import type { LoopConfig, Persistence } from './loop-runners'
import type { BenchProvider } from './loop-script'
import type { Sample } from './measure'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchLoopCode } from './built-code'
import { printSeamCost } from './effects-seam'
import { benchTelemetry, floorRunner, LOOP_CONFIGS, zidaneRunner } from './loop-runners'
import { measure, median, printTable, quantile } from './measure'
import { startServerProcess } from './server-process'

const TURNS = 50
/**
 * Runs per loop: `BENCH_LOOP_RUNS=100:100` (warm-up:measured) overrides the
 * default 60:60, which gave the same medians as 100:100 within the noise.
 */
const [WARMUP_RUNS, MEASURED_RUNS] = runCounts(process.env.BENCH_LOOP_RUNS)

/**
 * The target for each configuration: zidane's median CPU over the floor's.
 * Without persistence the lines are tighter: nothing on either side hides
 * the loop's own cost behind file writes.
 */
const TARGETS: Readonly<Record<Persistence, Partial<Record<LoopConfig, number>>>> = {
  file: { defaults: 1.1, policies: 1.2, telemetry: 1.1 * 1.02 },
  none: { defaults: 1.05, policies: 1.15 },
}
/** Telemetry's own target: the `telemetry` run's CPU over the same run without it (`defaults`). */
const TELEMETRY_TARGET = 1.02

const CONFIG_LABELS: Readonly<Record<Persistence, Record<LoopConfig, string>>> = {
  file: {
    defaults: 'zidane, defaults (file session, stream:text, built-ins unset)',
    policies: 'zidane, common policies on',
    telemetry: 'zidane, defaults + OpenTelemetry (spans exported, metrics)',
  },
  none: {
    defaults: 'zidane, defaults (no session, stream:text, built-ins unset)',
    policies: 'zidane, common policies on, no session',
    telemetry: 'zidane, defaults + OpenTelemetry, no session',
  },
}
/** How each path's floor is labelled in the tables. */
const FLOOR_LABELS: Readonly<Record<Persistence, Record<BenchProvider, string>>> = {
  file: {
    'anthropic': 'floor (@anthropic-ai/sdk by hand, JSONL log)',
    'openai-chat': 'floor (openai by hand, JSONL log)',
    'openai-responses': 'floor (openai responses by hand, JSONL log)',
  },
  none: {
    'anthropic': 'floor (@anthropic-ai/sdk by hand, no log)',
    'openai-chat': 'floor (openai by hand, no log)',
    'openai-responses': 'floor (openai responses by hand, no log)',
  },
}
const PROVIDER_LABELS: Readonly<Record<BenchProvider, string>> = {
  'anthropic': 'Anthropic Messages',
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
}

interface Scenario {
  provider: BenchProvider
  label: string
  callsPerTurn: number
  persistence: Persistence
}

/** One zidane configuration's figures in a scenario. */
export interface ConfigResult {
  config: LoopConfig
  /** Medians per turn. */
  zidane: Sample
  /** zidane CPU / floor CPU, from the two medians. */
  ratio: number
  target: number
  /** The same ratio taken run by run (each zidane run against the floor run of its round): quartiles, for the spread. */
  pairedRatio: { q1: number, median: number, q3: number }
}

/** One scenario's figures. */
export interface ScenarioResult {
  provider: BenchProvider
  label: string
  callsPerTurn: number
  persistence: Persistence
  /** The floor's medians per turn. */
  floor: Sample
  /**
   * The floor with the `telemetry` configuration's spans and metrics written
   * by hand (`floor-telemetry.ts`), when that configuration ran: what the
   * OpenTelemetry SDK costs the leanest loop doing the same telemetry work.
   */
  floorTelemetry?: Sample
  /**
   * zidane's `defaults` with its requests sent through Node's `fetch`, the
   * floor's client (`ZIDANE_HTTP_CLIENT=fetch`), in scenarios with nothing
   * persisted: the loop's own cost with the HTTP client taken out of the
   * comparison (zidane otherwise sends over `node:http`, see
   * docs/providers/http-client.md).
   */
  overFetch?: Sample
  configs: ConfigResult[]
}

const PERSISTENCES: readonly Persistence[] = ['file', 'none']

const ALL_SCENARIOS: readonly Scenario[] = PERSISTENCES.flatMap(persistence =>
  (['anthropic', 'openai-chat', 'openai-responses'] as const).flatMap(provider => [1, 3].map(callsPerTurn => ({
    provider,
    callsPerTurn,
    persistence,
    label: `${callsPerTurn === 1 ? '1 tool call' : `${callsPerTurn} parallel tool calls`} per turn${persistence === 'none' ? ', nothing persisted' : ''}`,
  }))))

/**
 * `BENCH_LOOP=anthropic:3` (or `openai-chat`, `openai-chat:1`, comma-separated)
 * runs only the matching scenarios; `BENCH_LOOP_SESSION=file` (or `none`)
 * only those with that persistence; `BENCH_LOOP_CONFIG=defaults` (or
 * `policies`) only that zidane configuration. For quick comparisons while profiling.
 */
const SCENARIOS: readonly Scenario[] = selectScenarios(process.env.BENCH_LOOP, process.env.BENCH_LOOP_SESSION)
const CONFIGS: readonly LoopConfig[] = selectConfigs(process.env.BENCH_LOOP_CONFIG)

function selectScenarios(filter: string | undefined, persistence: string | undefined): readonly Scenario[] {
  const wanted = filter ? filter.split(',').map(item => item.trim().split(':')) : undefined
  const kept = persistence ? persistence.split(',').map(item => item.trim()) : undefined
  if (kept?.some(item => !PERSISTENCES.includes(item as Persistence)))
    throw new Error(`BENCH_LOOP_SESSION=${persistence} should name ${PERSISTENCES.join(' or ')}`)
  const selected = ALL_SCENARIOS.filter(scenario =>
    (kept === undefined || kept.includes(scenario.persistence))
    && (wanted === undefined || wanted.some(([provider, calls]) =>
      provider === scenario.provider && (calls === undefined || Number(calls) === scenario.callsPerTurn))))
  if (selected.length === 0)
    throw new Error(`BENCH_LOOP=${filter} matches no scenario (try anthropic:3 or openai-chat)`)
  return selected
}

/** The configurations a scenario runs: telemetry only beside a file session, where its line is drawn. */
function configsOf(scenario: Scenario): readonly LoopConfig[] {
  return CONFIGS.filter(config => TARGETS[scenario.persistence][config] !== undefined)
}

function runCounts(setting: string | undefined): [number, number] {
  if (!setting)
    return [60, 60]
  const [warmup, measured] = setting.split(':').map(Number)
  if (!Number.isInteger(warmup) || warmup < 0 || !Number.isInteger(measured) || measured < 1)
    throw new Error(`BENCH_LOOP_RUNS=${setting} should be <warm-up runs>:<measured runs>, e.g. 100:100`)
  return [warmup, measured]
}

function selectConfigs(filter: string | undefined): readonly LoopConfig[] {
  if (!filter)
    return LOOP_CONFIGS
  const wanted = filter.split(',').map(item => item.trim())
  const selected = LOOP_CONFIGS.filter(config => wanted.includes(config))
  if (selected.length === 0)
    throw new Error(`BENCH_LOOP_CONFIG=${filter} matches no configuration (try ${LOOP_CONFIGS.join(' or ')})`)
  return selected
}

/** Run the selected scenarios and print their tables and a one-line summary against the targets. */
export async function loopOverhead(): Promise<ScenarioResult[]> {
  const code = await benchLoopCode()
  console.log(`loop-overhead: ${TURNS}-turn tool loop against a local fake server, every turn persisted to a file, then nothing persisted; ${WARMUP_RUNS} warm-up + ${MEASURED_RUNS} measured runs per loop, alternated`)
  console.log(`code measured: ${code.note}`)
  const results: ScenarioResult[] = []
  for (const scenario of SCENARIOS)
    results.push(await runScenario(scenario, code))
  const lines = results.flatMap(result => result.configs.map((config) => {
    const line = `${PROVIDER_LABELS[result.provider]}, ${result.label}, ${config.config}: ${config.ratio.toFixed(2)}× (${config.ratio <= config.target ? 'within' : 'ABOVE'} ${config.target.toFixed(2)}×)`
    if (config.config !== 'defaults' || !result.overFetch)
      return line
    const ratio = result.overFetch.cpuMs / result.floor.cpuMs
    return `${line}; over the floor's client (Node's fetch) ${ratio.toFixed(2)}× (${ratio <= config.target ? 'within' : 'ABOVE'} ${config.target.toFixed(2)}×)`
  }))
  console.log(`\nloop-overhead zidane/floor CPU per turn:\n  ${lines.join('\n  ')}`)
  const telemetryLines = results.flatMap((result) => {
    const on = result.configs.find(config => config.config === 'telemetry')
    const off = result.configs.find(config => config.config === 'defaults')
    if (!on || !off)
      return []
    const ratio = on.zidane.cpuMs / off.zidane.cpuMs
    const line = `${PROVIDER_LABELS[result.provider]}, ${result.label}: zidane ${ratio.toFixed(3)}× (${ratio <= TELEMETRY_TARGET ? 'within' : 'ABOVE'} ${TELEMETRY_TARGET.toFixed(2)}×)`
    if (!result.floorTelemetry)
      return [line]
    // The same spans and metrics written by hand into the floor: the SDK's own cost, with no framework around it.
    const floorRatio = result.floorTelemetry.cpuMs / result.floor.cpuMs
    const zidaneAdds = (on.zidane.cpuMs - off.zidane.cpuMs) * 1000
    const floorAdds = (result.floorTelemetry.cpuMs - result.floor.cpuMs) * 1000
    return [`${line}; the floor with the same telemetry by hand ${floorRatio.toFixed(3)}×; telemetry adds ${zidaneAdds.toFixed(0)} µs per turn to zidane, ${floorAdds.toFixed(0)} µs to the floor (${(zidaneAdds / floorAdds).toFixed(2)}×)`]
  })
  if (telemetryLines.length > 0)
    console.log(`\ntelemetry on / off, CPU per turn (same run):\n  ${telemetryLines.join('\n  ')}`)
  await printSeamCost(results, TURNS)
  return results
}

async function runScenario(scenario: Scenario, code: LoopCode): Promise<ScenarioResult> {
  const server = await startServerProcess(scenario.provider, TURNS, scenario.callsPerTurn)
  const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-loop-'))
  try {
    const configs = configsOf(scenario)
    const options = (name: string) => ({ baseURL: server.url, dir: join(dir, name), maxTurns: TURNS + 10, code, persistence: scenario.persistence })
    const floorRun = floorRunner(scenario.provider, options('floor'))
    const traced = configs.includes('telemetry')
    const floorTracedRun = traced ? floorRunner(scenario.provider, { ...options('floor-telemetry'), telemetry: benchTelemetry() }) : undefined
    const overFetch = scenario.persistence === 'none' && configs.includes('defaults')
    const overFetchRun = overFetch ? zidaneRunner(scenario.provider, 'defaults', scenario.callsPerTurn > 1, options('defaults-over-fetch')) : undefined
    const loops: { name: 'floor' | 'floor-telemetry' | 'defaults-over-fetch' | LoopConfig, run: () => Promise<void> }[] = [
      { name: 'floor', run: async () => checkTurns('floor', (await floorRun()).turns) },
      ...(floorTracedRun ? [{ name: 'floor-telemetry' as const, run: async () => checkTurns('floor-telemetry', (await floorTracedRun()).turns) }] : []),
      ...configs.map((config) => {
        const run = zidaneRunner(scenario.provider, config, scenario.callsPerTurn > 1, options(config))
        return {
          name: config,
          run: async () => {
            const result = await run()
            checkTurns(config, result.turns)
            if (result.stopReason !== 'completed')
              throw new Error(`zidane (${config}) stopped: ${result.stopReason}`)
          },
        }
      }),
      ...(overFetchRun
        ? [{
            name: 'defaults-over-fetch' as const,
            run: async () => {
              // Read by zidane per request; the loops run one at a time, so only this one sees it.
              process.env.ZIDANE_HTTP_CLIENT = 'fetch'
              try {
                checkTurns('defaults-over-fetch', (await overFetchRun()).turns)
              }
              finally {
                delete process.env.ZIDANE_HTTP_CLIENT
              }
            },
          }]
        : []),
    ]
    for (let i = 0; i < WARMUP_RUNS; i++) {
      for (const loop of loops) await loop.run()
    }
    const samples = new Map(loops.map(loop => [loop.name, [] as Sample[]]))
    for (let i = 0; i < MEASURED_RUNS; i++) {
      // Rotate the order each round so no loop always runs right after the same one.
      for (let n = 0; n < loops.length; n++) {
        const loop = loops[(i + n) % loops.length]
        samples.get(loop.name)!.push(await measure(loop.run))
      }
    }
    const floorSamples = samples.get('floor')!
    const floor = perTurn(floorSamples)
    const result: ScenarioResult = {
      provider: scenario.provider,
      label: scenario.label,
      callsPerTurn: scenario.callsPerTurn,
      persistence: scenario.persistence,
      floor,
      ...(traced ? { floorTelemetry: perTurn(samples.get('floor-telemetry')!) } : {}),
      ...(overFetch ? { overFetch: perTurn(samples.get('defaults-over-fetch')!) } : {}),
      configs: configs.map((config) => {
        const own = samples.get(config)!
        const zidane = perTurn(own)
        const pairs = own.map((sample, i) => sample.cpuMs / floorSamples[i].cpuMs)
        return {
          config,
          zidane,
          ratio: zidane.cpuMs / floor.cpuMs,
          target: TARGETS[scenario.persistence][config]!,
          pairedRatio: { q1: quantile(pairs, 0.25), median: quantile(pairs, 0.5), q3: quantile(pairs, 0.75) },
        }
      }),
    }
    printScenario(result)
    return result
  }
  finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

function checkTurns(loop: string, turns: number): void {
  if (turns !== TURNS)
    throw new Error(`${loop} ran ${turns} turns, expected ${TURNS}`)
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
  printTable(['loop', 'CPU ms/turn', 'wall ms/turn', 'CPU vs floor', 'target', 'run-by-run median (middle half)'], [
    [FLOOR_LABELS[result.persistence][result.provider], result.floor.cpuMs.toFixed(3), result.floor.wallMs.toFixed(3), '1.00×', '', ''],
    ...(result.floorTelemetry ? [['floor + the same OpenTelemetry by hand', result.floorTelemetry.cpuMs.toFixed(3), result.floorTelemetry.wallMs.toFixed(3), `${(result.floorTelemetry.cpuMs / result.floor.cpuMs).toFixed(2)}×`, '', '']] : []),
    ...result.configs.map(({ config, zidane, ratio, target, pairedRatio: { q1, median, q3 } }) => [
      CONFIG_LABELS[result.persistence][config],
      zidane.cpuMs.toFixed(3),
      zidane.wallMs.toFixed(3),
      `${ratio.toFixed(2)}×`,
      `${target.toFixed(2)}×`,
      `${median.toFixed(2)}× (${q1.toFixed(2)}–${q3.toFixed(2)})`,
    ]),
    ...(result.overFetch ? [['zidane, defaults, over Node\'s fetch as the floor (ZIDANE_HTTP_CLIENT=fetch)', result.overFetch.cpuMs.toFixed(3), result.overFetch.wallMs.toFixed(3), `${(result.overFetch.cpuMs / result.floor.cpuMs).toFixed(2)}×`, '', '']] : []),
  ])
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await loopOverhead()
