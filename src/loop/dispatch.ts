import type { ToolResultBlock, ToolResultMetadata } from '../core/content'
import type { McpToolAfterContext, McpToolTransformContext, ToolGateContext, ToolHookContext, ToolTransformContext } from '../hooks/hook-map'
import type { BatchCall, CallAnswer, CallDecision, GatedCall } from '../policies/policy'
import type { ToolCall } from '../providers/types'
import type { ToolStateView } from '../tool-state/types'
import type { ToolContext, ToolDef, ToolEnvelopeTarget, ToolOutcome, ToolOutput } from '../tools/types'
import type { RunContext } from './run-context'
import { debugLog } from '../debug'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'
import { invalidToolInput, MAX_TOOL_INPUT_DEPTH, TOO_DEEP_TOOL_INPUT } from '../providers/tool-json'
import { toolOutputByteLength } from '../session/tool-output'
import { joinProblems } from '../text/problem-list'
import { checkJsonSchema } from '../tools/json-schema'
import { mcpToolHookContext, toolAfterContext, toolHookContext } from './hook-contexts'
import { gateBatch, gateCall, observeResult, PhaseInterruptedError } from './policy-runner'
import { runToolCallsInOrder } from './scheduler'
import { hookTimeout } from './stream-turn'
import { checkToolOutput } from './tool-output-check'
import { wallThatEnded } from './wall-deadline'

/**
 * Answer every tool call of one assistant turn, in call order. Each call gets
 * exactly one result, whatever happens: unknown tools, invalid arguments,
 * refusals, tools that throw and aborted runs all become error results the
 * model can read. Tool hooks see canonical names; the model's own name for a
 * tool is `displayName`.
 */
export async function dispatchToolCalls(run: RunContext, turnId: string, calls: readonly ToolCall[]): Promise<ToolResultBlock[]> {
  const prepared = calls.map(call => prepareCall(run, turnId, call))
  if (run.policyPhases.gateBatch.length > 0)
    await gateWholeBatch(run, turnId, prepared)
  const maxConcurrent = run.behavior.maxConcurrentTools ?? BEHAVIOR_DEFAULTS.maxConcurrentTools
  return runToolCallsInOrder(
    prepared.length,
    index => prepared[index].safe,
    index => answerCall(run, prepared[index]),
    maxConcurrent,
  )
}

interface PreparedCall {
  base: ToolHookContext
  def?: ToolDef
  safe: boolean
  /** Set when the call is answered with this error before any hook runs. */
  refusal?: string
  /** What the policies' batch gate decided for this call. */
  decided?: CallDecision
}

/**
 * The batch gate: the policies see every call of the turn before any runs,
 * in sequence, so a budget counts the whole batch at once. Calls the loop
 * already refuses (unknown tool, not allowed) are shown to them as blocked.
 */
async function gateWholeBatch(run: RunContext, turnId: string, prepared: PreparedCall[]): Promise<void> {
  const calls: BatchCall[] = prepared.map(({ base, def, refusal }) => {
    const call = gatedCall(base)
    const reason = !def ? unknownToolMessage(run, base.displayName) : refusal
    return reason === undefined ? call : { ...call, decided: { type: 'block', reason } }
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
 * Resolve the tool a call names. An envelope (`call_tool`) is opened here,
 * so everything after sees the inner tool under its own name and input; the
 * result still answers the envelope's call id.
 */
function prepareCall(run: RunContext, turnId: string, call: ToolCall): PreparedCall {
  const outer = resolveCall(run, turnId, call)
  if (!outer.def?.unwrap)
    return outer
  const target = openEnvelope(outer.def, call.input)
  if ('error' in target)
    return { ...outer, safe: true, refusal: `Invalid arguments for ${outer.base.displayName}: ${target.error}` }
  const inner = resolveCall(run, turnId, { id: call.id, name: target.name, input: target.input })
  if (inner.def?.unwrap)
    inner.refusal = `Error: ${inner.base.displayName} cannot be called through ${call.name}.`
  return inner
}

function resolveCall(run: RunContext, turnId: string, call: ToolCall): PreparedCall {
  const name = run.tools.toCanonical(call.name)
  const def = run.tools.get(name)
  const base = toolHookContext(run, turnId, call, name, run.tools.toWire(name))
  const refusal = def ? run.tools.refusal(name) : undefined
  return { base, def, safe: def && !refusal ? isConcurrencySafe(def, call.input) : true, refusal }
}

function openEnvelope(def: ToolDef, input: Record<string, unknown>): ToolEnvelopeTarget {
  const unparsed = invalidToolInput(input)
  if (unparsed)
    return { error: unparsed.error }
  try {
    return def.unwrap!(input)
  }
  catch (error) {
    return { error: errorMessage(error) }
  }
}

function isConcurrencySafe(def: ToolDef, input: Record<string, unknown>): boolean {
  const flag = def.isConcurrencySafe
  if (typeof flag !== 'function')
    return flag === true
  try {
    return flag(input) === true
  }
  catch {
    return false
  }
}

type McpOrigin = NonNullable<ToolDef['mcp']>

interface Answer {
  output: ToolOutput
  isError: boolean
  outcome?: ToolOutcome
  durationMs: number
  /** Whether the tool ran, and who answered in its place when it did not (for the result phase). */
  answer: CallAnswer
}

const RAN: CallAnswer = Object.freeze({ kind: 'ran' })
const LOOP_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'loop' })
const HOST_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'host' })
const HOST_SUBSTITUTED: CallAnswer = Object.freeze({ kind: 'substituted', by: 'host' })
const POLICY_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'policy' })
const POLICY_SUBSTITUTED: CallAnswer = Object.freeze({ kind: 'substituted', by: 'policy' })

async function answerCall(run: RunContext, call: PreparedCall): Promise<ToolResultBlock> {
  const answer = await produceAnswer(run, call)
  const { output, isError, metadata } = await finishAnswer(run, call.base, answer, call.def?.mcp)
  return {
    type: 'tool_result',
    callId: call.base.callId,
    output,
    ...(isError ? { isError: true } : {}),
    durationMs: answer.durationMs,
    ...(metadata ? { metadata } : {}),
  }
}

/** Gate, validate and run one call; never throws. */
async function produceAnswer(run: RunContext, call: PreparedCall): Promise<Answer> {
  const { base, def } = call
  if (run.signal.aborted)
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

  const unparsed = invalidToolInput(base.input)
  if (unparsed)
    return failure(`Invalid arguments for ${base.displayName}: ${unparsed.error}. ${invalidInputHint(unparsed.error)}`)
  const checked = validateInput(def, base.input)
  if (!checked.ok)
    return failure(`Invalid arguments for ${base.displayName}: ${checked.error}`)

  return execute(run, base, def, checked.value)
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

function gatedCall(base: ToolHookContext): GatedCall {
  return { callId: base.callId, name: base.name, displayName: base.displayName, input: base.input }
}

async function execute(run: RunContext, base: ToolHookContext, def: ToolDef, input: unknown): Promise<Answer> {
  const startedAt = run.effects.now()
  let outcome: ToolOutcome | undefined
  let view: ToolStateView | undefined
  const ctx: ToolContext = {
    callId: base.callId,
    turnId: base.turnId,
    runId: run.runId,
    name: base.name,
    displayName: base.displayName,
    signal: run.signal,
    depth: run.depth,
    parentRunId: run.parentRunId,
    parentCallId: run.parentCallId,
    behavior: run.behavior,
    session: run.session,
    execution: run.execution,
    onBackgroundStall: run.onBackgroundStall,
    subagents: run.subagents,
    // Created on first use: most tools never touch state.
    get state() {
      view ??= run.toolState.begin(base.callId)
      return view
    },
    reportOutcome: (value) => {
      outcome = value
    },
    effects: run.effects,
  }
  let started = false
  try {
    run.firstSignalAtMs ??= run.effects.now()
    if (run.signal.aborted)
      return failure(abortedMessage(run, false))
    if (hasHookHandlers(run.hooks, 'tool:before'))
      await callHookBounded(run.hooks, 'tool:before', base, { timeoutMs: hookTimeout(run), failClosed: true })
    // Checked again right before the call, and the tool started synchronously
    // after the check: an aborted run never starts a tool (a gate, a hook or a
    // sibling call may have aborted it while this call was being prepared).
    if (run.signal.aborted)
      return failure(abortedMessage(run, false))
    started = true
    const work = run.effects.tool({ runId: run.runId, turnId: base.turnId, callId: base.callId, name: base.name, input }, async () => def.execute(input, ctx))
    const output = await raceAbort(work, run.signal)
    if (view)
      await settleToolState(run, base, view, true)
    const checked = checkToolOutput(output, base.displayName)
    return { output: checked.output, isError: checked.isError === true, outcome, durationMs: run.effects.now() - startedAt, answer: RAN }
  }
  catch (error) {
    if (view)
      await settleToolState(run, base, view, false)
    const durationMs = run.effects.now() - startedAt
    if (run.signal.aborted)
      return { output: abortedMessage(run, started), isError: true, outcome, durationMs, answer: started ? RAN : LOOP_REFUSED }
    await callHookBounded(run.hooks, 'tool:error', extendContext(base, { error }), { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(hookError => debugLog('tool:error hook failed', hookError))
    return { output: `Error: ${errorMessage(error)}`, isError: true, outcome, durationMs, answer: started ? RAN : LOOP_REFUSED }
  }
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

/**
 * Let `tool:transform` rewrite the result, then `mcp:tool:transform` for MCP
 * tools, then the policies' result phase; then report the final result on
 * `tool:after` and `mcp:tool:after`.
 */
async function finishAnswer(run: RunContext, base: ToolHookContext, answer: Answer, mcp: McpOrigin | undefined): Promise<{ output: ToolOutput, isError: boolean, metadata?: ToolResultMetadata }> {
  let { output, isError } = answer
  // One object both transform hooks write into; kept only when they wrote something.
  let metadata: ToolResultMetadata = {}
  if (hasHookHandlers(run.hooks, 'tool:transform')) {
    const transformed = await transformOutput(run, 'tool:transform', extendContext(base, { result: output, isError, outputBytes: toolOutputByteLength(output), metadata }))
    if (!transformed.ok)
      return { output: transformed.message, isError: true }
    output = transformed.output
    isError ||= transformed.isError
    metadata = transformed.metadata
  }
  if (mcp && hasHookHandlers(run.hooks, 'mcp:tool:transform')) {
    const transformed = await transformOutput(run, 'mcp:tool:transform', { ...mcpToolHookContext(base, mcp), result: output, isError, outputBytes: toolOutputByteLength(output), metadata })
    if (!transformed.ok)
      return { output: transformed.message, isError: true }
    output = transformed.output
    isError ||= transformed.isError
    metadata = transformed.metadata
  }
  const attached = Object.keys(metadata).length > 0 ? metadata : undefined
  if (run.policyPhases.result.length > 0) {
    try {
      ({ output, isError } = await observeResult(run, base.turnId, gatedCall(base), { output, isError, outcome: answer.outcome, answer: answer.answer }, result => checkToolOutput(result, base.displayName)))
    }
    catch (error) {
      // Cut by an abort or the wall: a call that ran keeps its real result as
      // the transforms left it (nothing it did is lost; the phases' changes
      // are not made); one that never ran says so, as it would have.
      if (error instanceof PhaseInterruptedError) {
        return answer.answer.kind === 'ran'
          ? { output, isError, metadata: attached }
          : { output: abortedMessage(run, false), isError: true, metadata: attached }
      }
      return { output: `Error: a policy's result phase failed (${errorMessage(error)})`, isError: true, metadata: attached }
    }
  }
  const reportAfter = hasHookHandlers(run.hooks, 'tool:after')
  const reportMcpAfter = mcp !== undefined && hasHookHandlers(run.hooks, 'mcp:tool:after')
  if (!reportAfter && !reportMcpAfter)
    return { output, isError, metadata: attached }
  const outputBytes = toolOutputByteLength(output)
  if (reportAfter) {
    const after = toolAfterContext(base, { result: output, isError, outcome: answer.outcome, outputBytes, durationMs: answer.durationMs, metadata: attached })
    await callHookBounded(run.hooks, 'tool:after', after, { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(error => debugLog('tool:after hook failed', error))
  }
  if (reportMcpAfter) {
    const after: McpToolAfterContext = { ...mcpToolHookContext(base, mcp!), result: output, isError, outputBytes, durationMs: answer.durationMs, ...(attached ? { metadata: attached } : {}) }
    await callHookBounded(run.hooks, 'mcp:tool:after', after, { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(error => debugLog('mcp:tool:after hook failed', error))
  }
  return { output, isError, metadata: attached }
}

/** Run one transforming hook and take the result it leaves; a failing hook fails closed with a message for the model. */
async function transformOutput(
  run: RunContext,
  name: 'tool:transform' | 'mcp:tool:transform',
  ctx: ToolTransformContext | McpToolTransformContext,
): Promise<{ ok: true, output: ToolOutput, isError: boolean, metadata: ToolResultMetadata } | { ok: false, message: string }> {
  try {
    await callHookBounded(run.hooks, name, ctx as never, { timeoutMs: hookTimeout(run), failClosed: true })
    const checked = checkToolOutput(ctx.result, ctx.displayName)
    // A hook may have replaced the object; anything but a plain object is dropped rather than recorded.
    const metadata = typeof ctx.metadata === 'object' && ctx.metadata !== null && !Array.isArray(ctx.metadata) ? ctx.metadata : {}
    return { ok: true, output: checked.output, isError: checked.isError === true, metadata }
  }
  catch (error) {
    return { ok: false, message: `Error: a ${name} hook failed (${errorMessage(error)})` }
  }
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

function unknownToolMessage(run: RunContext, called: string): string {
  const available = run.tools.specs.map(spec => spec.name)
  return available.length > 0
    ? `Error: there is no tool named "${called}". Available tools: ${available.join(', ')}.`
    : `Error: there is no tool named "${called}"; this run has no tools.`
}

/** A refused call's answer; a gate that gave no reason still says who refused it. */
function blocked(reason: string | undefined, by: CallAnswer): Answer {
  return failure(`Blocked: ${reason || 'the call was refused by policy'}`, by)
}

/** An error answer to a call that did not run (the loop's own refusal unless `by` says otherwise). */
function failure(message: string, by: CallAnswer = LOOP_REFUSED): Answer {
  return { output: message, isError: true, durationMs: 0, answer: by }
}

/** What an aborted call answers: a budget stop names its knob, so the model (and a reader) can tell it from a cancel. */
function abortedMessage(run: RunContext, started: boolean): string {
  const stage = started ? 'while this tool was running' : 'before this tool call started'
  const wall = wallThatEnded(run)
  return wall ? `Aborted: the run's time budget (${wall.knob}) ran out ${stage}.` : `Aborted: the run was cancelled ${stage}.`
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The tool may still settle later (it aborted the run itself); its failure must not go unhandled.
    work.catch(error => debugLog('tool failed after the run was aborted', error))
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then((value) => {
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, (error) => {
      signal.removeEventListener('abort', onAbort)
      reject(error)
    })
  })
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
