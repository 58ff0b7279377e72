import type { SessionTurn } from '../core/content'
import type { RunState } from '../core/run-state'
import type { StopReason } from '../core/stop-reason'
import type { DecisionRecord } from '../decisions/types'
import type { SessionLease, SessionRecordLocation } from '../errors'
import type { SessionLeaseOrigin } from './stores/lease'

export type { SessionLease } from '../errors'
export type { SessionLeaseOrigin } from './stores/lease'

/**
 * Version of the stored session format. Every store writes it, and every
 * later version must still load the fixtures in `test/fixtures/sessions/`.
 */
export const SESSION_FORMAT_VERSION = 1

/** How a run ended. */
export type SessionEndStatus = 'completed' | 'aborted' | 'error'

/** The host's agent profile a run ran as (for transcripts); free-form beyond `name`. */
export interface SessionRunAgent {
  name: string
  [key: string]: unknown
}

/**
 * Where a run came from, for transcripts; free-form beyond `display` (a
 * host's command name, its arguments, a job id).
 */
export interface SessionRunOrigin {
  /**
   * Display-only replacement for the run's prompt when a transcript renders
   * it (a slash command's one-line form, a scheduled job's name): the full
   * prompt still reaches the model unchanged, and stays in the run's turns.
   * The run-level counterpart of `SessionTurn.display`.
   */
  display?: string
  [key: string]: unknown
}

/** Token and cost totals of one run, as recorded when it ended. */
export interface SessionRunUsage {
  input: number
  output: number
  cacheRead: number
  cacheCreation: number
  cost?: number
  turns: number
}

/** One `agent.run()` recorded on its session. */
export interface SessionRun {
  id: string
  /** `'running'` until the run ends; a run left `'running'` in a loaded session was cut off by a crash. */
  status: 'running' | SessionEndStatus
  startedAt: number
  endedAt?: number
  stopReason?: StopReason
  /** Name and message of the error that ended the run, for `status: 'error'`. */
  error?: { name: string, message: string }
  usage?: SessionRunUsage
  parentRunId?: string
  parentCallId?: string
  label?: string
  agent?: SessionRunAgent
  /** Where the run came from (`AgentRunOptions.runOrigin`), for transcripts. */
  origin?: SessionRunOrigin
  resumedFromRunId?: string
  /**
   * The decisions the run's hooks made (`ctx.decide`), in the order they
   * finished, with their outcomes: what a replay hands back instead of asking
   * a model again. Absent when the run made none.
   */
  decisions?: DecisionRecord[]
  /**
   * The run as data (`RunState`), saved with the record at the run's start,
   * at each turn boundary and at its end: what a continuation after a pause
   * or a crash, and a `resumeRunId` run, pick up (turn count, serving model,
   * queued messages, usage, policy states), and the session's read state.
   * Absent on records written before it existed and when saved without it.
   */
  state?: RunState
  /**
   * The W3C trace context (`traceparent`, `tracestate`) of the run's
   * `invoke_agent` span, when the agent has `telemetry`: a run that continues
   * this one, in this process or another, joins its trace and links to it.
   */
  traceContext?: Record<string, string>
}

/** A whole session as a store holds it. */
export interface SessionData {
  version: number
  id: string
  createdAt: number
  /** Time of the last write. */
  updatedAt: number
  metadata?: Record<string, unknown>
  /** Every turn, in append order. */
  turns: SessionTurn[]
  /** Every run, in start order; a run saved again replaces its earlier record. */
  runs: SessionRun[]
  /** Broken records an `onCorrupt: 'skip'` load left out; absent when there were none. */
  skipped?: SkippedSessionRecord[]
}

/** How a load treats stored records. */
export interface SessionLoadOptions {
  /**
   * What a broken record (not JSON, not a turn or run, a turn without
   * content, …) does. `'throw'` (default): the load rejects with
   * `SessionStoreError('corrupt')` naming it. `'skip'`: it is left out, every
   * sound record is kept, and it is listed in `SessionData.skipped` with its
   * stored text, so nothing is lost. A skip changes nothing stored.
   */
  onCorrupt?: 'throw' | 'skip'
}

/** A broken record an `onCorrupt: 'skip'` load left out. */
export interface SkippedSessionRecord extends SessionRecordLocation {
  /** What was left out: one turn, one run, a whole log line, or the session's metadata. */
  kind: 'turn' | 'run' | 'line' | 'metadata'
  /** The record as stored (the log line or row text, else its JSON), to set aside or repair by hand. */
  raw: string
}

/** What a store needs to create a session. */
export interface CreateSessionRecord {
  /** When absent the store mints one. */
  id?: string
  createdAt: number
  metadata?: Record<string, unknown>
}

/** Who is writing: a write that names the owner of the session's lease (see `SessionStore.acquireLease`). */
export interface SessionWriteOptions {
  /** The writer's lease owner id. Absent: an unleased write, refused while another owner's lease is live. */
  owner?: string
}

/**
 * Where sessions live. Every store passes the same conformance suite
 * (`test/session/store-conformance.ts`). Writes are append-only: turns are
 * never rewritten once stored, which is what lets a file store persist turn N
 * in O(1) whatever N is.
 *
 * One writer at a time: the lease methods keep a lease record per session
 * (owner id, expiry, and the holder's process when known). They are optional
 * for third-party stores; without them a session handle keeps the lease in
 * its own process only, which stops two runs of one process but not two
 * processes (see `docs/session-stores.md`).
 */
export interface SessionStore {
  /**
   * Where the store keeps its data on this machine (the file store's
   * directory), for stores that keep it in local files. An agent recording
   * into the store keeps its built-in file tools out of it.
   */
  readonly localPath?: string
  /** Create an empty session. Rejects when a session with that id exists. */
  create: (record: CreateSessionRecord) => Promise<SessionData>
  /**
   * The session, or `undefined` when there is none with that id. Every
   * record is checked: a broken one rejects with `SessionStoreError('corrupt')`
   * unless `options.onCorrupt` is `'skip'`.
   */
  load: (id: string, options?: SessionLoadOptions) => Promise<SessionData | undefined>
  /**
   * Append turns in order, all or nothing. Concurrent appends never interleave
   * within one call. With lease methods, refused with `SessionLeaseError`
   * unless `write.owner` holds the live lease (or, naming no owner, while
   * nobody else does).
   */
  appendTurns: (id: string, turns: readonly SessionTurn[], write?: SessionWriteOptions) => Promise<void>
  /** Insert a run record, or replace the one with the same run id. Fenced by the lease like `appendTurns`. */
  saveRun: (id: string, run: SessionRun, write?: SessionWriteOptions) => Promise<void>
  /**
   * Optional: `appendTurns` then `saveRun` in one write (a run's turns and
   * its record with the run state, at a turn boundary), fenced like them.
   * A crash may keep the turns without the record, as between two writes,
   * never the record without the turns. Without it a session makes the two
   * calls, one after the other.
   */
  appendTurnsAndRun?: (id: string, turns: readonly SessionTurn[], run: SessionRun, write?: SessionWriteOptions) => Promise<void>
  /**
   * Take the session's lease for `owner` for `ttlMs`, atomically. Granted when
   * it is free, already `owner`'s, or its holder is gone (expired, or a
   * process the store can prove dead); otherwise `SessionLeaseError('held')`
   * naming the holder. `origin` names the owner's process (`pid`,
   * `hostname`) for stores that can check it. Rejects `not_found` for a
   * missing session.
   */
  acquireLease?: (id: string, owner: string, ttlMs: number, origin?: SessionLeaseOrigin) => Promise<SessionLease>
  /** Extend `owner`'s live lease to `ttlMs` from now; `SessionLeaseError('lost')` when it no longer holds one. */
  renewLease?: (id: string, owner: string, ttlMs: number) => Promise<SessionLease>
  /** Give the lease up if `owner` holds it (anything else is a no-op), so the next owner need not wait for expiry. */
  releaseLease?: (id: string, owner: string) => Promise<void>
  /** Remove a session; removing a missing one is not an error. */
  delete: (id: string) => Promise<void>
  /** Ids of every stored session. */
  list: () => Promise<string[]>
  /** Release handles (database connections, timers). Optional. */
  close?: () => Promise<void>
}
