import type { TaskStallInfo } from '../contexts/types'
import type { ToolResultMetadata } from '../core/content'
import type { HookHandler, StreamHookContext, TransformHookHandler } from '../core/hook-context'
import type { ToolOutcome, ToolOutput, ToolProgress, ToolResult } from '../core/tool-io'
import type { ToolStateOp } from '../tool-state/types'

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
  /**
   * Set on a nested call, one a tool made through `ToolContext.callTool`: the
   * id of the calling tool's call. Such a call is no turn of the session and
   * the model never reads its result; a host that mirrors the model's tool
   * calls skips it.
   */
  parentToolCallId?: string
  /** On a nested call: the caller's script line that made it (`NestedToolCallOptions.line`), when the caller tracks lines. */
  scriptLine?: number
  /** Set when the called tool runs a subagent (`DurableToolDef.runsNestedAgent`, e.g. `spawn`). */
  runsNestedAgent?: true
}

/** `tool:gate`: decide whether a call runs, is refused, or is answered without running. */
export interface ToolGateContext extends ToolHookContext {
  /** Set to refuse the call; the model sees `Blocked: <reason>`. */
  block?: boolean
  reason?: string
  /** Set to answer the call with this result without running the tool. */
  result?: ToolOutput
}

/** How a host answers an approval request; `reason` is shown to the model on a denial. */
export interface ApprovalDecisionOptions {
  reason?: string
}

/**
 * `tool:approval`: a call needs the host's approval before it runs. Decide
 * with `approve()` or `deny()`, now or later (after the handler returned,
 * from a prompt or a web request: the run waits, abortable, with no time
 * limit); or `suspend()` to stop the run and decide in another process
 * (`agent.approve(callId)` on the saved run, then `agent.run()`). The first
 * decision counts; later ones are ignored.
 */
export interface ToolApprovalContext extends ToolHookContext {
  /** Let the call run. */
  approve: (options?: ApprovalDecisionOptions) => void
  /** Refuse the call; the model reads `Blocked: the call was denied: <reason>`. */
  deny: (options?: ApprovalDecisionOptions) => void
  /** Leave the call pending and suspend the run (a nested call or a subagent's is refused instead). */
  suspend: () => void
}

/** `tool:transform`: change the result the model will read. */
export interface ToolTransformContext extends ToolHookContext {
  /** Assign to change what the model receives. */
  result: ToolOutput
  isError: boolean
  outputBytes: number
  /**
   * Data about the result the model never sees (what a transform cut or
   * redacted, say): add keys, or assign a new object. Kept on the recorded
   * `tool_result` block (`metadata`) and shown to `tool:after`. Keep it JSON:
   * session stores write it as JSON. Metadata no store could write or load
   * back (cyclic, a BigInt, nested past 997 levels) is replaced by one
   * `__droppedMetadata` note saying why, and the run goes on.
   */
  metadata: ToolResultMetadata
}

/** `tool:after`: the final result of one call. */
export interface ToolAfterContext extends ToolHookContext {
  result: ToolOutput
  isError: boolean
  outcome?: ToolOutcome
  outputBytes: number
  durationMs: number
  /** What the transform hooks attached to the result (absent when they attached nothing). */
  metadata?: ToolResultMetadata
}

/** `tool:error`: the tool threw (the model gets an error result). */
export interface ToolErrorContext extends ToolHookContext {
  error: unknown
}

/** `tool:progress`: a running tool reported progress (`ToolContext.progress`). */
export interface ToolProgressContext extends ToolHookContext, ToolProgress {
  /** 1 for the call's first delivered report, then 2, 3, … */
  sequence: number
  /** Reports merged into this one because they came while the previous one was being delivered. */
  skipped: number
}

/** `tool-results:after`: every result of a turn, recorded in call order. */
export interface ToolResultsAfterContext extends StreamHookContext {
  results: ToolResult[]
}

/** `tool-state:commit-failed`: a call succeeded but its state writes were lost. */
export interface ToolStateCommitFailedContext extends ToolHookContext {
  error: unknown
  /** The writes that were dropped, in the order the tool made them. */
  ops: readonly ToolStateOp[]
}

/** A background task went silent (`backgroundStallWatchdogMs`); it may be waiting on a prompt. */
export type BackgroundStallContext = TaskStallInfo

/** The events of one tool call, from the gate to its recorded result. */
export interface ToolHooks {
  'tool:gate': TransformHookHandler<ToolGateContext>
  'tool:approval': TransformHookHandler<ToolApprovalContext>
  'tool:before': HookHandler<ToolHookContext>
  'tool:transform': TransformHookHandler<ToolTransformContext>
  'tool:after': HookHandler<ToolAfterContext>
  'tool:progress': HookHandler<ToolProgressContext>
  'tool:error': HookHandler<ToolErrorContext>
  'tool-results:after': HookHandler<ToolResultsAfterContext>
  'tool-state:commit-failed': HookHandler<ToolStateCommitFailedContext>
  'background:stall': HookHandler<BackgroundStallContext>
}

/** The tool events by name; `satisfies` keeps it in step with `ToolHooks`. */
export const TOOL_HOOK_NAMES = {
  'tool:gate': true,
  'tool:approval': true,
  'tool:before': true,
  'tool:transform': true,
  'tool:after': true,
  'tool:progress': true,
  'tool:error': true,
  'tool-results:after': true,
  'tool-state:commit-failed': true,
  'background:stall': true,
} as const satisfies Record<keyof ToolHooks, true>
