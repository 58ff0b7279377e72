/**
 * The run as data: everything a run decides from, as plain JSON, so a run
 * can be saved at a turn boundary and picked up again by a later `run()`
 * (after a pause, a crash or in another process) or by a durable engine.
 * Live handles (the provider object, the tool registry, signals, hooks) are
 * not part of it: the run rebuilds them from its options and finds its place
 * again from this record. See docs/architecture/run-state.md.
 *
 * Records are versioned. `parseRunState` / `checkRunState` read any version
 * this build knows and refuse the rest with a `RunStateError` naming the
 * field at fault and how to recover.
 */

import type { PendingApproval } from './approval'
import type { InjectedTurnReason, PromptPart, SessionContentBlock } from './content'
import type { ChildRunStats, OutputError, SideCallUsage, TurnUsage } from './stats'
import { RunStateError } from '../errors'
import { mergeObjects } from './merge-objects'

/**
 * The version `RunState` records are written in; every later version must
 * still read `test/fixtures/run-state/v1/` and `v2/`. Version 2 added
 * `approvals` (tool calls waiting for a host's decision); a version 1 record
 * has none and reads as it is.
 */
export const RUN_STATE_VERSION = 2

/**
 * Plain JSON data: what a policy keeps between phases. It lives on the run's
 * serializable state (not in a closure), so a paused or journaled run can
 * carry it over and a test can restore it. A policy's own state type may be
 * any interface of such data; the runner checks every state it is given.
 */
export type PolicyState = null | boolean | number | string | readonly PolicyState[] | { readonly [key: string]: PolicyState }

/**
 * Fields of the run's stats a stop fills in, for a policy whose stop is the
 * run's answer (structured output): the value, why it failed, and the text
 * `stats.text` should hold instead of the last assistant turn's.
 */
export interface StopResult {
  readonly text?: string
  readonly output?: unknown
  readonly outputError?: OutputError
}

/** A user message a policy adds before the next model call. */
export interface InjectedMessage {
  readonly content: readonly SessionContentBlock[]
  /** Set when the loop wrote it (a nudge, a continuation), not a person. */
  readonly injected?: InjectedTurnReason
  /** For messages a person queued (`agent.steer`, `agent.followUp`): announced on `steer:inject`. */
  readonly queued?: { readonly kind: 'steer' | 'follow-up', readonly id?: string, readonly prompt: string | PromptPart[] }
}

/** The slice a `read_file` call returned; two reads are the same read only when all of it matches. */
export interface ReadSlice {
  /** 1-based first line. */
  offset: number
  limit: number
  maxBytes: number
  lineNumbers: boolean
}

/** How the model came to know a file's content. */
export type ReadSource = 'read_file' | 'write_file' | 'edit' | 'shell'

/** One file the model has seen in this session. */
export interface ReadStateEntry {
  /** Resolved path in the execution context (the map key). */
  path: string
  /** sha256 (hex) of the file's bytes when the model saw them. */
  hash: string
  source: ReadSource
  /** The slice, for `read_file` entries. Only these can make a later read a duplicate. */
  slice?: ReadSlice
  /** Position in the session's sequence of file events (reads, writes, shell commands). */
  seq: number
  /** Edits refused for drift since this entry was recorded; raises the tone of the next refusal. */
  driftRefusals: number
}

/** What the model has seen of the session's files (`requireReadBeforeEdit`, duplicate reads, drift notices). */
export interface RunReadState {
  /** The last number handed out in the session's sequence of file events. */
  seq: number
  /** One entry per file, in no particular order. */
  entries: ReadStateEntry[]
  /** The last shell command run in the session, to name it when a file changed behind the model's back. */
  lastShell?: { command: string, seq: number }
}

/** The model a run is served by: its place in the run's fallback list, and what that place held. */
export interface RunStateTarget {
  /** Index in the run's targets (0: the first one; a fallback moves it on). */
  index: number
  /** The provider's `name`. */
  provider: string
  model: string
}

export type { ApprovalDecision, PendingApproval } from './approval'

/** Everything a run decides from, as JSON. See the module comment. */
export interface RunState {
  /** `RUN_STATE_VERSION` when written. */
  version: number
  /** Parent-loop turns started, over every leg of the run (a pause and its continuation count as one run). */
  turnCount: number
  /** The model serving the run now; a fallback moves it, and a continuation keeps it. */
  target: RunStateTarget
  /** Messages waiting to join the next user turn (a nudge, a continuation, steered or follow-up messages). */
  pending: InjectedMessage[]
  /** Usage of each finished turn, in order. */
  usage: TurnUsage[]
  /**
   * In a record saved at a turn boundary: how many more usage entries follow
   * `usage`, each the `usage` of one of the run's own assistant turns, the
   * last ones of the run, in order. They are in the session's turns already,
   * so a boundary's record stays the same size however long the run gets; a
   * restore reads them back from there. Absent in a live state and in a
   * run's final record.
   */
  usageInTurns?: number
  /** Usage of each side-band model call (a compaction summary), in order. */
  sideCalls: SideCallUsage[]
  /** Subagents spawned that have finished, in completion order. */
  children: ChildRunStats[]
  /** The stats fields the stop that ended the run set (absent while it runs, and for most stops). */
  stopResult?: StopResult
  /** What the model has seen of the session's files, when it has seen any. Per session: see docs/sessions.md. */
  read?: RunReadState
  /** Each enabled policy's state, by policy name. */
  policies: Record<string, PolicyState>
  /**
   * Tool calls of the last turn that wait for a host's decision (version 2).
   * Present only on a run suspended for approval; absent otherwise.
   */
  approvals?: PendingApproval[]
}

/** A fresh run state: nothing done yet, served by the first target. */
export function createRunState(target: RunStateTarget = { index: 0, provider: '', model: '' }, policies: Record<string, PolicyState> = {}): RunState {
  return { version: RUN_STATE_VERSION, turnCount: 0, target: { ...target }, pending: [], usage: [], sideCalls: [], children: [], policies }
}

/** The run state as JSON text (what a store keeps). */
export function serializeRunState(state: RunState): string {
  return JSON.stringify(state)
}

/** Where a record came from, for the error a broken one gets. */
export interface RunStateSource {
  /** The run whose record held it. */
  runId?: string
  sessionId?: string
}

/**
 * Read a run state from its JSON text. Throws `RunStateError` for text that
 * is not JSON, a version this build cannot read, or a field of the wrong
 * shape, naming the field (`usage[2].input`) and how to recover.
 */
export function parseRunState(text: string, source: RunStateSource = {}): RunState {
  let value: unknown
  try {
    value = JSON.parse(text)
  }
  catch (cause) {
    throw runStateError('(record)', 'is not valid JSON', source, cause)
  }
  return checkRunState(value, source)
}

/** Check a run state already read from JSON (a `SessionRun.state`); same errors as `parseRunState`. */
export function checkRunState(value: unknown, source: RunStateSource = {}): RunState {
  const problem = stateProblem(value)
  if (problem)
    throw runStateError(problem.path, problem.problem, source)
  return value as RunState
}

function runStateError(path: string, problem: string, source: RunStateSource, cause?: unknown): RunStateError {
  const where = source.runId === undefined
    ? 'A run state'
    : `The run state of run "${source.runId}"${source.sessionId === undefined ? '' : ` in session "${source.sessionId}"`}`
  const recovery = problem.startsWith('has version')
    ? 'Read it with the zidane version that wrote it, or'
    : 'Repair the field, or'
  return new RunStateError(
    `${where} is broken: ${path} ${problem}. ${recovery} save the run record again without its state (\`session.saveRun({ ...run, state: undefined })\`): the next run then starts with fresh counters.`,
    { path, problem, ...source, cause },
  )
}

interface Problem { path: string, problem: string }

type Fields = Record<string, unknown>

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null || value === undefined)
    return String(value)
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

/** The first thing wrong with a run state, with its path, or `undefined` when it is sound. */
function stateProblem(value: unknown): Problem | undefined {
  if (!isRecord(value))
    return { path: '(record)', problem: `is ${describe(value)}, not an object` }
  const version = value.version
  if (version === undefined)
    return { path: 'version', problem: 'is missing' }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    return { path: 'version', problem: `is ${describe(version)}, not a version number` }
  if (version > RUN_STATE_VERSION)
    return { path: 'version', problem: `has version ${version}; this build reads up to ${RUN_STATE_VERSION}` }
  return count(value, 'turnCount')
    ?? targetProblem(value.target)
    ?? listProblem(value, 'pending', messageProblem)
    ?? listProblem(value, 'usage', usageProblem)
    ?? (value.usageInTurns === undefined ? undefined : count(value, 'usageInTurns'))
    ?? listProblem(value, 'sideCalls', sideCallProblem)
    ?? listProblem(value, 'children', childProblem)
    ?? optionalObject(value, 'stopResult')
    ?? (value.read === undefined ? undefined : readProblem(value.read))
    ?? (isRecord(value.policies) ? undefined : { path: 'policies', problem: `is ${describe(value.policies)}, not an object` })
    ?? (value.approvals === undefined ? undefined : listProblem(value, 'approvals', approvalProblem))
}

function count(fields: Fields, key: string, prefix = ''): Problem | undefined {
  const value = fields[key]
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? undefined
    : { path: `${prefix}${key}`, problem: `is ${describe(value)}, not a count` }
}

function text(fields: Fields, key: string, prefix: string): Problem | undefined {
  return typeof fields[key] === 'string' ? undefined : { path: `${prefix}${key}`, problem: `is ${describe(fields[key])}, not a string` }
}

function num(fields: Fields, key: string, prefix: string): Problem | undefined {
  return typeof fields[key] === 'number' ? undefined : { path: `${prefix}${key}`, problem: `is ${describe(fields[key])}, not a number` }
}

function optionalObject(fields: Fields, key: string): Problem | undefined {
  const value = fields[key]
  return value === undefined || isRecord(value) ? undefined : { path: key, problem: `is ${describe(value)}, not an object` }
}

function targetProblem(target: unknown): Problem | undefined {
  if (!isRecord(target))
    return { path: 'target', problem: `is ${describe(target)}, not an object` }
  return count(target, 'index', 'target.') ?? text(target, 'provider', 'target.') ?? text(target, 'model', 'target.')
}

function listProblem(fields: Fields, key: string, itemProblem: (item: Fields, path: string) => Problem | undefined): Problem | undefined {
  const list = fields[key]
  if (!Array.isArray(list))
    return { path: key, problem: `is ${describe(list)}, not an array` }
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i]
    const path = `${key}[${i}]`
    if (!isRecord(item))
      return { path, problem: `is ${describe(item)}, not an object` }
    const problem = itemProblem(item, `${path}.`)
    if (problem)
      return problem
  }
  return undefined
}

function messageProblem(message: Fields, prefix: string): Problem | undefined {
  const content = message.content
  if (!Array.isArray(content))
    return { path: `${prefix}content`, problem: `is ${describe(content)}, not an array` }
  const block = content.findIndex(item => !isRecord(item) || typeof item.type !== 'string')
  return block === -1 ? undefined : { path: `${prefix}content[${block}]`, problem: 'is not a content block' }
}

function usageProblem(usage: Fields, prefix: string): Problem | undefined {
  return num(usage, 'input', prefix) ?? num(usage, 'output', prefix)
}

function sideCallProblem(usage: Fields, prefix: string): Problem | undefined {
  return usageProblem(usage, prefix) ?? text(usage, 'purpose', prefix) ?? num(usage, 'turn', prefix)
}

function childProblem(child: Fields, prefix: string): Problem | undefined {
  const problem = text(child, 'id', prefix) ?? text(child, 'task', prefix)
  if (problem)
    return problem
  const stats = child.stats
  if (!isRecord(stats))
    return { path: `${prefix}stats`, problem: `is ${describe(stats)}, not an object` }
  for (const key of ['turns', 'totalIn', 'totalOut', 'totalCacheRead', 'totalCacheCreation']) {
    const found = num(stats, key, `${prefix}stats.`)
    if (found)
      return found
  }
  return undefined
}

function approvalProblem(approval: Fields, prefix: string): Problem | undefined {
  const problem = text(approval, 'callId', prefix) ?? text(approval, 'turnId', prefix) ?? text(approval, 'name', prefix)
    ?? objectField(approval, 'input', prefix) ?? num(approval, 'requestedAt', prefix)
  if (problem)
    return problem
  const envelope = approval.envelope
  if (envelope !== undefined) {
    if (!isRecord(envelope))
      return { path: `${prefix}envelope`, problem: `is ${describe(envelope)}, not an object` }
    const found = text(envelope, 'name', `${prefix}envelope.`) ?? objectField(envelope, 'input', `${prefix}envelope.`)
    if (found)
      return found
  }
  const decision = approval.decision
  if (decision === undefined)
    return undefined
  if (!isRecord(decision))
    return { path: `${prefix}decision`, problem: `is ${describe(decision)}, not an object` }
  if (typeof decision.approved !== 'boolean')
    return { path: `${prefix}decision.approved`, problem: `is ${describe(decision.approved)}, not a boolean` }
  if (decision.reason !== undefined && typeof decision.reason !== 'string')
    return { path: `${prefix}decision.reason`, problem: `is ${describe(decision.reason)}, not a string` }
  return num(decision, 'decidedAt', `${prefix}decision.`)
}

function objectField(fields: Fields, key: string, prefix: string): Problem | undefined {
  return isRecord(fields[key]) ? undefined : { path: `${prefix}${key}`, problem: `is ${describe(fields[key])}, not an object` }
}

const READ_SOURCES = new Set(['read_file', 'write_file', 'edit', 'shell'])

function readProblem(read: unknown): Problem | undefined {
  if (!isRecord(read))
    return { path: 'read', problem: `is ${describe(read)}, not an object` }
  const problem = count(read, 'seq', 'read.') ?? listProblem(read, 'entries', (entry, prefix) =>
    text(entry, 'path', prefix)
    ?? text(entry, 'hash', prefix)
    ?? (READ_SOURCES.has(entry.source as string) ? undefined : { path: `${prefix}source`, problem: `is ${describe(entry.source)}, not one of read_file, write_file, edit, shell` })
    ?? count(entry, 'seq', prefix)
    ?? count(entry, 'driftRefusals', prefix)
    ?? (entry.slice === undefined || isRecord(entry.slice) ? undefined : { path: `${prefix}slice`, problem: `is ${describe(entry.slice)}, not an object` }))
  if (problem)
    return mergeObjects(problem, { path: problem.path.startsWith('read.') ? problem.path : `read.${problem.path}` })
  const shell = read.lastShell
  if (shell === undefined)
    return undefined
  if (!isRecord(shell))
    return { path: 'read.lastShell', problem: `is ${describe(shell)}, not an object` }
  return text(shell, 'command', 'read.lastShell.') ?? count(shell, 'seq', 'read.lastShell.')
}
