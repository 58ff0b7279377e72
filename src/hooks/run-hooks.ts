/**
 * The events the run itself fires (the loop and the agent around it). They
 * are declared in the bus's folder because the loop sits above the bus; every
 * domain below the bus declares its own events, and `hook-map.ts` composes them.
 */

import type { PromptPart, SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'
import type { HookHandler, RunHookContext, StreamHookContext, TransformHookHandler } from '../core/hook-context'
import type { AgentStats, TurnFinishReason, TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { ToolResult } from '../core/tool-io'
import type { ClassifiedError, PairingRepair } from '../errors'

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

/** `turn:after`: a turn is recorded and its tool calls answered; the policies decide right after it. */
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

/** `context:transform`: the last chance to change the messages of one request (after policy wire stages, before pairing repair and tool names). */
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

/** `stream:tool-input`: a fragment of one tool call's JSON arguments, as the model writes them. */
export interface StreamToolInputContext extends StreamHookContext {
  callId: string
  /** Canonical tool name. */
  name: string
  /** The arguments text this fragment adds; a call's fragments add up to its arguments. */
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

/** `model:fallback`: the run moved to its next model target. */
export interface ModelFallbackContext extends StreamHookContext {
  from: { provider: string, model: string }
  to: { provider: string, model: string }
  /** The failure that moved the run on. */
  error: unknown
}

/** The events of a run: its start and end, each turn, each streamed attempt. */
export interface RunHooks {
  'agent:start': HookHandler<AgentStartContext>
  'agent:done': HookHandler<AgentDoneContext>
  'agent:abort': HookHandler<AgentAbortContext>
  'agent:error': HookHandler<AgentErrorContext>
  'turn:before': HookHandler<TurnBeforeContext>
  'turn:after': HookHandler<TurnAfterContext>
  'system:transform': TransformHookHandler<SystemTransformContext>
  'context:transform': TransformHookHandler<ContextTransformContext>
  'stream:start': HookHandler<StreamStartContext>
  'stream:text': HookHandler<StreamDeltaContext>
  'stream:thinking': HookHandler<StreamDeltaContext>
  'stream:tool-input': HookHandler<StreamToolInputContext>
  'stream:end': HookHandler<StreamEndContext>
  'stream:retry': HookHandler<StreamRetryContext>
  'usage': HookHandler<UsageContext>
  'steer:inject': HookHandler<SteerInjectContext>
  'pairing:repair': HookHandler<PairingRepairContext>
  'model:fallback': HookHandler<ModelFallbackContext>
}

/** The run events by name; `satisfies` keeps it in step with `RunHooks`. */
export const RUN_HOOK_NAMES = {
  'agent:start': true,
  'agent:done': true,
  'agent:abort': true,
  'agent:error': true,
  'turn:before': true,
  'turn:after': true,
  'system:transform': true,
  'context:transform': true,
  'stream:start': true,
  'stream:text': true,
  'stream:thinking': true,
  'stream:tool-input': true,
  'stream:end': true,
  'stream:retry': true,
  'usage': true,
  'steer:inject': true,
  'pairing:repair': true,
  'model:fallback': true,
} as const satisfies Record<keyof RunHooks, true>
