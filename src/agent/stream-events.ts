import type { PromptPart } from '../core/content'
import type { AgentStats, ChildRunStats, TurnFinishReason, TurnUsage } from '../core/stats'
import type { ClassifiedError } from '../errors'
import type { ApprovalDecisionOptions } from '../tools/hooks'
import type { ToolOutcome, ToolOutput, ToolProgress } from '../tools/types'

/** What every event of `agent.stream()` carries: which run emitted it, and how deep in the subagent tree. */
export interface AgentEventBase {
  /** The run that emitted the event; a subagent's events carry the subagent's own run id. */
  runId: string
  /** 0 for the agent `stream()` was called on, 1 for its subagents, 2 for theirs, … */
  depth: number
  /** On subagent events only: the spawn id (`child-N`) its parent gave the subagent that emitted it. */
  childId?: string
}

/** A run started (`agent:start`): the first event of every run, subagent runs included. */
export interface RunStartEvent extends AgentEventBase {
  type: 'run-start'
  provider: string
  model: string
}

/** A model turn is about to be requested (`turn:before`). */
export interface TurnStartEvent extends AgentEventBase {
  type: 'turn-start'
  turnId: string
  /** 1-based turn number within its run. */
  turn: number
}

/** Streamed answer text (`stream:text`). */
export interface TextDeltaEvent extends AgentEventBase {
  type: 'text'
  turnId: string
  delta: string
}

/** Streamed reasoning (`stream:thinking`). A retry may discard it: see `RetryEvent.discardedThinking`. */
export interface ThinkingDeltaEvent extends AgentEventBase {
  type: 'thinking'
  turnId: string
  delta: string
}

/** A failed provider attempt is about to be retried (`stream:retry`). */
export interface RetryEvent extends AgentEventBase {
  type: 'retry'
  turnId: string
  /** The attempt about to start (2 for the first retry). */
  attempt: number
  delayMs: number
  error: ClassifiedError
  /** Reasoning streamed by the failed attempt, which the next attempt replaces. */
  discardedThinking: string
}

/** The run moved on to its next model target after the current one failed for good (`model:fallback`). */
export interface FallbackEvent extends AgentEventBase {
  type: 'fallback'
  turnId: string
  from: { provider: string, model: string }
  to: { provider: string, model: string }
  error: unknown
}

/** The model called a tool. Exactly one `tool-result` with the same `runId` and `callId` follows. */
export interface ToolCallEvent extends AgentEventBase {
  type: 'tool-call'
  turnId: string
  callId: string
  /** Canonical tool name (the one hooks and sessions use). */
  name: string
  input: Record<string, unknown>
}

/**
 * A running tool reported progress (`tool:progress`), between its call's
 * `tool-call` and `tool-result`. Reports a slow reader has not taken yet are
 * merged into the newest (`skipped` counts them).
 */
export interface ToolProgressEvent extends AgentEventBase, ToolProgress {
  type: 'tool-progress'
  turnId: string
  callId: string
  /** Canonical name of the reporting tool. */
  name: string
  /** 1 for the call's first delivered report, then 2, 3, … */
  sequence: number
  skipped: number
}

/**
 * A call needs the host's approval before it runs (`tool:approval`), after
 * its `tool-call`. The run waits (abortable, no time limit) until one of the
 * methods is called, or `agent.approve(callId)` / `agent.deny(callId)`:
 * `approve()` runs it, `deny({ reason })` refuses it with the reason,
 * `suspend()` stops the run with `stopReason: 'suspended'` to decide later.
 * The first decision counts. Its `tool-result` follows as for any call.
 */
export interface ToolApprovalEvent extends AgentEventBase {
  type: 'tool-approval'
  turnId: string
  callId: string
  /** Canonical name of the tool that needs approval (for a `call_tool` envelope, the tool inside it). */
  name: string
  input: Record<string, unknown>
  /** Set when a tool made the call while it ran (`ToolContext.callTool`): the calling tool's call id. */
  parentToolCallId?: string
  /** Let the call run. */
  approve: (options?: ApprovalDecisionOptions) => void
  /** Refuse the call; the model reads `Blocked: the call was denied: <reason>`. */
  deny: (options?: ApprovalDecisionOptions) => void
  /** Leave the call pending and stop the run with `stopReason: 'suspended'` (a nested call is refused instead). */
  suspend: () => void
}

/** The answer to one tool call, as the model will read it. */
export interface ToolResultEvent extends AgentEventBase {
  type: 'tool-result'
  turnId: string
  callId: string
  /** The tool that answered (for a `call_tool` envelope, the tool inside it). */
  name: string
  output: ToolOutput
  isError: boolean
  /** How long the tool ran; absent when the loop answered the call without a `tool:after` report. */
  durationMs?: number
  outcome?: ToolOutcome
}

/** A turn ended, its tool calls answered (`turn:after`). */
export interface TurnEndEvent extends AgentEventBase {
  type: 'turn-end'
  turnId: string
  turn: number
  usage: TurnUsage
  finishReason: TurnFinishReason
}

/** A message from `agent.steer()` or `agent.followUp()` joined the conversation (`steer:inject`). */
export interface UserMessageEvent extends AgentEventBase {
  type: 'user-message'
  /** The user turn the message became. */
  turnId: string
  kind: 'steer' | 'follow-up'
  /** The id the caller gave the message, if any. */
  id?: string
  prompt: string | PromptPart[]
}

/**
 * A `spawn` call started a subagent (`spawn:before`). `runId` is the run whose
 * tool spawned it; `depth` is the subagent's own depth.
 */
export interface SubagentStartEvent extends AgentEventBase {
  type: 'subagent-start'
  /** Spawn id of the subagent (`child-N`). */
  id: string
  task: string
  /** The `spawn` tool call that started it (absent when the spawn event carried none). */
  callId?: string
}

/** A subagent finished (`spawn:complete`, with its stats) or failed (`spawn:error`, with the error). */
export interface SubagentEndEvent extends AgentEventBase {
  type: 'subagent-end'
  id: string
  /** The `spawn` tool call that started it (absent when the spawn event carried none). */
  callId?: string
  stats?: ChildRunStats
  error?: unknown
}

/**
 * Structured output as the model writes it (`output:partial`), before it is
 * validated: `value` is `text` closed off and parsed. The validated value
 * arrives with the run's stats (`done`, `stats.output`).
 */
export interface OutputPartialEvent extends AgentEventBase {
  type: 'output-partial'
  turnId: string
  callId: string
  delta: string
  text: string
  readonly value: unknown
}

/** The last event of a run that returned: the same stats `stream.result` resolves to. */
export interface DoneEvent extends AgentEventBase {
  type: 'done'
  stats: AgentStats
}

/** One event of `agent.stream()`; switch on `type`. */
export type AgentStreamEvent
  = | RunStartEvent
    | TurnStartEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | RetryEvent
    | FallbackEvent
    | ToolCallEvent
    | ToolProgressEvent
    | ToolApprovalEvent
    | ToolResultEvent
    | TurnEndEvent
    | UserMessageEvent
    | SubagentStartEvent
    | SubagentEndEvent
    | OutputPartialEvent
    | DoneEvent

/** The `type` of an `AgentStreamEvent`. */
export type AgentStreamEventType = AgentStreamEvent['type']
