import type { TaskStallInfo } from '../contexts/types'
import type { PromptPart, SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'
import type { AgentStats, ChildRunStats, TurnFinishReason, TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { ToolOutcome, ToolOutput, ToolResult } from '../core/tool-io'
import type { ClassifiedError, PairingRepair } from '../errors'
import type { McpElicitationContext } from '../mcp/elicitation'
import type { McpAuthRequiredContext, McpCloseContext, McpToolsFilterContext } from '../mcp/types'
import type { SessionEndStatus } from '../session/types'
import type { ToolStateOp } from '../tool-state/types'

/** Ids shared by every run-scoped hook context. */
export interface RunHookContext {
  runId: string
  /** Subagent depth; 0 at the top level. */
  depth: number
  parentRunId?: string
  parentCallId?: string
}

/** Context of hooks that stream one turn. */
export interface StreamHookContext extends RunHookContext {
  turnId: string
}

/** The tool call a `tool:*` hook fires for. */
export interface ToolHookContext extends Omit<StreamHookContext, 'depth'> {
  /** Subagent depth; omitted at the top level (read a missing value as 0). */
  depth?: number
  callId: string
  /** Canonical tool name; match policies against this. */
  name: string
  /** Name the model sees (the alias when one is set). */
  displayName: string
  input: Record<string, unknown>
}

/** `agent:start`: a run begins, with the provider and model it starts on. */
export interface AgentStartContext extends RunHookContext {
  provider: string
  model: string
  prompt?: string | PromptPart[]
  tracingContext?: Readonly<Record<string, string>>
  metadata?: Readonly<Record<string, unknown>>
}

/** `turn:before`: a model call is about to be prepared. */
export interface TurnBeforeContext extends StreamHookContext {
  /** 1-based turn number within the run. */
  turn: number
  /** The wire view about to be transformed and sent (read-only here; rewrite it in `context:transform`). */
  messages: readonly SessionMessage[]
}

/** `turn:after`: a turn is recorded and its tool calls answered; policies act here. */
export interface TurnAfterContext extends StreamHookContext {
  turn: number
  /** The assistant turn as recorded. */
  assistant: SessionTurn
  /** Results of the turn's tool calls, in call order (empty when it called none). */
  toolResults: ToolResult[]
  usage: TurnUsage
  finishReason: TurnFinishReason
}

/** `system:transform`: the last chance to change the system prompt of one request. */
export interface SystemTransformContext extends StreamHookContext {
  /** Assign a new string to change the system prompt of this request. */
  system: string
}

/** `context:transform`: the last chance to change the messages of one request. */
export interface ContextTransformContext extends StreamHookContext {
  /** Assign a new array to change what this request sends; the recorded turns never change. */
  messages: SessionMessage[]
}

/** `stream:start`: a provider attempt is about to start. */
export interface StreamStartContext extends StreamHookContext {
  provider: string
  model: string
  /** 1 for the first attempt, higher on retries. */
  attempt: number
}

/** `stream:text` and `stream:thinking`: one streamed piece. */
export interface StreamDeltaContext extends StreamHookContext {
  delta: string
}

/** `stream:end`: a provider attempt finished with this content. */
export interface StreamEndContext extends StreamHookContext {
  content: SessionContentBlock[]
  usage: TurnUsage
  finishReason: TurnFinishReason
}

/** `stream:retry`: a failed attempt will be retried after a delay. */
export interface StreamRetryContext extends StreamHookContext {
  /** The attempt about to start (2 for the first retry). */
  attempt: number
  error: ClassifiedError
  /** How long the loop waits before that attempt. */
  delayMs: number
  /** Reasoning that had streamed in the failed attempt; it is dropped and regenerated. */
  discardedThinking: string
}

/** `usage`: the token usage of one turn. */
export interface UsageContext extends StreamHookContext {
  usage: TurnUsage
}

/** `tool:gate`: decide whether a call runs, is refused, or is answered without running. */
export interface ToolGateContext extends ToolHookContext {
  /** Set to refuse the call; the model sees `Blocked: <reason>`. */
  block?: boolean
  reason?: string
  /** Set to answer the call with this result without running the tool. */
  result?: ToolOutput
}

/** `tool:transform`: change the result the model will read. */
export interface ToolTransformContext extends ToolHookContext {
  /** Assign to change what the model receives. */
  result: ToolOutput
  isError: boolean
  outputBytes: number
}

/** `tool:after`: the final result of one call. */
export interface ToolAfterContext extends ToolHookContext {
  result: ToolOutput
  isError: boolean
  outcome?: ToolOutcome
  outputBytes: number
  durationMs: number
}

/** `tool:error`: the tool threw (the model gets an error result). */
export interface ToolErrorContext extends ToolHookContext {
  error: unknown
}

/** `tool-results:after`: every result of a turn, recorded in call order. */
export interface ToolResultsAfterContext extends StreamHookContext {
  results: ToolResult[]
}

/** `agent:done`: the run returned these stats. */
export interface AgentDoneContext extends RunHookContext {
  stats: AgentStats
  stopReason: StopReason
}

/** `agent:abort`: the run ended aborted, with the abort reason. */
export interface AgentAbortContext extends RunHookContext {
  reason?: unknown
}

/** `agent:error`: the run is about to throw this error. */
export interface AgentErrorContext extends RunHookContext {
  error: unknown
}

/** `session:start`: a run starts recording into this session. */
export interface SessionHookContext extends RunHookContext {
  sessionId: string
}

/** `session:turns`: turns were written to the store. */
export interface SessionTurnsContext extends SessionHookContext {
  /** The turns just written to the store, in order. */
  turns: readonly SessionTurn[]
}

/** `session:end`: the run record was closed with this status. */
export interface SessionEndContext extends SessionHookContext {
  status: SessionEndStatus
  stopReason?: StopReason
}

/** `steer:inject`: a steered or follow-up message joined the conversation. */
export interface SteerInjectContext extends StreamHookContext {
  /** `'steer'` (`agent.steer`) or `'follow-up'` (`agent.followUp`). */
  kind: 'steer' | 'follow-up'
  /** The id the caller gave the message, if any. */
  id?: string
  prompt: string | PromptPart[]
}

/** `pairing:repair`: the pairing pass fixed the wire view before a request. */
export interface PairingRepairContext extends StreamHookContext {
  repair: PairingRepair
}

/** `tool-state:commit-failed`: a call succeeded but its state writes were lost. */
export interface ToolStateCommitFailedContext extends ToolHookContext {
  error: unknown
  /** The writes that were dropped, in the order the tool made them. */
  ops: readonly ToolStateOp[]
}

/** `model:fallback`: the run moved to its next model target. */
export interface ModelFallbackContext extends StreamHookContext {
  from: { provider: string, model: string }
  to: { provider: string, model: string }
  /** The failure that moved the run on. */
  error: unknown
}

/** A background task went silent (`backgroundStallWatchdogMs`); it may be waiting on a prompt. */
export type BackgroundStallContext = TaskStallInfo

/**
 * The MCP tool call a `mcp:tool:*` hook fires for. `server` and `tool` are
 * the configured server name and the server's own tool name; `name` is the
 * canonical `mcp__<server>__<tool>`, `displayName` what the model sees.
 */
export interface McpToolHookContext {
  runId?: string
  depth?: number
  parentRunId?: string
  parentCallId?: string
  turnId: string
  callId: string
  server: string
  tool: string
  name: string
  displayName: string
  input: Record<string, unknown>
}

/** `mcp:tool:transform`: assign `result` to change what the model reads (runs after `tool:transform`). */
export interface McpToolTransformContext extends McpToolHookContext {
  result: ToolOutput
  isError: boolean
  /** Wire size of `result` as the hook received it (`toolOutputByteLength`). */
  outputBytes: number
}

/** `mcp:tool:after`: the final result of one MCP tool call. */
export interface McpToolAfterContext extends McpToolHookContext {
  result: ToolOutput
  isError: boolean
  outputBytes: number
  durationMs: number
}

/**
 * An observer. Its return type is a bare `void` on purpose: TypeScript lets a
 * function returning anything stand in for one returning `void`, so one-line
 * arrows such as `({ delta }) => process.stdout.write(delta)` fit (a union
 * with `Promise<void>` would refuse them). A returned promise is waited for, except on the streaming hooks.
 */
type Handler<Ctx> = (ctx: Ctx) => void

/**
 * A transforming hook changes `ctx` in place; a returned value would be
 * dropped, so the type refuses one instead of letting `ctx => 'new text'` look like it works.
 */
type TransformHandler<Ctx> = (ctx: Ctx) => void | Promise<void>

/** The events of the agent itself. */
interface OwnHooks {
  'agent:start': Handler<AgentStartContext>
  'agent:done': Handler<AgentDoneContext>
  'agent:abort': Handler<AgentAbortContext>
  'agent:error': Handler<AgentErrorContext>
  'turn:before': Handler<TurnBeforeContext>
  'turn:after': Handler<TurnAfterContext>
  'system:transform': TransformHandler<SystemTransformContext>
  'context:transform': TransformHandler<ContextTransformContext>
  'stream:start': Handler<StreamStartContext>
  'stream:text': Handler<StreamDeltaContext>
  'stream:thinking': Handler<StreamDeltaContext>
  'stream:end': Handler<StreamEndContext>
  'stream:retry': Handler<StreamRetryContext>
  'usage': Handler<UsageContext>
  'tool:gate': TransformHandler<ToolGateContext>
  'tool:before': Handler<ToolHookContext>
  'tool:transform': TransformHandler<ToolTransformContext>
  'tool:after': Handler<ToolAfterContext>
  'tool:error': Handler<ToolErrorContext>
  'tool-results:after': Handler<ToolResultsAfterContext>
  'session:start': Handler<SessionHookContext>
  'session:turns': Handler<SessionTurnsContext>
  'session:end': Handler<SessionEndContext>
  'steer:inject': Handler<SteerInjectContext>
  'pairing:repair': Handler<PairingRepairContext>
  'tool-state:commit-failed': Handler<ToolStateCommitFailedContext>
  'model:fallback': Handler<ModelFallbackContext>
  'background:stall': Handler<BackgroundStallContext>
  'mcp:tools:filter': TransformHandler<McpToolsFilterContext>
  'mcp:tool:transform': TransformHandler<McpToolTransformContext>
  'mcp:tool:after': Handler<McpToolAfterContext>
  'mcp:close': Handler<McpCloseContext>
  'mcp:auth:required': Handler<McpAuthRequiredContext>
  'mcp:elicitation': Handler<McpElicitationContext>
}

/** An event of a subagent (any depth), re-emitted on its ancestors' buses as `child:<event>`. */
export interface ChildEventMarks {
  /** Spawn id of the child that emitted it (the direct child of the agent whose tool spawned it). */
  childId: string
  /** Depth of the agent that emitted it: 1 for a direct child, 2 for a grandchild, … */
  depth: number
}

/** What every `spawn:*` hook gets: the child being spawned and the call that spawned it. */
export interface SpawnHookContext extends RunHookContext {
  /** Spawn id of the child (`child-N`). */
  id: string
  task: string
  /** Tool-call id of the `spawn` call. */
  callId: string
  model?: string
  provider?: string
  /** Label of the earlier child this spawn continues, when resuming. */
  resumesChildId?: string
  /** Trace-context carrier: a tracer may add keys here; the child gets them on `agent:start`. */
  tracingContext: Record<string, string>
}

/** `spawn:complete`: the subagent finished with these stats. */
export interface SpawnCompleteContext extends SpawnHookContext {
  stats: ChildRunStats
}

/** `spawn:error`: the subagent failed. */
export interface SpawnErrorContext extends SpawnHookContext {
  error: unknown
  /** The failed child as recorded in the parent's `stats.children` (`status: 'error'` unless it was timed out or aborted), with its usage up to the failure. */
  stats: ChildRunStats
}

type ChildHooks = { [K in keyof OwnHooks as `child:${K}`]: Handler<Parameters<OwnHooks[K]>[0] & ChildEventMarks> }

interface SpawnHooks {
  'spawn:before': Handler<SpawnHookContext>
  'spawn:complete': Handler<SpawnCompleteContext>
  'spawn:error': Handler<SpawnErrorContext>
}

type ChildSpawnHooks = { [K in keyof SpawnHooks as `child:${K}`]: Handler<Parameters<SpawnHooks[K]>[0] & ChildEventMarks> }

/**
 * Every event the agent fires and the context its handlers receive. Contexts
 * marked mutable are read back by the loop after the handlers ran. Events of
 * subagents come back as `child:<event>`, with `childId` and `depth`.
 */
export type AgentHooks = OwnHooks & SpawnHooks & ChildHooks & ChildSpawnHooks

/** The name of any event on `agent.hooks`. */
export type AgentHookName = keyof AgentHooks

/** The context type of one event. */
export type HookContext<K extends AgentHookName> = Parameters<AgentHooks[K]>[0]

/** Hooks given as options: one handler or a list per event. */
export type AgentHookMap = { [K in AgentHookName]?: AgentHooks[K] | AgentHooks[K][] }

/**
 * Per-run hook registrations (`AgentRunOptions.hooks`): keyed by event name,
 * each handler typed by its event, like `AgentHookMap`. Names are also checked
 * at run time, for callers that build the map dynamically.
 */
export type RunHookMap = AgentHookMap
