import type { HookHandler, RunHookContext } from '../core/hook-context'
import type { ChildRunStats } from '../core/stats'

/**
 * What every `spawn:*` hook gets: the child being spawned and the call that
 * spawned it. The built-in `spawn` tool fills every field it knows, but a
 * payload a host fires by hand, or a spawn-style tool run from a context with
 * no call id, may leave out the call id, the depth and the trace carrier.
 */
export interface SpawnHookContext extends Omit<RunHookContext, 'depth'> {
  /** The child's depth (1 for a direct child); absent on a payload fired without one. */
  depth?: number
  /** Spawn id of the child (`child-N`). */
  id: string
  task: string
  /** Tool-call id of the `spawn` call (the child's tool events carry it as `parentCallId`); absent when the spawn had none. */
  callId?: string
  model?: string
  provider?: string
  /** Label of the earlier child this spawn continues, when resuming. */
  resumesChildId?: string
  /** Trace-context carrier, an empty object from the `spawn` tool: a tracer may add keys on `spawn:before`; the child gets them on `agent:start`. */
  tracingContext?: Record<string, string>
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

/** The events of the `spawn` tool: a subagent starts, finishes or fails. */
export interface SpawnHooks {
  'spawn:before': HookHandler<SpawnHookContext>
  'spawn:complete': HookHandler<SpawnCompleteContext>
  'spawn:error': HookHandler<SpawnErrorContext>
}

/** The spawn events by name; `satisfies` keeps it in step with `SpawnHooks`. */
export const SPAWN_HOOK_NAMES = {
  'spawn:before': true,
  'spawn:complete': true,
  'spawn:error': true,
} as const satisfies Record<keyof SpawnHooks, true>
