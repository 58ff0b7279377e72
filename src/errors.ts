/**
 * Typed errors. The loop keeps failures as values (`ClassifiedError`) until it
 * decides what they mean; only the stops the contract says throw reach the
 * caller of `agent.run()`, and each carries the data a host needs to react.
 *
 * @module zidane/errors
 */

/** What kind of failure a provider reported, independent of the vendor. */
export type ClassifiedErrorKind
  = | 'rate_limit'
    | 'overloaded'
    | 'server'
    | 'network'
    | 'timeout'
    | 'auth'
    | 'quota'
    | 'invalid_request'
    | 'context_exceeded'
    | 'not_found'
    | 'unsupported'
    | 'aborted'
    | 'unknown'

/** The facts a provider attaches to a `ClassifiedError`, read by the retry policy. */
export interface ClassifiedErrorInit {
  kind: ClassifiedErrorKind
  retryable: boolean
  status?: number
  retryAfterMs?: number
  provider?: string
  /** The endpoint the request went to, without credentials or query string. */
  url?: string
  cause?: unknown
}

/** A provider failure with the facts the retry policy needs. Providers throw these from `stream()`. */
export class ClassifiedError extends Error {
  override name = 'ClassifiedError'
  readonly kind: ClassifiedErrorKind
  readonly retryable: boolean
  readonly status?: number
  readonly retryAfterMs?: number
  readonly provider?: string
  /** The endpoint the failed request went to, when the provider knows it. */
  readonly url?: string

  constructor(message: string, init: ClassifiedErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.kind = init.kind
    this.retryable = init.retryable
    this.status = init.status
    this.retryAfterMs = init.retryAfterMs
    this.provider = init.provider
    this.url = init.url
  }
}

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

/** The request no longer fits the model's context window. */
export class AgentContextExceededError extends Error {
  override name = 'AgentContextExceededError'
  readonly provider?: string
  readonly model?: string
  constructor(message: string, options: { provider?: string, model?: string, cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.provider = options.provider
    this.model = options.model
  }
}

/** A provider turn failed for good: not retryable, or retries (and fallbacks) ran out. */
export class AgentProviderError extends Error {
  override name = 'AgentProviderError'
  readonly kind: ClassifiedErrorKind
  readonly status?: number
  readonly provider?: string
  readonly model?: string
  /** The endpoint of the last failed request, when the provider knows it. */
  readonly url?: string
  /** Attempts made on the last target, the first one included. */
  readonly attempts: number

  constructor(message: string, options: { kind: ClassifiedErrorKind, status?: number, provider?: string, model?: string, url?: string, attempts: number, cause?: unknown }) {
    super(message, { cause: options.cause })
    this.kind = options.kind
    this.status = options.status
    this.provider = options.provider
    this.model = options.model
    this.url = options.url
    this.attempts = options.attempts
  }
}

/** A tool was called that the run does not allow. */
export class AgentToolNotAllowedError extends Error {
  override name = 'AgentToolNotAllowedError'
  readonly tool: string
  constructor(tool: string, reason?: string) {
    super(reason ? `Tool "${tool}" is not allowed: ${reason}` : `Tool "${tool}" is not allowed`)
    this.tool = tool
  }
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

/**
 * Lower-case fragments that vendors use when a request is larger than the
 * context window. Matched against error messages when no structured code says so.
 */
export const CONTEXT_EXCEEDED_MESSAGE_PATTERNS: readonly string[] = Object.freeze([
  'prompt is too long',
  'context length',
  'context_length_exceeded',
  'context window',
  'maximum context length',
  'too many tokens',
  'input is too long',
  'exceeds the context',
])

/** Whether an error message says the request did not fit the context window. */
export function matchesContextExceeded(message: string | undefined | null): boolean {
  if (!message)
    return false
  const lower = message.toLowerCase()
  return CONTEXT_EXCEEDED_MESSAGE_PATTERNS.some(pattern => lower.includes(pattern))
}

/** `agent.run()` was called while another run of the same agent was still going. */
export class AgentBusyError extends Error {
  override name = 'AgentBusyError'
  constructor() {
    super('This agent is already running; wait for the current run to finish (or abort it) before starting another')
  }
}

/** Where a broken stored record sits, and what is wrong with it (see `SessionStoreError.record`). */
export interface SessionRecordLocation {
  /** 1-based line of the file store's log. */
  line?: number
  /** SQLite table of the row. */
  table?: 'sessions' | 'turns' | 'runs'
  /** The SQLite row's sequence number within its session. */
  row?: number
  /** Position of the turn or run: within its log line (file store), else within the session. */
  index?: number
  /** What is wrong, e.g. `has no content`. */
  problem: string
}

/** A session store could not do what was asked (missing session, duplicate id, unreadable data, HTTP failure). */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError'
  readonly code: 'not_found' | 'exists' | 'invalid_id' | 'corrupt' | 'unsupported_version' | 'io' | 'http'
  readonly sessionId?: string
  /** For `corrupt`: the broken record's place, so a host can show it or skip it. */
  readonly record?: SessionRecordLocation
  constructor(message: string, code: SessionStoreError['code'], options: { sessionId?: string, cause?: unknown, record?: SessionRecordLocation } = {}) {
    super(message, { cause: options.cause })
    this.code = code
    this.sessionId = options.sessionId
    if (options.record !== undefined)
      this.record = options.record
  }
}

/**
 * A saved run state (`SessionRun.state`, or text given to `parseRunState`)
 * cannot be read: not JSON, a newer version, or a field of the wrong shape.
 * `path` names the field (`usage[2].input`, `version`), `problem` what is
 * wrong with it; the message says how to recover.
 */
export class RunStateError extends Error {
  override name = 'RunStateError'
  /** The field at fault, e.g. `target.index`; `(record)` for the record as a whole. */
  readonly path: string
  /** What is wrong with it, e.g. `is a string, not a count`. */
  readonly problem: string
  /** The run whose record held the state, when it came from a session. */
  readonly runId?: string
  readonly sessionId?: string
  constructor(message: string, init: { path: string, problem: string, runId?: string, sessionId?: string, cause?: unknown }) {
    super(message, { cause: init.cause })
    this.path = init.path
    this.problem = init.problem
    if (init.runId !== undefined)
      this.runId = init.runId
    if (init.sessionId !== undefined)
      this.sessionId = init.sessionId
  }
}

/**
 * Who holds a session's lease: the single-writer claim a run takes on its
 * session (see `SessionStore.acquireLease`). `expiresAt` is wall-clock epoch
 * ms; `pid` and `hostname` name the holding process when the store knows them.
 */
export interface SessionLease {
  sessionId: string
  /** The holder's owner id (one per session handle). */
  owner: string
  /** The lease is free for another owner once this time passes without a renewal; `0` once released. */
  expiresAt: number
  pid?: number
  hostname?: string
  /**
   * Set by an acquire that took the lease after another owner (who held it,
   * released it or let it expire): that owner may have written, so a cached
   * copy of the session is stale.
   */
  previousOwner?: string
}

/**
 * A second writer was refused: the session's lease is held by another live
 * owner (`reason: 'held'`), or this writer's own lease was lost, taken over
 * after it expired or released by someone else (`reason: 'lost'`). Nothing
 * was written. Wait for the holder's lease to expire, or release it with
 * `store.releaseLease(sessionId, holder.owner)` when its owner is known to be gone.
 */
export class SessionLeaseError extends Error {
  override name = 'SessionLeaseError'
  readonly sessionId: string
  readonly reason: 'held' | 'lost'
  /** The lease that stands in the way, when one does. */
  readonly holder?: SessionLease
  /** The owner that was refused, when it had one. */
  readonly owner?: string
  constructor(sessionId: string, reason: SessionLeaseError['reason'], options: { holder?: SessionLease, owner?: string, cause?: unknown } = {}) {
    super(leaseMessage(sessionId, reason, options.holder), { cause: options.cause })
    this.sessionId = sessionId
    this.reason = reason
    if (options.holder !== undefined)
      this.holder = options.holder
    if (options.owner !== undefined)
      this.owner = options.owner
  }
}

function leaseMessage(sessionId: string, reason: SessionLeaseError['reason'], holder: SessionLease | undefined): string {
  const where = holder?.pid === undefined ? '' : ` (pid ${holder.pid}${holder.hostname === undefined ? '' : ` on ${holder.hostname}`})`
  const by = holder === undefined ? '' : ` by owner "${holder.owner}"${where}`
  const until = holder !== undefined && holder.expiresAt > 0 ? ` until ${new Date(holder.expiresAt).toISOString()}` : ''
  if (reason === 'held')
    return `Session "${sessionId}" is being written by another run: it is leased${by}${until}. Wait for the lease to expire, or release it with store.releaseLease() once that run is gone`
  return `This writer lost its lease on session "${sessionId}"${holder === undefined ? '' : `, now held${by}${until}`}; it stops writing so two runs never interleave`
}

/**
 * A durable runtime refused to journal an entry larger than its
 * `maxEntryBytes` (default 4 MiB): a tool call gets it as its error result,
 * a model result ends the run with it. Never retried: the same call would
 * produce the same oversized entry again.
 */
export class DurablePayloadTooLargeError extends Error {
  override name = 'DurablePayloadTooLargeError'
  /** The step whose entry was refused. */
  readonly step: string
  /** Bytes of the entry's JSON. */
  readonly bytes: number
  /** The runtime's `maxEntryBytes`. */
  readonly maxBytes: number
  constructor(step: string, bytes: number, maxBytes: number) {
    super(`The durable journal entry of "${step}" is ${bytes} bytes, over the ${maxBytes}-byte limit (maxEntryBytes); it was not journaled`)
    this.step = step
    this.bytes = bytes
    this.maxBytes = maxBytes
  }
}

/** An optional peer dependency that a zidane entry needs is not installed. */
export class MissingPeerDependencyError extends Error {
  override name = 'MissingPeerDependencyError'
  /** The npm package that is missing, e.g. `better-sqlite3`. */
  readonly packageName: string
  /** The entry that needs it, e.g. `zidane/session/sqlite`. */
  readonly feature: string
  /** What to run to fix it. */
  readonly installCommand: string
  constructor(packageName: string, feature: string, options: { cause?: unknown } = {}) {
    const installCommand = `npm install ${packageName}`
    super(`${feature} needs the optional peer dependency "${packageName}", which is not installed. Install it with: ${installCommand}`, { cause: options.cause })
    this.packageName = packageName
    this.feature = feature
    this.installCommand = installCommand
  }
}

/**
 * An agent has `mcpServers` but no `mcpConnector`, and zidane's built-in
 * connector cannot be loaded. That happens in a bundled program: the agent
 * finds the connector at run time, by a path no bundler follows, so that
 * programs without MCP servers do not ship the MCP client. A bundled program
 * that uses MCP passes `mcpConnector: connectMcpServers` from `zidane/mcp`.
 */
export class McpConnectorUnavailableError extends Error {
  override name = 'McpConnectorUnavailableError'
  /** Where the agent looked for the built-in connector (a file URL), when it got that far. */
  readonly location?: string
  constructor(options: { location?: string, cause?: unknown } = {}) {
    const where = options.location ? ` at ${options.location}` : ''
    super(`The agent has mcpServers but no mcpConnector, and the built-in MCP connector could not be loaded${where}. `
      + `A bundled program leaves it out: import { connectMcpServers } from 'zidane/mcp' and pass it as mcpConnector, so the bundle includes it.`, { cause: options.cause })
    if (options.location !== undefined)
      this.location = options.location
  }
}

/** Which side of enterprise-managed authorization refused: the IdP's token exchange, or the MCP authorization server's JWT bearer grant. */
export type McpIdentityAssertionStage = 'identity-provider' | 'authorization-server'

/**
 * Enterprise-managed authorization (`oauth.grantType: 'jwt_bearer'`) could
 * not get an access token: the identity provider refused to exchange the
 * user's identity token for an ID-JAG, the MCP authorization server refused
 * the ID-JAG, one of them answered with something that is not a token, or
 * did not answer in time (`cause` is then an `OperationTimeoutError`).
 */
export class McpIdentityAssertionError extends Error {
  override name = 'McpIdentityAssertionError'
  /** Configured MCP server name. */
  readonly server: string
  readonly stage: McpIdentityAssertionStage
  /** HTTP status of the refusal, when there was a response. */
  readonly status?: number
  /** OAuth `error` code of the refusal (`invalid_grant`, `access_denied`, …), when one was sent. */
  readonly code?: string
  constructor(init: { server: string, stage: McpIdentityAssertionStage, message: string, status?: number, code?: string, cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.server = init.server
    this.stage = init.stage
    if (init.status !== undefined)
      this.status = init.status
    if (init.code !== undefined)
      this.code = init.code
  }
}

/** An execution context's working directory is missing, not a directory, or not accessible. */
export class WorkingDirectoryError extends Error {
  override name = 'WorkingDirectoryError'
  /** The directory, as the context resolved it. */
  readonly path: string
  readonly code: 'ENOENT' | 'ENOTDIR' | 'EACCES'
  constructor(path: string, code: WorkingDirectoryError['code'], options: { cause?: unknown } = {}) {
    const problem = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : 'is not accessible'
    super(`The execution context's working directory ${path} ${problem}`, { cause: options.cause })
    this.path = path
    this.code = code
  }
}

/**
 * A behavior knob holds a value zidane cannot act on: the wrong type, out of
 * range, or an option that does not exist. Thrown by `createAgent()` for the
 * agent's `behavior` and by `run()` for the run's merged behavior, before
 * anything starts, so a typo in a limit never runs unbounded.
 */
export class AgentBehaviorError extends TypeError {
  override name = 'AgentBehaviorError'
  /** The knob's path, e.g. `retry.maxAttempts`. */
  readonly knob: string
  /** The value that was set. */
  readonly value: unknown
  /** What the knob accepts. */
  readonly expected: string
  /** Which call found it. */
  readonly where: 'createAgent' | 'run'
  constructor(knob: string, value: unknown, expected: string, where: 'createAgent' | 'run') {
    super(`${where === 'run' ? 'agent.run()' : 'createAgent()'}: behavior${knob === '' ? '' : `.${knob}`} must be ${expected}, got ${describeValue(value)}`)
    this.knob = knob
    this.value = value
    this.expected = expected
    this.where = where
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value)
  if (typeof value === 'function')
    return 'a function'
  if (Array.isArray(value))
    return 'an array'
  if (value === null)
    return 'null'
  if (typeof value === 'object')
    return 'an object'
  return String(value)
}

/** What is wrong with a policy list (`AgentPolicyError.problem`). */
export type AgentPolicyProblem = 'invalid' | 'duplicate' | 'unknown-after' | 'cycle' | 'state'

/**
 * A policy `createAgent` (or a run) cannot use: no name or a phase that is not
 * a function, a duplicate name, an `after` naming no policy of the agent, an
 * ordering cycle, or a state that is not plain JSON data.
 */
export class AgentPolicyError extends TypeError {
  override name = 'AgentPolicyError'
  /** The policy at fault (the first one met, for a cycle). */
  readonly policy: string
  readonly problem: AgentPolicyProblem
  constructor(policy: string, problem: AgentPolicyProblem, message: string) {
    super(message)
    this.policy = policy
    this.problem = problem
  }
}

/**
 * Why a decision produced no answers:
 * - `unavailable`: no capable provider, missing credentials, or a model the provider does not serve
 * - `auth`: the provider rejected the credential (401/403)
 * - `unsupported`: the input cannot be expressed on this provider's wire (e.g. images)
 * - `timeout` / `aborted`: the wall-clock cap was hit / the caller or the run cancelled
 * - `rate_limited` / `quota`: 429 or 529 / 402
 * - `invalid`: the request failed validation, or the model's answer was malformed
 * - `error`: anything else (5xx, network)
 */
export type DecisionFailureReason
  = | 'unavailable'
    | 'auth'
    | 'unsupported'
    | 'timeout'
    | 'aborted'
    | 'rate_limited'
    | 'quota'
    | 'invalid'
    | 'error'

/** The facts of a failed decision that `DecisionError` carries (a `DecisionFailure` fits). */
export interface DecisionErrorInit {
  decisionId: string
  reason: DecisionFailureReason
  message: string
  provider?: string
  model?: string
  error?: Error
}

/**
 * A decision that produced no answers, thrown only when the caller asked for
 * it (`decide(request, { throw: true })`); otherwise the same facts come back
 * as a `DecisionFailure` value.
 */
export class DecisionError extends Error {
  override name = 'DecisionError'
  readonly decisionId: string
  readonly reason: DecisionFailureReason
  readonly provider?: string
  readonly model?: string
  constructor(failure: DecisionErrorInit) {
    super(failure.message, failure.error === undefined ? undefined : { cause: failure.error })
    this.decisionId = failure.decisionId
    this.reason = failure.reason
    this.provider = failure.provider
    this.model = failure.model
  }
}
