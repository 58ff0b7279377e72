import type { McpToolHookContext, ToolAfterContext, ToolHookContext, TurnAfterContext } from '../hooks/hook-map'
import type { ToolCall } from '../providers/types'
import type { RunContext } from './run-context'

/*
 * The hook contexts built on every turn and for every tool call, written out as single object
 * literals. They equal `{ ...runIds(run), turnId, … }` and `{ ...base, … }`
 * key for key and in the same order, but cost a few nanoseconds instead of
 * the half microsecond per property that V8 11 (Node 20) charges for
 * properties written after a spread (see `extendContext`).
 */

export function turnAfterContext(
  run: RunContext,
  turnId: string,
  after: Pick<TurnAfterContext, 'turn' | 'assistant' | 'toolResults' | 'usage' | 'finishReason'>,
): TurnAfterContext {
  return {
    runId: run.runId,
    depth: run.depth,
    parentRunId: run.parentRunId,
    parentCallId: run.parentCallId,
    turnId,
    turn: after.turn,
    assistant: after.assistant,
    toolResults: after.toolResults,
    usage: after.usage,
    finishReason: after.finishReason,
  }
}

/*
 * Tool hook contexts carry `depth` only inside a subagent: the contract omits
 * it at the top level. Likewise `parentToolCallId` and `scriptLine` only on a
 * nested call (`ToolContext.callTool`). They are written last, onto the
 * literal, so the common shape never has the keys.
 */

export function toolHookContext(
  run: RunContext,
  turnId: string,
  call: ToolCall,
  name: string,
  displayName: string,
  nested?: { readonly parentToolCallId: string, readonly line?: number },
): ToolHookContext {
  const ctx: ToolHookContext = {
    runId: run.runId,
    parentRunId: run.parentRunId,
    parentCallId: run.parentCallId,
    turnId,
    callId: call.id,
    name,
    displayName,
    input: call.input,
  }
  if (run.depth > 0)
    ctx.depth = run.depth
  if (nested) {
    ctx.parentToolCallId = nested.parentToolCallId
    if (nested.line !== undefined)
      ctx.scriptLine = nested.line
  }
  return ctx
}

/** Copy the nested-call keys of a tool hook context onto another context built from it. */
function copyNested(from: ToolHookContext, to: { parentToolCallId?: string, scriptLine?: number }): void {
  if (from.parentToolCallId === undefined)
    return
  to.parentToolCallId = from.parentToolCallId
  if (from.scriptLine !== undefined)
    to.scriptLine = from.scriptLine
}

export function toolAfterContext(
  base: ToolHookContext,
  after: Pick<ToolAfterContext, 'result' | 'isError' | 'outcome' | 'outputBytes' | 'durationMs' | 'metadata'>,
): ToolAfterContext {
  const ctx: ToolAfterContext = {
    runId: base.runId,
    parentRunId: base.parentRunId,
    parentCallId: base.parentCallId,
    turnId: base.turnId,
    callId: base.callId,
    name: base.name,
    displayName: base.displayName,
    input: base.input,
    result: after.result,
    isError: after.isError,
    outcome: after.outcome,
    outputBytes: after.outputBytes,
    durationMs: after.durationMs,
  }
  if (after.metadata !== undefined)
    ctx.metadata = after.metadata
  if (base.depth !== undefined)
    ctx.depth = base.depth
  copyNested(base, ctx)
  return ctx
}

/** The `mcp:tool:*` view of a tool call: the same ids, plus the server and the server's own tool name. */
export function mcpToolHookContext(base: ToolHookContext, origin: { server: string, tool: string }): McpToolHookContext {
  const ctx: McpToolHookContext = {
    runId: base.runId,
    parentRunId: base.parentRunId,
    parentCallId: base.parentCallId,
    turnId: base.turnId,
    callId: base.callId,
    server: origin.server,
    tool: origin.tool,
    name: base.name,
    displayName: base.displayName,
    input: base.input,
  }
  if (base.depth !== undefined)
    ctx.depth = base.depth
  copyNested(base, ctx)
  return ctx
}
