import type { PendingApproval } from '../core/approval'
import type { ToolHookContext } from '../tools/hooks'

/**
 * The approval requests a run waits on (see `./approval.ts`): kept apart from
 * the step so the run context can hold the desk without importing the loop.
 */

/** How an approval request ended in this process. */
export type ApprovalVerdict
  = | { kind: 'approved', reason?: string }
    | { kind: 'denied', reason?: string }
    | { kind: 'suspended' }
    | { kind: 'aborted' }

/** The run's open approval requests, by call id: what `agent.approve()` / `agent.deny()` reach while a run waits. */
export class ApprovalDesk {
  private readonly waiting = new Map<string, { base: ToolHookContext, requestedAt: number, settle: (verdict: ApprovalVerdict) => void }>()

  /** Settle the request of `callId`; `false` when none waits here (decided already, or never asked). */
  decide(callId: string, verdict: ApprovalVerdict): boolean {
    const open = this.waiting.get(callId)
    if (!open)
      return false
    open.settle(verdict)
    return true
  }

  /** The calls waiting for a decision now, in the order they asked. */
  open(): PendingApproval[] {
    return Array.from(this.waiting.values(), ({ base, requestedAt }) => ({ callId: base.callId, turnId: base.turnId, name: base.name, input: base.input, requestedAt }))
  }

  /** Open a request; it settles once (the first decision counts), and leaves the desk when it does. */
  request(base: ToolHookContext, requestedAt: number): { verdict: Promise<ApprovalVerdict>, settle: (verdict: ApprovalVerdict) => void } {
    let resolve!: (verdict: ApprovalVerdict) => void
    const verdict = new Promise<ApprovalVerdict>((done) => {
      resolve = done
    })
    let settled = false
    const settle = (value: ApprovalVerdict) => {
      if (settled)
        return
      settled = true
      this.waiting.delete(base.callId)
      resolve(value)
    }
    this.waiting.set(base.callId, { base, requestedAt, settle })
    return { verdict, settle }
  }
}
