/**
 * Tool approval as data: a pending call and the decision a host made on it,
 * kept in the run state of a run suspended for approval and reported on its
 * stats (see docs/approval.md).
 */

/** A host's answer to a tool call that needed approval. */
export interface ApprovalDecision {
  /** `true`: the call runs; `false`: the model gets a refusal carrying `reason`. */
  approved: boolean
  /** Why, in the host's words; a denial shows it to the model. */
  reason?: string
  /** When the decision was recorded (the clock of whoever recorded it). */
  decidedAt: number
}

/**
 * A tool call of the run's last turn that waits for a host's decision (see
 * docs/approval.md). The session holds the call's assistant turn and, in the
 * turn of results after it, a placeholder result for this call; the run is
 * suspended until every pending call has a decision, then continued.
 */
export interface PendingApproval {
  callId: string
  /** The turn the call was made in (its `turnId` on hooks). */
  turnId: string
  /** Canonical name of the tool that needs approval (for an envelope such as `call_tool`, the tool inside it). */
  name: string
  /** The input that tool gets. */
  input: Record<string, unknown>
  /** The call as the model made it, when it differs from `name` and `input` (an envelope). */
  envelope?: { name: string, input: Record<string, unknown> }
  /** When the approval was asked for. */
  requestedAt: number
  /** The decision, once a host made one; the run goes on only when every pending call has one. */
  decision?: ApprovalDecision
}
