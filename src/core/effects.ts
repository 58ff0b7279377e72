import type { AgentClock } from './clock'
import { DEFAULT_AGENT_CLOCK } from './clock'
import { delay } from './timer'

/**
 * The run's effects: everything a run does that is not a pure function of
 * what it was given. Time, ids, randomness and waits are read here; model
 * calls, tool executions and the I/O of policy phases are handed to it as a
 * function to run. The default runs what it is given; a host swaps it to
 * journal a run (a durable engine), to wrap each call in a span
 * (OpenTelemetry), or to make a run repeat byte for byte (`testEffects` in
 * `zidane/testing`). See docs/architecture/effects.md.
 *
 * `AgentClock` keeps its own scope: the metadata a run records as ids and
 * timestamps (turn ids, `createdAt`, run ids). The effects' `now` is for what
 * the run measures live (time to first token, durations, `elapsed`).
 */
export interface RunEffects {
  /** Epoch milliseconds, for live measurements. Synchronous: it is read while a stream is being read. */
  now: () => number
  /** A fresh id (UUID-shaped), for names the run makes up that are not session metadata (a temporary file, say). */
  id: () => string
  /** A number in [0, 1), for retry jitter. */
  random: () => number
  /** Wait `ms`; with a signal, reject with its reason as soon as it aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  /**
   * One model call (one provider attempt): `exec` makes it and resolves with
   * what the provider answered, or rejects with its error. A retry is a new call.
   */
  model: <T>(kind: ModelCallKind, request: ModelCallRequest, exec: () => Promise<T>) => Promise<T>
  /** One tool execution: `exec` runs the tool's body and resolves with its output. Gates and hooks stay outside. */
  tool: <T>(call: ToolCallRequest, exec: () => Promise<T>) => Promise<T>
  /** I/O inside a policy phase (a file written, a file read), named `<policy>:<what>`. */
  step: <T>(name: string, exec: () => Promise<T>) => Promise<T>
  /**
   * The effects for work nested under one tool call (a subagent's run): a
   * journal names that work's entries under `scope`. Absent: nested work uses
   * these effects as they are.
   */
  within?: (scope: string) => RunEffects
}

/** What a model call is for: a turn of the run, a policy's side call (`run.complete`, a compaction summary), or a decision (`agent.decide`, `ctx.decide`). */
export type ModelCallKind = 'turn' | 'side-call' | 'decision'

/** A model call as the effects see it. */
export interface ModelCallRequest {
  /** The provider's name. */
  readonly provider: string
  readonly model: string
  /** The run the call belongs to; absent for `agent.decide` outside a run. */
  readonly runId?: string
  /** The id of the turn (turns and side calls) or of the decision. */
  readonly id: string
  /** 1 for the first attempt; each retry is its own call with the next number. */
  readonly attempt: number
  /**
   * What the provider is sent, without its abort signal: the stream request
   * (`StreamOptions`) for turns and side calls, the decision call for
   * decisions. Read it; do not change it.
   */
  readonly body: object
}

/** A tool execution as the effects see it. */
export interface ToolCallRequest {
  readonly runId: string
  readonly turnId: string
  readonly callId: string
  /** The tool's canonical name. */
  readonly name: string
  /** The input the tool is run with, after validation. */
  readonly input: unknown
  /** The tool runs a subagent (`DurableToolDef.runsNestedAgent`): its own model and tool calls go through the effects one by one. */
  readonly runsNestedAgent?: true
  /**
   * What the call leaves besides its output, for effects that record a call
   * and hand it back later instead of running the tool again (a journal).
   */
  readonly record?: ToolCallRecord
}

/**
 * A tool call's side data, as a journal moves it through the call's step
 * record: its staged tool-state writes (`ToolStateOp`s, kept as plain JSON)
 * and the outcome it reported (`ToolContext.reportOutcome`).
 */
export interface ToolCallRecord {
  /** The writes the call has staged so far, in order. */
  readonly stagedOps: () => readonly unknown[]
  /** Stage these writes again (replay: the tool does not run, its journaled writes do). */
  readonly restoreOps: (ops: readonly unknown[]) => void
  /** What the tool reported with `reportOutcome`, if anything. */
  readonly outcome: () => unknown
  /** Report it again (replay). */
  readonly restoreOutcome: (outcome: unknown) => void
  /** What the call added to the session's read state (files the model saw), as plain JSON. */
  readonly reads: () => readonly unknown[]
  /** Add it again (replay). */
  readonly restoreReads: (reads: readonly unknown[]) => void
}

/** Each runs what it is given, at once (a tool starts in the same tick as its last check). */
const runModelCall = <T>(_kind: ModelCallKind, _request: ModelCallRequest, exec: () => Promise<T>): Promise<T> => exec()
const runCall = <T>(_what: unknown, exec: () => Promise<T>): Promise<T> => exec()

/** Effects whose ids come from `clock`, the rest real. */
function withIds(clock: AgentClock): RunEffects {
  return Object.freeze({
    now: () => Date.now(),
    id: () => clock.randomUUID(),
    random: () => Math.random(),
    sleep: delay,
    model: runModelCall,
    tool: runCall,
    step: runCall,
  })
}

const DEFAULT_RUN_EFFECTS = withIds(DEFAULT_AGENT_CLOCK)

/**
 * The default effects: real time (`Date.now()`), ids from `clock`
 * (`crypto.randomUUID()` by default), `Math.random()`, real sleeps, and
 * every call run as given. Spread it to replace a part:
 * `{ ...defaultRunEffects(), model: tracedModelCall }`.
 */
export function defaultRunEffects(clock: AgentClock = DEFAULT_AGENT_CLOCK): RunEffects {
  return clock === DEFAULT_AGENT_CLOCK ? DEFAULT_RUN_EFFECTS : withIds(clock)
}

/**
 * The effects a run or an agent uses: the host's when it gave some, else the
 * default ones, whose ids come from the clock it gave (so a replay clock
 * also names what the effects name).
 */
export function resolveEffects(effects: RunEffects | undefined, clock: AgentClock | undefined): RunEffects {
  return effects ?? defaultRunEffects(clock)
}

/**
 * The clock a run or an agent records metadata with: the host's when it gave
 * one, else one reading the host's effects (their time and ids), else
 * `DEFAULT_AGENT_CLOCK`. So effects alone (a test's, a durable engine's)
 * decide every id and timestamp a run records.
 */
export function resolveClock(clock: AgentClock | undefined, effects: RunEffects | undefined): AgentClock {
  if (clock)
    return clock
  if (!effects)
    return DEFAULT_AGENT_CLOCK
  return { now: () => effects.now(), randomUUID: () => effects.id() }
}
