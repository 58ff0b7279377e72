import type { SessionTurn } from '../core/content'
import type { StopReason } from '../core/stop-reason'
import type { DecisionRecord } from '../decisions/types'
import type { SessionRecordLocation } from '../errors'

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
  resumedFromRunId?: string
  /**
   * The decisions the run's hooks made (`ctx.decide`), in the order they
   * finished, with their outcomes: what a replay hands back instead of asking
   * a model again. Absent when the run made none.
   */
  decisions?: DecisionRecord[]
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

/**
 * Where sessions live. Every store passes the same conformance suite
 * (`test/session/store-conformance.ts`). Writes are append-only: turns are
 * never rewritten once stored, which is what lets a file store persist turn N
 * in O(1) whatever N is.
 */
export interface SessionStore {
  /** Create an empty session. Rejects when a session with that id exists. */
  create: (record: CreateSessionRecord) => Promise<SessionData>
  /**
   * The session, or `undefined` when there is none with that id. Every
   * record is checked: a broken one rejects with `SessionStoreError('corrupt')`
   * unless `options.onCorrupt` is `'skip'`.
   */
  load: (id: string, options?: SessionLoadOptions) => Promise<SessionData | undefined>
  /** Append turns in order, all or nothing. Concurrent appends never interleave within one call. */
  appendTurns: (id: string, turns: readonly SessionTurn[]) => Promise<void>
  /** Insert a run record, or replace the one with the same run id. */
  saveRun: (id: string, run: SessionRun) => Promise<void>
  /** Remove a session; removing a missing one is not an error. */
  delete: (id: string) => Promise<void>
  /** Ids of every stored session. */
  list: () => Promise<string[]>
  /** Release handles (database connections, timers). Optional. */
  close?: () => Promise<void>
}
