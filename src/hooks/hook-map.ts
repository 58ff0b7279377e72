/**
 * The agent's event map. `AgentEventMap` is the registry: the events each
 * domain declares next to its code (the run's in `run-hooks.ts`, the tools',
 * the session's, MCP's, …) and those of the built-in policies, and any event a
 * host adds by declaration merging. Everything else derives from it,
 * subagents' re-emissions (`child:<event>`) included.
 */

import type { HookHandler } from '../core/hook-context'
import type { DecideHookContext } from '../decisions/types'
import type { RepeatGuardHooks } from '../policies/repeat-guard/hooks'
import type { SkillsHooks } from '../policies/skills/hooks'
import type { SpawnHooks } from '../tools/spawn-hooks'
import type { BudgetHooks } from './budget-hooks'
import type { CompactionHooks } from './compaction-hooks'
import type { DomainEvents } from './domain-events'

export type { HookHandler, RunHookContext, StreamHookContext } from '../core/hook-context'
export type { DecisionHooks } from '../decisions/hooks'
export type { McpToolAfterContext, McpToolHookContext, McpToolTransformContext } from '../mcp/hooks'
export type { RepeatGuardAction, RepeatGuardCounter, RepeatGuardExceededContext } from '../policies/repeat-guard/hooks'
export type { SkillActivateContext, SkillActivationReason, SkillDeactivateContext, SkillOverflowContext, SkillSkipContext } from '../policies/skills/hooks'
export type { OAuthCredentials, OAuthRefreshHookContext, ProviderInputTransformationsContext } from '../providers/hooks'
export type { SessionEndContext, SessionHookContext, SessionTurnsContext } from '../session/hooks'
export type { BackgroundStallContext, ToolAfterContext, ToolApprovalContext, ToolErrorContext, ToolGateContext, ToolHookContext, ToolResultsAfterContext, ToolStateCommitFailedContext, ToolTransformContext } from '../tools/hooks'
export type { OutputPartialContext } from '../tools/output-hooks'
export type { SpawnCompleteContext, SpawnErrorContext, SpawnHookContext } from '../tools/spawn-hooks'
export type { OutputBudgetExceededContext, ToolBudgetExceededContext, ToolOutputShare } from './budget-hooks'
export type { CompactEndContext, CompactStartContext, CompactTrigger } from './compaction-hooks'
export type { AgentAbortContext, AgentDoneContext, AgentErrorContext, AgentStartContext, ContextTransformContext, ModelFallbackContext, PairingRepairContext, SteerInjectContext, StreamDeltaContext, StreamEndContext, StreamRetryContext, StreamStartContext, SystemTransformContext, TurnAfterContext, TurnBeforeContext, UsageContext } from './run-hooks'

/**
 * The events of the built-in policies. Their types sit below the policies
 * (the map is a lower layer); their names reach the bus from each policy's
 * `events`, so only this line names them here.
 */
interface BuiltInPolicyEvents extends RepeatGuardHooks, BudgetHooks, CompactionHooks, SkillsHooks {}

/**
 * Every event of the agent itself (subagents' re-emissions aside), by name,
 * with its handler type. A host adds its own events by declaration merging,
 * and a policy that fires one lists its name in `events`:
 *
 * ```ts fragment
 * declare module 'zidane' {
 *   interface AgentEventMap { 'quota:warning': (ctx: QuotaWarningContext) => void }
 * }
 * ```
 */
export interface AgentEventMap extends DomainEvents, BuiltInPolicyEvents {}

/** An event of a subagent (any depth), re-emitted on its ancestors' buses as `child:<event>`. */
export interface ChildEventMarks {
  /** Spawn id of the child that emitted it (the direct child of the agent whose tool spawned it). */
  childId: string
  /** Depth of the agent that emitted it: 1 for a direct child, 2 for a grandchild, … */
  depth: number
}

type ChildHooks = { [K in keyof AgentEventMap as `child:${K & string}`]: HookHandler<Parameters<AgentEventMap[K]>[0] & ChildEventMarks> }

type ChildSpawnHooks = { [K in keyof SpawnHooks as `child:${K}`]: HookHandler<Parameters<SpawnHooks[K]>[0] & ChildEventMarks> }

/**
 * Every event the agent fires and the context its handlers receive. Contexts
 * marked mutable are read back by the loop after the handlers ran. Events of
 * subagents come back as `child:<event>`, with `childId` and `depth`.
 */
export type AgentHooks = AgentEventMap & SpawnHooks & ChildHooks & ChildSpawnHooks

/** The name of any event on `agent.hooks`. */
export type AgentHookName = keyof AgentHooks

/** The context type of one event. */
export type HookContext<K extends AgentHookName> = Parameters<AgentHooks[K]>[0]

/** A handler whose object context also carries `ctx.decide`. */
export type WithDecide<H> = H extends (ctx: infer C) => infer R
  ? C extends object ? (ctx: C & DecideHookContext) => R : H
  : H

/**
 * Handler signatures as consumers see them: those of `AgentHooks`, except that
 * every object context but the `decision:*` ones also carries `ctx.decide`
 * (the agent attaches it right before handlers run).
 */
export type AgentHookHandlers = { [K in keyof AgentHooks]: K extends `decision:${string}` ? AgentHooks[K] : WithDecide<AgentHooks[K]> }

/** Hooks given as options: one handler or a list per event. */
export type AgentHookMap = { [K in AgentHookName]?: AgentHookHandlers[K] | AgentHookHandlers[K][] }

/**
 * Per-run hook registrations (`AgentRunOptions.hooks`): keyed by event name,
 * each handler typed by its event, like `AgentHookMap`. Names are also checked
 * at run time, for callers that build the map dynamically.
 */
export type RunHookMap = AgentHookMap
