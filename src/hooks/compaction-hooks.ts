/**
 * The events of auto-compaction (`autoCompact`, and the recovery from a
 * `context_exceeded` error): fired by the compaction policy around the
 * summary call, so hosts can show "compacting…" and record what it cost.
 */

import type { HookHandler, RunHookContext } from '../core/hook-context'
import type { TurnUsage } from '../core/stats'
import type { CompactRefusalReason } from '../errors'

/** What set a compaction off: a turn's input crossing the threshold, or the provider refusing a request as too long. */
export type CompactTrigger = 'threshold' | 'context-exceeded'

/** `compact:start`: the older turns are about to be summarized. */
export interface CompactStartContext extends RunHookContext {
  trigger: CompactTrigger
  /** Prompt tokens of the turn that crossed the threshold (input plus cache reads and writes); absent for a recovery. */
  inputTokens?: number
  /** The window measured against, when known. */
  contextWindow?: number
  /** Ids of the turns the summary will replace on the wire. */
  replacesTurnIds: readonly string[]
}

/** `compact:end`: the summary is in the session (or the compaction failed or was refused, and nothing changed). */
export interface CompactEndContext extends RunHookContext {
  trigger: CompactTrigger
  /** The summary the model wrote; absent when the compaction failed or was refused. */
  summary?: string
  replacesTurnIds: readonly string[]
  /** Usage of the summary call, whenever it answered (a refused summary was paid for too); absent when the call failed. */
  usage?: TurnUsage
  /** Files whose current text was put back after the summary. */
  restoredFiles: readonly string[]
  /** Skills whose instructions were put back after the summary (activated in the turns it replaces); absent when none. */
  restoredSkills?: readonly string[]
  /**
   * Set when the model answered but its summary was not kept (cut off at the
   * output ceiling, too large, or empty): no marker was written and the
   * turns stay on the wire. `error` is then a `CompactionRefusedError`.
   */
  refused?: CompactRefusalReason
  /** Why the compaction failed or was refused, when it was (the run goes on without it). */
  error?: Error
}

/** The compaction events. */
export interface CompactionHooks {
  'compact:start': HookHandler<CompactStartContext>
  'compact:end': HookHandler<CompactEndContext>
}
