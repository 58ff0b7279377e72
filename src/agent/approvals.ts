import type { AgentClock } from '../core/clock'
import type { PendingApproval } from '../core/run-state'
import type { RunContext } from '../loop/run-context'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import type { ApprovalDecisionOptions } from '../tools/hooks'
import { mergeObjects } from '../core/merge-objects'
import { ToolApprovalError } from '../errors'
import { checkRunState } from '../loop/run-state'
import { holdRunLease } from './session-lease'

/**
 * `agent.approve()`, `agent.deny()` and `agent.pendingApprovals()` (see
 * docs/approval.md). A decision reaches the run that waits on the call in
 * this process; with no run in progress it is recorded on the session's
 * suspended run, under the session's lease, for the next `agent.run()` (in
 * this process or another) to act on.
 */
export interface AgentApprovals {
  /** Let the call run. Resolves once the decision is delivered or recorded; `ToolApprovalError` when no approval of that call is open. */
  approve: (callId: string, options?: ApprovalDecisionOptions) => Promise<void>
  /** Refuse the call: the model reads `Blocked: the call was denied: <reason>`. Same errors as `approve`. */
  deny: (callId: string, options?: ApprovalDecisionOptions) => Promise<void>
  /**
   * The calls waiting for a decision: those a run of this agent waits on now,
   * else those of the session's suspended run (undecided ones only).
   */
  pendingApprovals: () => PendingApproval[]
}

export interface ApprovalSources {
  session?: Session
  clock: AgentClock
  /** The agent's top-level run in progress, once its context is ready. */
  live: () => RunContext | undefined
  running: () => boolean
}

export function agentApprovals(sources: ApprovalSources): AgentApprovals {
  const decide = async (callId: string, approved: boolean, options: ApprovalDecisionOptions = {}): Promise<void> => {
    const reason = options.reason === undefined ? undefined : String(options.reason)
    const run = sources.live()
    const verdict = approved ? { kind: 'approved' as const, reason } : { kind: 'denied' as const, reason }
    if (run?.approvals.decide(callId, verdict))
      return
    if (sources.running()) {
      throw new ToolApprovalError(`No approval of call "${callId}" is open in the run in progress, and the saved run cannot be changed while a run is in progress.`, { callId, problem: 'running' })
    }
    const session = sources.session
    if (!session || !suspendedWith(session, callId))
      throw notPending(callId, session)
    const lease = await holdRunLease(session, { depth: 0, onLost: () => {} })
    try {
      // Taking the lease may have reloaded the session: look again.
      const record = suspendedWith(session, callId)
      if (!record)
        throw notPending(callId, session)
      const state = checkRunState(record.state, { runId: record.id, sessionId: session.id })
      const decidedAt = await sources.clock.now()
      const approvals = state.approvals!.map(approval => approval.callId === callId
        ? mergeObjects(approval, { decision: { approved, ...(reason === undefined ? {} : { reason }), decidedAt } })
        : approval)
      await session.saveRun(mergeObjects(record, { state: mergeObjects(state, { approvals }) }))
    }
    finally {
      await lease.end()
    }
  }
  return {
    approve: (callId, options) => decide(callId, true, options),
    deny: (callId, options) => decide(callId, false, options),
    pendingApprovals: () => {
      const open = sources.live()?.approvals.open()
      if (open && open.length > 0)
        return open
      const record = sources.session && lastTopLevelRun(sources.session)
      if (record?.stopReason !== 'suspended' || !record.state?.approvals)
        return []
      return record.state.approvals.filter(approval => !approval.decision).map(approval => ({ ...approval }))
    },
  }
}

function lastTopLevelRun(session: Session): SessionRun | undefined {
  return session.runs.findLast(run => run.parentRunId === undefined)
}

/** The session's last top-level run, when it is suspended with `callId` pending and undecided. */
function suspendedWith(session: Session, callId: string): SessionRun | undefined {
  const record = lastTopLevelRun(session)
  if (record?.stopReason !== 'suspended' || !Array.isArray(record.state?.approvals))
    return undefined
  return record.state.approvals.some(approval => approval.callId === callId && !approval.decision) ? record : undefined
}

function notPending(callId: string, session: Session | undefined): ToolApprovalError {
  const where = session ? `and the last run of session "${session.id}" is not suspended waiting for it` : 'and the agent has no session holding a suspended run'
  return new ToolApprovalError(`No approval of call "${callId}" is open: no run of this agent waits on it, ${where}.`, { callId, problem: 'not-pending' })
}
