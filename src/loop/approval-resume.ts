import type { SessionTurn, ToolResultBlock } from '../core/content'
import type { PendingApproval } from '../core/run-state'
import type { StopReason } from '../core/stop-reason'
import type { RunContext } from './run-context'
import { askApproval } from './approval'
import { answerCall } from './call-pipeline'
import { prepareCall } from './call-resolve'
import { NestedCallLog } from './nested-call-log'
import { fitTurnResults } from './result-size'

/**
 * A run suspended for approval, continued (docs/approval.md): every pending
 * call needs a decision first. Calls decided while the run was stopped
 * (`agent.approve()` / `agent.deny()` on the saved run) carry it; the others
 * are asked again on `tool:approval`, and with no decision the run stays
 * suspended, touching nothing. Then the calls are answered in their order (an
 * approved one runs from the input check on: the gates passed it before it
 * was suspended), and the results turn that held their placeholders is
 * recorded again, whole, as a turn that supersedes it.
 */
export async function settleApprovals(run: RunContext): Promise<StopReason | undefined> {
  const approvals = run.state.approvals ?? []
  if (approvals.length === 0)
    return undefined
  for (const approval of approvals) {
    if (approval.decision)
      continue
    const verdict = await askApproval(run, hookContextOf(run, approval).base, run.signal)
    if (verdict.kind === 'aborted')
      return 'aborted'
    if (verdict.kind === 'suspended')
      return 'suspended'
    approval.decision = { approved: verdict.kind === 'approved', ...(verdict.reason === undefined ? {} : { reason: verdict.reason }), decidedAt: await run.clock.now() }
  }
  const results = new Map<string, ToolResultBlock>()
  for (const approval of approvals) {
    const call = hookContextOf(run, approval)
    call.approval = approval.decision
    results.set(approval.callId, (await answerCall(run, call)).result)
  }
  delete run.state.approvals
  await supersedeResultsTurn(run, results)
  return run.signal.aborted ? 'aborted' : undefined
}

/** The pending call resolved again in this run: the envelope reopened when the model used one. */
function hookContextOf(run: RunContext, approval: PendingApproval) {
  const made = approval.envelope ?? { name: approval.name, input: approval.input }
  return prepareCall(run, { turnId: approval.turnId }, { id: approval.callId, name: made.name, input: made.input }, new NestedCallLog())
}

/**
 * Record the results turn again with the answers in place of the
 * placeholders. The new turn names the one it replaces (`supersedes`), and a
 * run seeded from the session later shows the model only the new one; in
 * this run it takes the old one's place at once.
 */
async function supersedeResultsTurn(run: RunContext, results: ReadonlyMap<string, ToolResultBlock>): Promise<void> {
  const index = run.turns.findLastIndex(turn => turn.role === 'user' && turn.content.some(block => block.type === 'tool_result' && results.has(block.callId)))
  if (index === -1)
    return
  const old = run.turns[index]
  const turn: SessionTurn = {
    id: run.clock.randomUUID(),
    role: 'user',
    content: fitTurnResults(old.content.map(block => block.type === 'tool_result' ? results.get(block.callId) ?? block : block)),
    createdAt: await run.clock.now(),
    runId: run.runId,
    supersedes: old.id,
  }
  run.turns[index] = turn
  if (index < run.persistedCount && run.session)
    await run.session.appendTurns([turn], run.checkpoint?.record())
}
