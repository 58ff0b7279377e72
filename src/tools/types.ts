import type { ExecutionContext, TaskStallInfo } from '../contexts/types'
import type { ToolResultMetadata } from '../core/content'
import type { DurableRuntime } from '../core/durable-runtime'
import type { RunEffects } from '../core/effects'
import type { ChildRunStats } from '../core/stats'
import type { ToolOutcome, ToolOutput, ToolProgress, ToolProgressUpdate, ValidationResult } from '../core/tool-io'
import type { AgentBehavior } from '../knobs/behavior'
import type { ModelTargetSpec } from '../providers/model-targets'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider, ToolSpec } from '../providers/types'
import type { Session } from '../session/session'
import type { ToolStateView } from '../tool-state/types'

export type { ToolOutcome, ToolOutput, ToolProgress, ToolProgressUpdate, ValidationResult }

/** Everything a tool may know about the call it is serving. */
export interface ToolContext {
  /** Id of this tool call. */
  callId: string
  /** Id of the turn whose assistant message made the call. */
  turnId: string
  /** Id of the run. */
  runId: string
  /** Canonical tool name. */
  name: string
  /** Name the model used (the alias when one is configured). */
  displayName: string
  /** Aborted when the run is aborted; long-running tools must honor it. */
  signal: AbortSignal
  /** Subagent depth; 0 at the top level. */
  depth: number
  parentRunId?: string
  parentCallId?: string
  /** Where commands run and files live; built-in tools never touch the host directly. */
  execution: ExecutionContext
  /** Called when a background task this call started goes silent (`background:stall`). */
  onBackgroundStall?: (info: TaskStallInfo) => void
  /** What a tool that runs subagents needs from this run (the built-in `spawn` uses it). */
  subagents: SubagentHost
  /** The session the run records into, when the agent has one (session-scoped tool features need it). */
  session?: Session
  /** The run's resolved behavior, `extensions` included. */
  behavior: Readonly<AgentBehavior>
  /**
   * Durable key/value state shared by the agent's tools across runs. Writes
   * are staged and committed only when this call succeeds; reads see the
   * committed state plus this call's own writes.
   */
  state: ToolStateView
  /** Record what a mutating call did; shows up as `outcome` on `tool:after`. */
  reportOutcome: (outcome: ToolOutcome) => void
  /**
   * Report progress while the call runs: `tool:progress` on the hooks and a
   * `tool-progress` event on `agent.stream()`; the model never reads it.
   * Never waits and never throws. Reports made while the previous one is
   * still being delivered are merged (the newest wins, `skipped` counts the
   * rest), a call delivers at most `TOOL_PROGRESS_LIMITS.maxEvents`, and a
   * report made after the call ended is ignored.
   */
  progress: (update: ToolProgressUpdate) => void
  /** Set when this call is itself a nested call: the id of the call whose tool made it. */
  parentToolCallId?: string
  /**
   * Call another tool of the run from inside this one. The call takes the
   * path a model's call takes: the policies' batch gate (as a batch of one)
   * and per-call gate, the host's `tool:gate`, input validation, the tool,
   * `tool:transform` and the result phase, with every tool hook seeing
   * `parentToolCallId`. Names resolve as the model's do (canonical or wire
   * name, `call_tool` envelopes, lazily disclosed tools only once loaded).
   * Budgets, guards and dedup count it. It is recorded on this call's
   * `tool_result` (`calls`), never as a turn; the model reads only what this
   * tool returns. Never throws: a refusal or failure comes back as a result
   * (`blocked` says the tool did not run). Calls nest at most 8
   * deep, and are cut when this call ends.
   */
  callTool: (name: string, input: Record<string, unknown>, options?: NestedToolCallOptions) => Promise<NestedToolCallResult>
  /**
   * The run's effects (`RunEffects`): a tool that reads the time, makes an
   * id, draws a random number or waits should do it here, so a journaled,
   * traced or test run sees it the way it sees the run's own.
   */
  effects: RunEffects
}

/** Options of one nested call (`ToolContext.callTool`). */
export interface NestedToolCallOptions {
  /** The caller's script line that makes the call (a positive integer); shown to hooks as `scriptLine` and recorded. */
  line?: number
  /** Cancels this call alone (a script's timeout, say); the run goes on. The run's own abort always applies. */
  signal?: AbortSignal
}

/** What a nested call answered: the result the model would have read, had it made the call. */
export interface NestedToolCallResult {
  /** The nested call's id (its hooks' `callId`): the calling call's id, a dot, and a counter. */
  callId: string
  /** Canonical name of the tool that answered (the tool inside a `call_tool` envelope). */
  name: string
  /** The result after `tool:transform` and the result phase. */
  output: ToolOutput
  isError: boolean
  /**
   * The tool did not run: a policy, the host's `tool:gate` or the loop (an
   * unknown tool, invalid input, the depth cap, an abort) refused it.
   * `blockedBy` says which. A result a gate substituted is not blocked.
   */
  blocked: boolean
  blockedBy?: 'policy' | 'host' | 'loop'
  outcome?: ToolOutcome
  /** What the transform hooks attached to the result. */
  metadata?: ToolResultMetadata
  durationMs: number
}

/**
 * The events a subagent tool fires through `SubagentHost.emit`. Spelled as
 * patterns rather than the agent's hook names because tools sit below the
 * hook bus; the bus still only reaches handlers of events it knows.
 */
export type SubagentEventName = `spawn:${string}` | `child:${string}`

/** The run-side seam for tools that run subagents. */
export interface SubagentHost {
  /** Fire an event on this agent's hook bus (`spawn:*`, and `child:*` re-emissions); observers only, not awaited. */
  emit: (name: SubagentEventName, ctx: object) => void
  /** Add a finished child's stats to this run's `stats.children` and totals. */
  reportChild: (child: ChildRunStats) => void
  /** A fresh label for a child of this agent's session: `child-1`, `child-2`, … */
  nextChildLabel: () => string
  /**
   * What a child of this run inherits when the tool that spawns it configures
   * nothing else. Always set by the loop; absent only on a hand-built `ToolContext`.
   */
  parent?: SubagentParent
}

/** The parts of a run a subagent inherits by default (its behavior comes from `ToolContext.behavior`). */
export interface SubagentParent {
  /** The agent's providers, in fallback order. */
  providers: readonly Provider[]
  /** The run's `model` option as given; absent means each provider's default model. */
  model?: string | readonly (string | ModelTargetSpec)[]
  /** The tools the run was given (MCP tools included), before the loop adds its own (`tool_search`, task tools). */
  tools?: ToolMap
  /** The run's tool aliases (generated MCP ones included). */
  toolAliases?: Record<string, string>
  /** The run's reasoning level. */
  thinking: ThinkingLevel
  /** The agent's durable runtime: a child runs in the same mode (its steps go through the parent's effects, scoped by the call). */
  durable?: DurableRuntime
}

/** A tool the agent can call. */
export interface ToolDef<Input = any> {
  spec: ToolSpec
  /** Run the tool; a string or content blocks go back to the model, and a throw becomes an error result. */
  execute: (input: Input, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  /**
   * Safe to run at the same time as other safe calls of the same turn (no
   * shared writes). Unsafe calls run alone, in order, as barriers.
   */
  isConcurrencySafe?: boolean | ((input: Input) => boolean)
  /**
   * Check (and possibly coerce) the model's input. When absent the loop checks
   * the input against `spec.inputSchema`. A failure goes back to the model as
   * an error result; the tool does not run.
   */
  validate?: (input: unknown) => ValidationResult<Input>
  /** Set on tools that come from an MCP server; calls of such tools also fire `mcp:tool:*` hooks. */
  mcp?: { server: string, tool: string }
  /**
   * Marks a dispatch envelope such as `call_tool`: the loop asks it for the
   * call inside and dispatches that instead, so gates, validation, hooks and
   * results all see the inner tool. The envelope's own `execute` is not used.
   */
  unwrap?: (input: Record<string, unknown>) => ToolEnvelopeTarget
}

/**
 * A tool as a durable runtime sees it (`zidane/durable`). `runsNestedAgent`
 * marks a tool that runs a subagent (the `spawn` tool): its call is not one
 * journal step, since the child's model and tool calls are journaled one by
 * one, under names scoped by the call.
 */
export type DurableToolDef<Input = any> = ToolDef<Input> & { runsNestedAgent?: true }

/** The call inside an envelope, or why the envelope is malformed (sent back to the model). */
export type ToolEnvelopeTarget = { name: string, input: Record<string, unknown> } | { error: string }

/** Tools keyed by any label; the canonical name is always `spec.name`. */
export type ToolMap = Record<string, ToolDef>
