/**
 * Why a run stops with an error: aborted, over budget, already busy, an
 * operation that timed out, the output cap hit again and again, a refused
 * compaction, or a request that cannot be built (unpaired tool calls, an
 * unresolvable content reference).
 */

/** Thrown by APIs that refuse to start or continue because the run was aborted. */
export class AgentAbortedError extends Error {
  override name = 'AgentAbortedError'
  constructor(message = 'The agent run was aborted', options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** Which run-level budget an `AgentBudgetExceededError` is about. */
export type BudgetLimit = 'cost' | 'tokens' | 'wallClock'

/** A run-level budget (`maxCostUsd`, `maxTotalTokens`, `maxWallMs`) was crossed. */
export class AgentBudgetExceededError extends Error {
  override name = 'AgentBudgetExceededError'
  readonly limit: BudgetLimit
  /** The configured ceiling. */
  readonly max: number
  /** What the run had spent when the check tripped. */
  readonly spent: number

  constructor(limit: BudgetLimit, max: number, spent: number) {
    const unit = limit === 'cost' ? ' USD' : limit === 'tokens' ? ' tokens' : ' ms'
    super(`Run budget exceeded: ${limit} ${formatAmount(spent)}${unit} > ${formatAmount(max)}${unit}`)
    this.limit = limit
    this.max = max
    this.spent = spent
  }
}

function formatAmount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(4)
}

/** `agent.run()` was called while another run of the same agent was still going. */
export class AgentBusyError extends Error {
  override name = 'AgentBusyError'
  constructor() {
    super('This agent is already running; wait for the current run to finish (or abort it) before starting another')
  }
}

/** An awaited operation (a hook, a spawn, a teardown step) did not settle in time. */
export class OperationTimeoutError extends Error {
  override name = 'OperationTimeoutError'
  readonly operation: string
  readonly timeoutMs: number
  constructor(operation: string, timeoutMs: number) {
    super(`${operation} did not settle within ${timeoutMs} ms`)
    this.operation = operation
    this.timeoutMs = timeoutMs
  }
}

/** The model kept hitting the output cap without producing anything to continue from. */
export class AgentLengthResumeExhaustedError extends Error {
  override name = 'AgentLengthResumeExhaustedError'
  readonly resumes: number
  constructor(resumes: number) {
    super(`The model hit its output limit ${resumes} times in a row without producing text or tool calls`)
    this.resumes = resumes
  }
}

/**
 * Why a compaction summary was refused: `cut-off` (the call stopped at its
 * output ceiling, so the summary ends mid-thought), `oversized` (longer than
 * the ceiling, or no shorter than the turns it was to replace), `empty` (no
 * text at all).
 */
export type CompactRefusalReason = 'cut-off' | 'oversized' | 'empty'

/** A compaction summary that is not kept: the turns it was to replace stay as they are. */
export class CompactionRefusedError extends Error {
  override name = 'CompactionRefusedError'
  readonly reason: CompactRefusalReason
  /** Output ceiling of the summary call, in tokens. */
  readonly ceilingTokens: number
  /** Size of the summary text, in tokens at 4 bytes a token. */
  readonly summaryTokens: number
  constructor(reason: CompactRefusalReason, ceilingTokens: number, summaryTokens: number) {
    super(refusalMessage(reason, ceilingTokens, summaryTokens))
    this.reason = reason
    this.ceilingTokens = ceilingTokens
    this.summaryTokens = summaryTokens
  }
}

function refusalMessage(reason: CompactRefusalReason, ceilingTokens: number, summaryTokens: number): string {
  if (reason === 'cut-off')
    return `The compaction summary was cut off at its output ceiling of ${ceilingTokens} tokens; the turns are kept`
  if (reason === 'empty')
    return 'The compaction summary call returned no text; the turns are kept'
  return `The compaction summary (about ${summaryTokens} tokens) is larger than its ceiling of ${ceilingTokens} tokens or than the turns it would replace; the turns are kept`
}

/**
 * One repair the pre-send pairing pass made (or would have made). `messageIndex`
 * points into the messages the pass was given (not its output, whose indices
 * shift as messages are added or dropped): the message holding the call for
 * `orphan-tool-call` and `duplicate-tool-call`, the message holding the result
 * for the other kinds. `action` says what was done to the block, since two
 * kinds have two outcomes (a stranded result is moved or dropped; an
 * unanswered call gets a synthetic result, a call in a user message is dropped).
 */
export interface PairingRepair {
  kind: 'orphan-tool-call' | 'orphan-tool-result' | 'duplicate-tool-call' | 'duplicate-tool-result' | 'stranded'
  action: 'synthesized' | 'moved' | 'dropped'
  callId: string
  messageIndex: number
}

/** Tool calls and results no longer pair up, and the run was told not to repair them. */
export class AgentToolPairingError extends Error {
  override name = 'AgentToolPairingError'
  readonly repairs: readonly PairingRepair[]
  constructor(message: string, repairs: readonly PairingRepair[]) {
    super(message)
    this.repairs = repairs
  }
}

/**
 * A `ref` block could not be sent: the host's `resolveContentRef` threw or
 * returned no string `data`. The run fails before the request is made; the
 * session keeps the reference as it was.
 */
export class AgentContentRefError extends Error {
  override name = 'AgentContentRefError'
  readonly ref: string
  constructor(message: string, ref: string, options?: { cause?: unknown }) {
    super(message, options)
    this.ref = ref
  }
}
