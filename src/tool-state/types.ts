/**
 * Tool state: a small key/value store that tools read and write through
 * `ToolContext.state`. Writes are staged per tool call and committed when the
 * call settles, so each call's mutations travel as one unit (a durable runtime
 * can journal them with the call's result, and replay them instead of running
 * the tool again). Writing through to the store mid-call would leave a
 * half-applied delta behind a call that is then retried.
 */

/**
 * Largest JSON encoding of one value a view accepts when the store declares no
 * limit of its own: 256 KiB. Generous for the bookkeeping tools keep (lists,
 * cursors, small manifests), and small enough that a commit stays a cheap
 * write for journals and key/value backends, most of which cap single entries
 * somewhere between a few hundred KiB and a few MiB.
 */
export const DEFAULT_MAX_VALUE_BYTES = 256 * 1024

/**
 * One staged mutation, JSON-shaped because durable adapters journal it as is:
 * a deletion carries an explicit flag rather than `value: undefined`, which
 * JSON would silently drop.
 */
export type ToolStateOp
  = | { key: string, value: unknown, delete?: never }
    | { key: string, delete: true, value?: never }

/** Where tool state lives between runs. Implement it on whatever the host already trusts with durable writes. */
export interface ToolStateStore {
  /** The persisted state, key to value. Called when the agent hydrates, before any tool runs. */
  load: () => Record<string, unknown> | Promise<Record<string, unknown>>
  /**
   * Persist the ops one tool call staged, in the order it made them. Should be
   * idempotent (a retried invocation may deliver the same ops twice). A
   * rejection drops this write and is reported; it never fails the tool call.
   */
  commit: (ops: readonly ToolStateOp[]) => void | Promise<void>
  /** Largest value this backend takes, in bytes of JSON; enforced by `ToolStateView.set`. Defaults to `DEFAULT_MAX_VALUE_BYTES`. */
  maxValueBytes?: number
}

/** What a tool sees: the committed state merged with its own call's staged writes. */
export interface ToolStateView {
  /** A copy of the value for `key`, or `undefined` when absent or staged for deletion. The type is the caller's claim; nothing validates it. */
  get: <T = unknown>(key: string) => T | undefined
  /** Whether `key` has a value this call can see. */
  has: (key: string) => boolean
  /** Keys visible to this call, in ascending order. */
  keys: () => string[]
  /**
   * Stage a write of a copy of `value`. `undefined` stages a deletion. Throws a
   * `TypeError` when the value is not plain JSON data (functions, symbols,
   * bigints, non-finite numbers, class instances such as `Date` or `Map`,
   * cycles, holes or `undefined` in arrays) and a `RangeError` when its JSON is
   * larger than the store's `maxValueBytes`. Failing here points at the tool
   * that made the write, instead of at a commit long after it returned.
   */
  set: (key: string, value: unknown) => void
  /** Stage a deletion. */
  delete: (key: string) => void
}

/**
 * The staging behind a view, for the dispatcher and durable adapters only
 * (tools never see it). Obtain it with `stagedToolState(view)`.
 */
export interface StagedToolState {
  /** Copies of the ops staged so far, in the order they were made. */
  pending: () => ToolStateOp[]
  /** Forget the staged ops (a path whose mutations were never journaled). */
  clear: () => void
  /** Replace the staged ops, e.g. with the ones journaled for a replayed call. Validated like `set`; all or nothing. */
  restore: (ops: readonly ToolStateOp[]) => void
}

/** Read-only access to committed state, as the host sees it through `agent.toolState`. */
export type AgentToolState = Pick<ToolStateView, 'get' | 'has' | 'keys'>

/**
 * How a `ToolStateController.commit` ended. Never a rejection: when the store
 * fails, `ok` is false, `error` is what it threw, and `ops` are the writes that
 * were dropped (for the `tool-state:commit-failed` hook). `ops` is empty when
 * the call staged nothing, in which case the store was not called.
 */
export type ToolStateCommitResult
  = | { ok: true, ops: readonly ToolStateOp[] }
    | { ok: false, error: unknown, ops: readonly ToolStateOp[] }

/**
 * Owns one agent's tool state: the committed snapshot, shared by every run of
 * the agent, and one staging view per in-flight tool call.
 */
export interface ToolStateController {
  /** The view for `callId`, created on first use; later calls return the same view until it is committed or discarded. */
  begin: (callId: string) => ToolStateView
  /**
   * Hand `callId`'s staged ops to the store, then apply them to the snapshot;
   * the view is dropped either way (writes through it then throw). Commits are
   * serialized in call order, so the store never sees two at once and the
   * snapshot applies them in that order. Nothing staged: no store write.
   */
  commit: (callId: string) => Promise<ToolStateCommitResult>
  /** Drop `callId`'s view and its staged ops without committing. */
  discard: (callId: string) => void
  /**
   * Load the store's state into the snapshot. Concurrent callers share one
   * load; after a success later calls resolve at once, after a failure the next
   * call loads again. Ops committed before the load finished are re-applied on
   * top of what it returned.
   */
  hydrate: () => Promise<void>
  /** Copies of the ops `callId` has staged, in order; empty without a view. Read before `commit` to keep a failed delta. */
  pending: (callId: string) => readonly ToolStateOp[]
  /** A copy of the committed state, keys in ascending order. */
  snapshot: () => Readonly<Record<string, unknown>>
  /** Reads of the committed state at call time; staged writes of in-flight calls are invisible. */
  readonly committed: AgentToolState
}
