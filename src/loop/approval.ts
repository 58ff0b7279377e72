import type { ApprovalDecision } from '../core/run-state'
import type { ToolApprovalContext } from '../hooks/hook-map'
import type { ApprovalDecisionOptions, ToolHookContext } from '../tools/hooks'
import type { NeedsApproval, ToolDef } from '../tools/types'
import type { ApprovalVerdict } from './approval-desk'
import type { Answer } from './call-answer'
import type { PreparedCall } from './call-resolve'
import type { RunContext } from './run-context'
import { mergeObjects } from '../core/merge-objects'
import { hasAnsweringHandlers } from '../hooks/bus'
import { abortedMessage, blocked, errorMessage, failure, HOST_REFUSED, LOOP_REFUSED } from './call-answer'

/**
 * Tool approval, the pipeline's step between the input check and the tool
 * (docs/approval.md): whether a call needs the host's approval, asking for it
 * on `tool:approval` (which `agent.stream()` listens to), and waiting for the
 * decision, with no time limit, until the run is aborted. A call nobody is
 * listening for, or one a listener suspends, is left pending: the loop
 * records it in the run state and suspends the run (a nested call, or a
 * subagent's, is refused instead: neither can be suspended).
 */

/** A decision as recorded in the run state. */
export function verdictOf(decision: ApprovalDecision): ApprovalVerdict {
  return decision.approved ? { kind: 'approved', reason: decision.reason } : { kind: 'denied', reason: decision.reason }
}

/** The rule that applies to this call: the host's entry for the tool, else the tool's own; `undefined` when neither says anything. */
export function approvalRule(run: RunContext, call: PreparedCall, def: ToolDef): NeedsApproval | undefined {
  return run.needsApproval && Object.hasOwn(run.needsApproval, call.base.name) ? run.needsApproval[call.base.name] : def.needsApproval
}

/**
 * Whether this call needs approval: the host's `needsApproval` entry for the
 * tool wins over the tool's own. `Answer` when the check itself failed (the
 * call is refused).
 */
export async function needsApproval(run: RunContext, call: PreparedCall, def: ToolDef, input: unknown): Promise<boolean | Answer> {
  const rule = approvalRule(run, call, def)
  if (rule === undefined || typeof rule === 'boolean')
    return rule === true
  const { callId, runId, name, parentToolCallId } = call.base
  try {
    return (await rule(input, parentToolCallId === undefined ? { callId, runId, name } : { callId, runId, name, parentToolCallId })) === true
  }
  catch (error) {
    return failure(`Blocked: the needsApproval check of ${call.base.displayName} failed (${errorMessage(error)})`, LOOP_REFUSED)
  }
}

/**
 * Ask for a decision on `tool:approval` and wait for it. With no handler
 * the answer is `suspended` at once; a handler that throws denies the call.
 */
export async function askApproval(run: RunContext, base: ToolHookContext, signal: AbortSignal): Promise<ApprovalVerdict> {
  if (signal.aborted)
    return { kind: 'aborted' }
  if (!hasAnsweringHandlers(run.hooks, 'tool:approval'))
    return { kind: 'suspended' }
  // The decision is I/O from outside the run: a journaling host records it, and a replay gets it back without asking.
  return run.effects.step('approval:decision', () => waitForDecision(run, base, signal))
}

async function waitForDecision(run: RunContext, base: ToolHookContext, signal: AbortSignal): Promise<ApprovalVerdict> {
  const request = run.approvals.request(base, await run.clock.now())
  const settle = request.settle
  const onAbort = () => settle({ kind: 'aborted' })
  signal.addEventListener('abort', onAbort, { once: true })
  const decide = (kind: 'approved' | 'denied') => (options: ApprovalDecisionOptions = {}) =>
    settle(options.reason === undefined ? { kind } : { kind, reason: String(options.reason) })
  const ctx: ToolApprovalContext = mergeObjects(base, { approve: decide('approved'), deny: decide('denied'), suspend: () => settle({ kind: 'suspended' }) })
  // Handlers run in order and are not timed: one may hold the decision for as
  // long as a person takes, or return and leave it to `agent.approve()`.
  const handlers = run.hooks.callHookWith(async (list, args) => {
    for (const handler of list)
      await handler(...args)
  }, 'tool:approval', [ctx]) as Promise<void> | void
  Promise.resolve(handlers).catch(error => settle({ kind: 'denied', reason: `a tool:approval hook failed (${errorMessage(error)})` }))
  try {
    return await request.verdict
  }
  finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** The output a pending call's placeholder result carries (see docs/approval.md). */
export const PENDING_APPROVAL_PLACEHOLDER
  = 'Not run yet: this call needs approval, and the run stopped to wait for it. If the conversation goes on without a decision, treat the call as not run.'

/** A call left pending: the answer the pipeline turns into a placeholder result (a model's call) or a refusal (a nested call, a subagent's). */
export function pendingAnswer(run: RunContext, call: PreparedCall): Answer {
  if (call.level > 0 || run.depth > 0) {
    const where = call.level > 0 ? 'it was made by another tool while that tool ran' : 'it was made in a subagent'
    return failure(`Blocked: ${call.base.displayName} needs approval, and no decision was given while the run waited; ${where}, so the run cannot be suspended for it. Do not retry it unless the user approves it.`, HOST_REFUSED)
  }
  return mergeObjects(failure(PENDING_APPROVAL_PLACEHOLDER, HOST_REFUSED), { pending: true })
}

/** What a call gets for a verdict other than an approval. */
export function verdictAnswer(run: RunContext, call: PreparedCall, verdict: Exclude<ApprovalVerdict, { kind: 'approved' }>): Answer {
  if (verdict.kind === 'aborted')
    return failure(abortedMessage(run, false))
  if (verdict.kind === 'suspended')
    return pendingAnswer(run, call)
  return blocked(`the call was denied${verdict.reason ? `: ${verdict.reason}` : '.'}`, HOST_REFUSED)
}
