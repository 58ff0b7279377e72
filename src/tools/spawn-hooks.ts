import type { HookHandler, RunHookContext } from '../core/hook-context'
import type { ChildRunStats } from '../core/stats'

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
