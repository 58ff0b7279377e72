/**
 * The loops the loop-overhead benchmark compares, each as a function that
 * runs one whole conversation and returns what it did: the hand-written
 * floors (`floor-loop.ts`, `floor-loop-openai.ts`) and zidane in its two
 * configurations. Every loop persists its conversation to a file under a
 * directory the caller owns, one file per run: the floor its own JSONL log,
 * zidane a session in the file store.
 */

import type { Tool } from '@anthropic-ai/sdk/resources/messages'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions'
import type { FunctionTool } from 'openai/resources/responses/responses'
import type { AgentBehavior, AgentTelemetry, Provider, RunEffects, ToolDef } from '../src'
import type { LoopCode } from './built-code'
import type { FloorRunTelemetry } from './floor-telemetry'
import type { BenchProvider } from './loop-script'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import OpenAI from 'openai'
import { SOURCE_CODE } from './built-code'
import { PROMPT, READ_NOTE_SPEC, readNote, SYSTEM } from './read-note'

/**
 * zidane's configurations: `defaults` is a file-backed session, a
 * `stream:text` handler and every built-in policy registered with its knobs
 * unset; `policies` adds the common policies a host turns on; `telemetry` is
 * `defaults` with OpenTelemetry on (the real SDK, spans through a span
 * processor to an exporter, metrics aggregated by a reader).
 */
export type LoopConfig = 'defaults' | 'policies' | 'telemetry'

/** Every configuration, in the order the tables print them. */
export const LOOP_CONFIGS: readonly LoopConfig[] = ['defaults', 'policies', 'telemetry']

/**
 * Where a loop keeps its conversation: `file` (the floor's JSONL log of
 * every turn, zidane's file-backed session) or `none` (the floor keeps its
 * message list in memory, zidane runs without a session), as a server that
 * keeps history itself, a subagent or a batch job runs.
 */
export type Persistence = 'file' | 'none'

/** An exporter that takes every span and keeps none: the SDK's whole path runs, without a network. */
class DiscardingExporter implements SpanExporter {
  exported = 0
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.exported += spans.length
    done({ code: 0 })
  }

  async shutdown(): Promise<void> {}
}

/**
 * A reader that aggregates what is recorded and is never asked for it during
 * a run: a host's `PeriodicExportingMetricReader` collects once a minute by
 * default, far less often than once per 50-turn run.
 */
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * The telemetry of the `telemetry` configuration: a tracer and a meter of the
 * real SDK, set up as a production host sets them up. Spans go through a
 * `BatchSpanProcessor` (what the SDK's own setup and every exporter's docs
 * use in production: ended spans are queued and exported in batches off the
 * loop's path), not a `SimpleSpanProcessor`, which exports each span as it
 * ends and is meant for tests and debugging. Measuring with the latter would
 * charge zidane for an export strategy no production host runs.
 */
export function benchTelemetry(): AgentTelemetry {
  const tracing = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DiscardingExporter())] })
  const metering = new MeterProvider({ readers: [new IdleReader()] })
  return { tracer: tracing.getTracer('zidane-bench'), meter: metering.getMeter('zidane-bench'), agentName: 'bench' }
}

/** The model each path names; every loop of a path sends the same one. */
const MODELS: Readonly<Record<BenchProvider, string>> = {
  'anthropic': 'claude-sonnet-5-5',
  'openai-chat': 'gpt-5.2',
  'openai-responses': 'gpt-5.2',
}
const MAX_TOKENS = 8192

/** The host's text sink: a no-op, as in zidane's `stream:text` handler. */
function onText(_delta: string): void {}

/**
 * The common policies, with the thresholds a host would pick for a coding
 * agent: each one runs its checks on every turn of the benchmark, none fires
 * (no call repeats, the budget is never reached, tool output stays far below
 * both byte thresholds).
 */
export function commonPolicies(resultsDir: string): AgentBehavior {
  return {
    repeatGuard: { tools: ['read_note'], mode: 'both', windowSize: 12 },
    toolBudgets: { read_note: { max: 1_000 } },
    compactStrategy: 'tail',
    compactThreshold: 131_072,
    compactLowWaterFraction: 0.5,
    persistThreshold: 8_192,
    persistDir: resultsDir,
  }
}

/** What one run of a loop did. */
export interface LoopRun {
  turns: number
  /** The text of the final answer. */
  text: string
  /** The file the run's conversation was persisted to ('' when nothing is persisted). */
  file: string
}

/** Where a runner keeps its files, and what it tells the caller as it goes. */
export interface RunnerOptions {
  baseURL: string
  /** A directory for this runner alone; each run adds one file. */
  dir: string
  /** The turn cap; a run must end on its own before it. */
  maxTurns: number
  /** Called once for every tool call a loop executes. */
  onToolCall?: () => void
  /** zidane only: the run's effects (the seam-cost count passes a counting wrapper). */
  effects?: RunEffects
  /** The floor only: the `fetch` its client uses (the in-process benchmark records the server's answers through it). */
  fetch?: typeof globalThis.fetch
  /** The code both sides run (`built-code.ts`); the sources as loaded when absent. */
  code?: LoopCode
  /** Where each run's conversation is kept (default `file`). */
  persistence?: Persistence
  /**
   * zidane: the telemetry to run with, in place of the `telemetry`
   * configuration's. The floor: its tracer and meter get the same spans and
   * metrics written by hand (`floor-telemetry.ts`).
   */
  telemetry?: AgentTelemetry
}

/** The hand-written loop of a wire format: one run per call, each logging to a new file unless `persistence` is `none`. */
export function floorRunner(provider: BenchProvider, options: RunnerOptions): () => Promise<LoopRun> {
  const logged = (options.persistence ?? 'file') === 'file'
  let runs = 0
  /** A new log file for each run, or none. */
  const nextLog = (): { logPath?: string } => logged ? { logPath: join(options.dir, `floor-${++runs}.jsonl`) } : {}
  const execute = (_name: string, input: Record<string, unknown>): string => {
    options.onToolCall?.()
    return readNote(input)
  }
  mkdirSync(options.dir, { recursive: true })
  const { runFloorLoop, runOpenAIFloorLoop, runResponsesFloorLoop, startFloorRun } = (options.code ?? SOURCE_CODE).floors
  const shared = { model: MODELS[provider], maxTokens: MAX_TOKENS, system: SYSTEM, prompt: PROMPT, maxTurns: options.maxTurns, execute, onText }
  const telemetry = options.telemetry
  /** The floor's telemetry by hand for a run logging to `logPath` (the log names its conversation, as zidane's session does). */
  const floorTelemetry = (logPath: string | undefined): { telemetry?: () => FloorRunTelemetry } => {
    if (!telemetry?.tracer || !telemetry.meter)
      return {}
    const setup = { tracer: telemetry.tracer, meter: telemetry.meter, agentName: telemetry.agentName ?? 'bench', ...(logPath ? { conversationId: logPath } : {}) }
    return { telemetry: () => startFloorRun(setup, provider, MODELS[provider], MAX_TOKENS) }
  }
  if (provider === 'anthropic') {
    const client = new Anthropic({ apiKey: 'bench', baseURL: options.baseURL, maxRetries: 0, ...(options.fetch ? { fetch: options.fetch } : {}) })
    const tools: Tool[] = [{
      name: READ_NOTE_SPEC.name,
      description: READ_NOTE_SPEC.description,
      input_schema: READ_NOTE_SPEC.inputSchema as Tool['input_schema'],
    }]
    return async () => {
      const log = nextLog()
      const result = await runFloorLoop({ ...shared, client, tools, ...log, ...floorTelemetry(log.logPath) })
      return { turns: result.turns, text: result.text, file: log.logPath ?? '' }
    }
  }
  const client = new OpenAI({ apiKey: 'bench', baseURL: options.baseURL, maxRetries: 0, ...(options.fetch ? { fetch: options.fetch } : {}) })
  if (provider === 'openai-responses') {
    const tools: FunctionTool[] = [{
      type: 'function',
      name: READ_NOTE_SPEC.name,
      description: READ_NOTE_SPEC.description,
      parameters: READ_NOTE_SPEC.inputSchema as FunctionTool['parameters'],
      strict: false,
    }]
    return async () => {
      const log = nextLog()
      const result = await runResponsesFloorLoop({ ...shared, client, tools, ...log, ...floorTelemetry(log.logPath) })
      return { turns: result.turns, text: result.text, file: log.logPath ?? '' }
    }
  }
  const tools: ChatCompletionFunctionTool[] = [{
    type: 'function',
    function: { name: READ_NOTE_SPEC.name, description: READ_NOTE_SPEC.description, parameters: READ_NOTE_SPEC.inputSchema },
  }]
  return async () => {
    const log = nextLog()
    const result = await runOpenAIFloorLoop({ ...shared, client, tools, ...log, ...floorTelemetry(log.logPath) })
    return { turns: result.turns, text: result.text, file: log.logPath ?? '' }
  }
}

/** What one zidane run did, with the session it recorded into. */
export interface ZidaneRun extends LoopRun {
  /** '' when the run had no session. */
  sessionId: string
  stopReason: string
}

/**
 * zidane on a wire format in one configuration. Each run is a new
 * conversation, as a host starts one: a new session in the file store and an
 * agent bound to it, with a `stream:text` handler. Both are made inside the
 * run, so their cost is in the figure. With `persistence: 'none'` the agent
 * has no session: its history lives in the run, as in a host that keeps the
 * conversation itself.
 */
export function zidaneRunner(provider: BenchProvider, config: LoopConfig, concurrent: boolean, options: RunnerOptions): () => Promise<ZidaneRun> {
  const { createAgent, anthropic, openai, createFileStore, createSession } = (options.code ?? SOURCE_CODE).zidane
  const tool: ToolDef = {
    spec: READ_NOTE_SPEC,
    execute: (input) => {
      options.onToolCall?.()
      return readNote(input)
    },
    isConcurrencySafe: concurrent,
  }
  const model: Provider = provider === 'anthropic'
    ? anthropic({ apiKey: 'bench', baseURL: options.baseURL, defaultModel: MODELS.anthropic })
    : openai({ apiKey: 'bench', baseURL: options.baseURL, api: provider === 'openai-chat' ? 'chat' : 'responses', defaultModel: MODELS[provider] })
  const sessionsDir = join(options.dir, 'sessions')
  const store = (options.persistence ?? 'file') === 'file' ? createFileStore({ dir: sessionsDir }) : undefined
  const behavior: AgentBehavior = {
    maxTurns: options.maxTurns,
    maxTokens: MAX_TOKENS,
    ...(config === 'policies' ? commonPolicies(join(options.dir, 'results')) : {}),
  }
  const telemetry = options.telemetry ?? (config === 'telemetry' ? benchTelemetry() : undefined)
  const extras = { ...(options.effects ? { effects: options.effects } : {}), ...(telemetry ? { telemetry } : {}) }
  if (!store) {
    return async () => {
      const agent = createAgent({ provider: model, tools: { readNote: tool }, system: SYSTEM, behavior, ...extras })
      agent.hooks.hook('stream:text', (_ctx) => {})
      const stats = await agent.run({ prompt: PROMPT })
      return { turns: stats.turns, text: stats.text, file: '', sessionId: '', stopReason: stats.stopReason }
    }
  }
  return async () => {
    const session = await createSession({ store })
    const agent = createAgent({ provider: model, tools: { readNote: tool }, system: SYSTEM, behavior, session, ...extras })
    agent.hooks.hook('stream:text', (_ctx) => {})
    const stats = await agent.run({ prompt: PROMPT })
    const last = session.turns.at(-1)
    const text = last?.role === 'assistant' ? last.content.map(block => block.type === 'text' ? block.text : '').join('') : ''
    return { turns: stats.turns, text, file: join(sessionsDir, `${session.id}.jsonl`), sessionId: session.id, stopReason: stats.stopReason }
  }
}
