import type { ToolCallRecord, ToolCallRequest } from '../core/effects'
import type { ReadStateEntry } from '../core/run-state'
import type { ToolHookContext } from '../hooks/hook-map'
import type { ToolStateOp, ToolStateView } from '../tool-state/types'
import type { DurableToolDef, ToolContext, ToolDef, ToolOutcome } from '../tools/types'
import type { Answer } from './call-answer'
import type { PreparedCall } from './call-resolve'
import type { RunContext } from './run-context'
import { withGetters } from '../core/fast-accessors'
import { untilAborted } from '../core/until-aborted'
import { debugLog } from '../debug'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { stagedToolState } from '../tool-state/view'
import { readEntriesAfter, readStateSeq, replayReadEntries } from '../tools/read-state'
import { abortedMessage, errorMessage, failure, LOOP_REFUSED, RAN } from './call-answer'
import { hookTimeout } from './stream-turn'
import { checkToolOutput } from './tool-output-check'
import { progressChannel } from './tool-progress'

/**
 * Run a call's tool, once every gate and the input check have passed:
 * `tool:before`, then the tool body (`runToolBody`), then its staged state is
 * kept or dropped. `callTool` is what the tool's context offers for nested
 * calls. A throw, a failing `tool:before` or an abort becomes an error answer.
 */
export async function executeTool(run: RunContext, call: PreparedCall, def: ToolDef, input: unknown, callTool: ToolContext['callTool']): Promise<Answer> {
  const { base, signal } = call
  const startedAt = run.effects.now()
  let outcome: ToolOutcome | undefined
  let view: ToolStateView | undefined
  const progress = progressChannel(run, base)
  const ctx = withGetters<ToolContext, 'state'>({
    callId: base.callId,
    turnId: base.turnId,
    runId: run.runId,
    name: base.name,
    displayName: base.displayName,
    signal,
    depth: run.depth,
    parentRunId: run.parentRunId,
    parentCallId: run.parentCallId,
    behavior: run.behavior,
    session: run.session,
    execution: run.execution,
    onBackgroundStall: run.onBackgroundStall,
    subagents: run.subagents,
    reportOutcome: (value) => {
      outcome = value
    },
    progress: progress.report,
    callTool,
    // A subagent's run goes through the effects scoped by this call (a journal names its steps under it).
    effects: nestsAgent(def) && run.effects.within ? run.effects.within(`call:${base.callId}`) : run.effects,
  }, { state: () => view ??= run.toolState.begin(base.callId) })
  if (base.parentToolCallId !== undefined)
    ctx.parentToolCallId = base.parentToolCallId
  let started = false
  try {
    run.firstSignalAtMs ??= run.effects.now()
    if (signal.aborted)
      return failure(abortedMessage(run, false))
    if (hasHookHandlers(run.hooks, 'tool:before'))
      await callHookBounded(run.hooks, 'tool:before', base, { timeoutMs: hookTimeout(run), failClosed: true })
    // Checked again right before the call, and the tool started synchronously
    // after the check: an aborted run never starts a tool (a gate, a hook or a
    // sibling call may have aborted it while this call was being prepared).
    if (signal.aborted)
      return failure(abortedMessage(run, false))
    started = true
    const session = run.session
    const readSeq = session ? readStateSeq(session) : 0
    const record: ToolCallRecord = {
      stagedOps: () => view ? stagedToolState(view).pending() : [],
      restoreOps: (ops) => {
        if (ops.length > 0)
          stagedToolState(ctx.state).restore(ops as ToolStateOp[])
      },
      outcome: () => outcome,
      restoreOutcome: (value) => {
        outcome = value as ToolOutcome | undefined
      },
      reads: () => session ? readEntriesAfter(session, readSeq) : [],
      restoreReads: (reads) => {
        if (session && reads.length > 0)
          replayReadEntries(session, reads as ReadStateEntry[])
      },
    }
    const output = await runToolBody(run, base, def, input, ctx, record)
    if (view)
      await settleToolState(run, base, view, true)
    const checked = checkToolOutput(output, base.displayName)
    return { output: checked.output, isError: checked.isError === true, outcome, durationMs: run.effects.now() - startedAt, answer: RAN }
  }
  catch (error) {
    if (view)
      await settleToolState(run, base, view, false)
    const durationMs = run.effects.now() - startedAt
    if (signal.aborted)
      return { output: abortedMessage(run, started), isError: true, outcome, durationMs, answer: started ? RAN : LOOP_REFUSED }
    await callHookBounded(run.hooks, 'tool:error', extendContext(base, { error }), { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(hookError => debugLog('tool:error hook failed', hookError))
    return { output: `Error: ${errorMessage(error)}`, isError: true, outcome, durationMs, answer: started ? RAN : LOOP_REFUSED }
  }
  finally {
    // The call has ended: what the tool reports from now on (a leftover timer, say) goes nowhere.
    progress.close()
  }
}

/**
 * The one point where a tool's own code runs, for a model's call and a
 * nested call alike, through the run's effects (`effects.tool`). It rejects as soon as the call's signal aborts, even if
 * the tool ignores it.
 */
function runToolBody(run: RunContext, base: ToolHookContext, def: ToolDef, input: unknown, ctx: ToolContext, record: ToolCallRecord): Promise<unknown> {
  const call: { -readonly [Key in keyof ToolCallRequest]: ToolCallRequest[Key] } = { runId: run.runId, turnId: base.turnId, callId: base.callId, name: base.name, input, record }
  // Optional fields only when set: effects that record a call keep it as JSON.
  if (base.parentToolCallId !== undefined)
    call.parentToolCallId = base.parentToolCallId
  if (nestsAgent(def))
    call.runsNestedAgent = true
  const work = run.effects.tool(call, async () => def.execute(input, ctx))
  return untilAborted(work, ctx.signal, error => debugLog('tool failed after the run was aborted', error))
}

/**
 * A call's state writes take effect only if the call succeeded: a tool that
 * threw or was aborted may have staged half of a change. A store that fails
 * to commit does not fail the call (its work is done); the loss is reported
 * on `tool-state:commit-failed`, or on stderr when nobody listens.
 */
async function settleToolState(run: RunContext, base: ToolHookContext, view: ToolStateView | undefined, succeeded: boolean): Promise<void> {
  if (!view)
    return
  if (!succeeded) {
    run.toolState.discard(base.callId)
    return
  }
  const result = await run.toolState.commit(base.callId)
  if (result.ok)
    return
  if (hasHookHandlers(run.hooks, 'tool-state:commit-failed')) {
    await callHookBounded(run.hooks, 'tool-state:commit-failed', extendContext(base, { error: result.error, ops: result.ops }), { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(hookError => debugLog('tool-state:commit-failed hook failed', hookError))
    return
  }
  console.error(`[zidane] tool state of ${base.name} (${base.callId}) was not saved: ${errorMessage(result.error)}`)
}

function nestsAgent(def: ToolDef): boolean {
  return (def as DurableToolDef).runsNestedAgent === true
}
