import type { ToolResultBlock } from '../core/content'
import type { PendingApproval } from '../core/run-state'
import type { ToolGateContext, ToolHookContext } from '../hooks/hook-map'
import type { BatchCall, CallDecision } from '../policies/policy'
import type { ToolDef } from '../tools/types'
import type { ApprovalVerdict } from './approval-desk'
import type { Answer, AnsweredCall } from './call-answer'
import type { PreparedCall } from './call-resolve'
import type { RunContext } from './run-context'
import { mergeObjects } from '../core/merge-objects'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { invalidToolInput, MAX_TOOL_INPUT_DEPTH, TOO_DEEP_TOOL_INPUT } from '../providers/tool-json'
import { joinProblems } from '../text/problem-list'
import { checkJsonSchema } from '../tools/json-schema'
import { approvalRule, askApproval, needsApproval, PENDING_APPROVAL_PLACEHOLDER, verdictAnswer, verdictOf } from './approval'
import { abortedMessage, blocked, errorMessage, failure, HOST_REFUSED, HOST_SUBSTITUTED, POLICY_REFUSED, POLICY_SUBSTITUTED } from './call-answer'
import { executeTool } from './call-execute'
import { finishAnswer } from './call-finish'
import { gatedCall, unknownToolMessage } from './call-resolve'
import { nestedCaller } from './nested-calls'
import { gateBatch, gateCall, PhaseInterruptedError } from './policy-runner'
import { hookTimeout } from './stream-turn'
import { checkToolOutput } from './tool-output-check'

/**
 * The call-answering pipeline, one call at a time, for a call the model made
 * and a call a tool made (`ToolContext.callTool`) alike: the batch gate
 * (`gateCalls`, over a whole turn or a batch of one), then `answerCall`: the
 * per-call gate, the host's `tool:gate`, input validation, the tool
 * (`./call-execute.ts`), the transforms and the result phase
 * (`./call-finish.ts`). Every failure becomes an answer; nothing throws out of
 * `answerCall`. See docs/architecture/call-pipeline.md.
 */

/**
 * The batch gate: the policies see every call of the turn before any runs,
 * in sequence, so a budget counts the whole batch at once (a nested call is
 * a batch of one). Calls the loop already refuses (unknown tool, not allowed)
 * are shown to them as blocked.
 */
export async function gateCalls(run: RunContext, turnId: string, prepared: readonly PreparedCall[]): Promise<void> {
  if (run.policyPhases.gateBatch.length === 0)
    return
  const calls: BatchCall[] = prepared.map(({ base, def, refusal }) => {
    const call = gatedCall(base)
    const reason = !def ? unknownToolMessage(run, base.displayName) : refusal
    return reason === undefined ? call : mergeObjects(call, { decided: { type: 'block', reason } })
  })
  let decided: (CallDecision | undefined)[]
  try {
    decided = await gateBatch(run, turnId, calls)
  }
  catch (error) {
    // Cut by an abort or the wall: every call is then answered as aborted (`produceAnswer` checks the signal first).
    if (error instanceof PhaseInterruptedError)
      return
    throw error
  }
  decided.forEach((decision, index) => {
    if (decision && decision !== calls[index].decided)
      prepared[index].decided = decision
  })
}

/**
 * Answer one call that has been through the batch gate. A model's call
 * carries the nested calls made under it (`calls`), closed at this point.
 */
export async function answerCall(run: RunContext, call: PreparedCall): Promise<AnsweredCall> {
  const answer = call.approval ? await runGatedCall(run, call) : await produceAnswer(run, call)
  if (answer.pending)
    return pendingCall(run, call)
  const { output, isError, metadata } = await finishAnswer(run, call.base, answer, call.def?.mcp)
  const calls = call.level === 0 ? call.log.close() : undefined
  const result: ToolResultBlock = {
    type: 'tool_result',
    callId: call.base.callId,
    output,
    ...(isError ? { isError: true } : {}),
    durationMs: answer.durationMs,
    ...(metadata ? { metadata } : {}),
    ...(calls ? { calls } : {}),
  }
  return { result, answer: answer.answer, ...(answer.outcome ? { outcome: answer.outcome } : {}) }
}

/** A nested call takes the whole path: the batch gate as a batch of one, then the rest. */
async function answerNestedCall(run: RunContext, call: PreparedCall): Promise<AnsweredCall> {
  try {
    await gateCalls(run, call.base.turnId, [call])
  }
  catch (error) {
    // A model's turn fails the run here; a nested call is refused, so the calling tool can answer for it.
    call.decided = { type: 'block', reason: `a policy gate failed (${errorMessage(error)})` }
  }
  return answerCall(run, call)
}

/** Gate, validate and run one call; never throws. */
async function produceAnswer(run: RunContext, call: PreparedCall): Promise<Answer> {
  const { base, def } = call
  if (call.signal.aborted)
    return failure(abortedMessage(run, false))
  // An abort outranks every refusal, the loop's own included (a guard counting refused calls ends the run here).
  if (call.decided?.type === 'abort')
    return decidedAnswer(run, base, call.decided)
  if (!def)
    return failure(unknownToolMessage(run, base.displayName))
  if (call.refusal)
    return failure(call.refusal)
  // A refusal the batch gate made is answered here. Its substitute goes on
  // through the per-call gates and the host's gate, like one a per-call gate
  // made: the host has the last word on every answer that is not a refusal.
  if (call.decided && call.decided.type !== 'substitute')
    return decidedAnswer(run, base, call.decided)

  let decided: CallDecision | undefined = call.decided
  if (run.policyPhases.gateCall.length > 0) {
    try {
      decided = await gateCall(run, base.turnId, gatedCall(base), decided)
    }
    catch (error) {
      if (error instanceof PhaseInterruptedError)
        return failure(abortedMessage(run, false))
      return failure(`Blocked: a policy gate failed (${errorMessage(error)})`, POLICY_REFUSED)
    }
    if (decided?.type === 'abort')
      return decidedAnswer(run, base, decided)
  }
  // The host's gate fires after the policies' and sees their verdict; it has the last word.
  if (hasHookHandlers(run.hooks, 'tool:gate')) {
    const gate: ToolGateContext = { ...base }
    if (decided?.type === 'block') {
      gate.block = true
      gate.reason = decided.reason
    }
    else if (decided?.type === 'substitute') {
      gate.result = decided.result
    }
    try {
      await callHookBounded(run.hooks, 'tool:gate', gate, { timeoutMs: hookTimeout(run), failClosed: true })
    }
    catch (error) {
      return failure(`Blocked: a tool:gate hook failed (${errorMessage(error)})`, HOST_REFUSED)
    }
    if (gate.block)
      return blocked(gate.reason, decided?.type === 'block' ? POLICY_REFUSED : HOST_REFUSED)
    if (decided?.type === 'substitute' && gate.result === decided.result)
      return decidedAnswer(run, base, decided)
    if (gate.result !== undefined) {
      const checked = checkToolOutput(gate.result, base.displayName)
      return { output: checked.output, isError: checked.isError === true, durationMs: 0, answer: HOST_SUBSTITUTED }
    }
  }
  else if (decided) {
    return decidedAnswer(run, base, decided)
  }
  return runGatedCall(run, call)
}

/**
 * A call the gates let through: the input check, the approval step, the tool.
 * A suspended call continued with its decision starts here: the gates passed
 * it before it was suspended.
 */
async function runGatedCall(run: RunContext, call: PreparedCall): Promise<Answer> {
  const { base, def } = call
  if (!def)
    return failure(unknownToolMessage(run, base.displayName))
  if (call.signal.aborted)
    return failure(abortedMessage(run, false))
  if (call.refusal)
    return failure(call.refusal)
  const unparsed = invalidToolInput(base.input)
  if (unparsed)
    return failure(`Invalid arguments for ${base.displayName}: ${unparsed.error}. ${invalidInputHint(unparsed.error)}`)
  const checked = validateInput(def, base.input)
  if (!checked.ok)
    return failure(`Invalid arguments for ${base.displayName}: ${checked.error}`)

  // Most calls need no approval: they pass without a wait.
  const verdict = call.approval ? verdictOf(call.approval) : approvalRule(run, call, def) === undefined ? undefined : await approvalVerdict(run, call, def, checked.value)
  if (verdict !== undefined && 'output' in verdict)
    return verdict
  if (verdict !== undefined && verdict.kind !== 'approved')
    return withApproval(verdictAnswer(run, call, verdict), verdict)

  // The tool may call others while it runs (`ToolContext.callTool`); they end with it.
  const nested = nestedCaller(run, call, answerNestedCall)
  try {
    const answer = await executeTool(run, call, def, checked.value, nested.callTool)
    return verdict ? withApproval(answer, verdict) : answer
  }
  finally {
    nested.close()
  }
}

/** The host's decision, recorded on the result's metadata (`approval: { approved, reason? }`) for audits; the model never sees it. */
function withApproval(answer: Answer, verdict: ApprovalVerdict): Answer {
  if (verdict.kind !== 'approved' && verdict.kind !== 'denied')
    return answer
  const approval = { approved: verdict.kind === 'approved', ...(verdict.reason === undefined ? {} : { reason: verdict.reason }) }
  return mergeObjects(answer, { metadata: mergeObjects(answer.metadata, { approval }) })
}

/** The approval step: no verdict when the call needs none, an `Answer` when the check failed. */
async function approvalVerdict(run: RunContext, call: PreparedCall, def: ToolDef, input: unknown): Promise<ApprovalVerdict | Answer | undefined> {
  const needed = await needsApproval(run, call, def, input)
  if (needed === false)
    return undefined
  return needed === true ? askApproval(run, call.base, call.signal) : needed
}

/** A model's call left waiting for approval: recorded in the run state, answered by a placeholder until it is decided. */
async function pendingCall(run: RunContext, call: PreparedCall): Promise<AnsweredCall> {
  const { callId, turnId, name, input } = call.base
  const pending: PendingApproval = { callId, turnId, name, input, requestedAt: await run.clock.now() }
  if (call.envelope)
    pending.envelope = call.envelope
  ;(run.state.approvals ??= []).push(pending)
  const result: ToolResultBlock = { type: 'tool_result', callId, output: PENDING_APPROVAL_PLACEHOLDER, isError: true, durationMs: 0, metadata: { approval: 'pending' } }
  return { result, answer: HOST_REFUSED, pending: true }
}

/** The answer a policy's call decision gives: a refusal, a substitute result, or an aborted call. */
function decidedAnswer(run: RunContext, base: ToolHookContext, decided: CallDecision): Answer {
  if (decided.type === 'block')
    return blocked(decided.reason, POLICY_REFUSED)
  if (decided.type === 'abort') {
    run.abort(decided.reason)
    return failure(abortedMessage(run, false), POLICY_REFUSED)
  }
  const checked = checkToolOutput(decided.result, base.displayName)
  return { output: checked.output, isError: decided.isError === true || checked.isError === true, durationMs: 0, answer: POLICY_SUBSTITUTED }
}

function validateInput(def: ToolDef, input: Record<string, unknown>): { ok: true, value: unknown } | { ok: false, error: string } {
  if (def.validate) {
    try {
      return def.validate(input)
    }
    catch (error) {
      return { ok: false, error: errorMessage(error) }
    }
  }
  try {
    const problems = checkJsonSchema(def.spec.inputSchema ?? {}, input)
    return problems.length === 0 ? { ok: true, value: input } : { ok: false, error: joinProblems(problems) }
  }
  catch (error) {
    return { ok: false, error: `the input schema could not be checked (${errorMessage(error)})` }
  }
}

function invalidInputHint(error: string): string {
  return error === TOO_DEEP_TOOL_INPUT
    ? `The call was not run; send arguments with at most ${MAX_TOOL_INPUT_DEPTH} levels of nesting.`
    : 'Send the complete arguments as one JSON object.'
}
