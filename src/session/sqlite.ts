/**
 * `zidane/session/sqlite`: a session store in one SQLite database, through
 * the optional peer dependency `better-sqlite3` (only this entry loads it).
 *
 * Tables (prefixed so they can share a database with the host's own):
 * - `zidane_sessions`: id, format version, created/updated times, metadata
 *   (JSON), and the next turn and run sequence numbers;
 * - `zidane_turns`: (session id, seq) → one turn as JSON;
 * - `zidane_runs`: (session id, run id) → the run as JSON, with the seq of
 *   its first save so runs load in start order;
 * - `zidane_leases`: session id → the lease (owner, expiry, pid, hostname).
 *
 * Writes run in `BEGIN IMMEDIATE` transactions, which check the session's
 * lease and write in one step (a compare-and-set on the lease row): the
 * write lock is taken at once, so no other process changes the lease between
 * the check and the write, and a writer that lost its lease writes nothing.
 *
 * Persisting a turn is one indexed insert and one row update in a single
 * transaction, O(log n) in the size of the database and independent of the
 * session's length. The database runs in WAL mode; `durability` picks the
 * sync level (`'buffered'`: `synchronous = NORMAL`, safe against a process
 * crash, a power loss may drop the last commits; `'fsync'`: `FULL`).
 *
 * A row is written only if a load reads it back: a turn, run or metadata
 * nested past `MAX_RECORD_DEPTH` is refused with `corrupt` before the
 * transaction (`stores/writable-json.ts`).
 *
 * @module zidane/session/sqlite
 */

import type Database from 'better-sqlite3'
import type { SessionTurn } from '../core/content'
import type { SessionLease } from '../errors'
import type { CorruptRecords } from './stores/corrupt-records'
import type { SessionLeaseOrigin } from './stores/lease'
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions } from './types'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { MissingPeerDependencyError, SessionStoreError } from '../errors'
import { checksItsLoads, corruptRecords } from './stores/corrupt-records'
import { assertLeaseRequest, checkWriter, deadOnThisHost, extendLease, grantLease, releasedLease, thisProcess } from './stores/lease'
import { metadataProblem, nestsTooDeep, runProblem, TOO_DEEP, turnProblem } from './stores/record-checks'
import { assertReadableVersion, ioError } from './stores/records'
import { assertSessionId, sessionIdFor } from './stores/session-id'
import { writableJson } from './stores/writable-json'
import { SESSION_FORMAT_VERSION } from './types'

/** Options of `createSqliteStore`. */
export interface SqliteStoreOptions {
  /** Database file; its directory is created when missing. `':memory:'` for a throwaway database. */
  path: string
  /** `'buffered'` (default) or `'fsync'`: see the module comment. */
  durability?: 'buffered' | 'fsync'
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS zidane_sessions (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  metadata TEXT,
  next_turn INTEGER NOT NULL DEFAULT 0,
  next_run INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS zidane_turns (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS zidane_runs (
  session_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  run TEXT NOT NULL,
  PRIMARY KEY (session_id, run_id)
);
CREATE INDEX IF NOT EXISTS zidane_runs_order ON zidane_runs (session_id, seq);
CREATE TABLE IF NOT EXISTS zidane_leases (
  session_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  pid INTEGER,
  hostname TEXT
);
`

interface LeaseRow {
  owner: string
  expires_at: number
  pid: number | null
  hostname: string | null
}

/** A stored turn or run: its sequence number and its JSON. */
interface RecordRow {
  seq: number
  json: string
}

interface SessionRow {
  version: number
  created_at: number
  updated_at: number
  metadata: string | null
}

/** A session store in one SQLite database file (needs the optional `better-sqlite3`). */
export function createSqliteStore(options: SqliteStoreOptions): SessionStore {
  const db = openDatabase(options)

  const insertSession = db.prepare('INSERT INTO zidane_sessions (id, version, created_at, updated_at, metadata) VALUES (?, ?, ?, ?, ?)')
  const selectSession = db.prepare('SELECT version, created_at, updated_at, metadata FROM zidane_sessions WHERE id = ?')
  const selectTurns = db.prepare('SELECT seq, turn AS json FROM zidane_turns WHERE session_id = ? ORDER BY seq')
  const selectRuns = db.prepare('SELECT seq, run AS json FROM zidane_runs WHERE session_id = ? ORDER BY seq')
  const selectNextTurn = db.prepare('SELECT next_turn FROM zidane_sessions WHERE id = ?').pluck()
  const insertTurn = db.prepare('INSERT INTO zidane_turns (session_id, seq, turn) VALUES (?, ?, ?)')
  const advanceTurns = db.prepare('UPDATE zidane_sessions SET next_turn = ?, updated_at = ? WHERE id = ?')
  const selectNextRun = db.prepare('SELECT next_run FROM zidane_sessions WHERE id = ?').pluck()
  const updateRun = db.prepare('UPDATE zidane_runs SET run = ? WHERE session_id = ? AND run_id = ?')
  const insertRun = db.prepare('INSERT INTO zidane_runs (session_id, run_id, seq, run) VALUES (?, ?, ?, ?)')
  const advanceRuns = db.prepare('UPDATE zidane_sessions SET next_run = ?, updated_at = ? WHERE id = ?')
  const touchSession = db.prepare('UPDATE zidane_sessions SET updated_at = ? WHERE id = ?')
  const deleteTurns = db.prepare('DELETE FROM zidane_turns WHERE session_id = ?')
  const deleteRuns = db.prepare('DELETE FROM zidane_runs WHERE session_id = ?')
  const deleteSession = db.prepare('DELETE FROM zidane_sessions WHERE id = ?')
  const selectIds = db.prepare('SELECT id FROM zidane_sessions ORDER BY rowid').pluck()
  const selectLease = db.prepare('SELECT owner, expires_at, pid, hostname FROM zidane_leases WHERE session_id = ?')
  const upsertLease = db.prepare(`INSERT INTO zidane_leases (session_id, owner, expires_at, pid, hostname) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, pid = excluded.pid, hostname = excluded.hostname`)
  const deleteLease = db.prepare('DELETE FROM zidane_leases WHERE session_id = ?')

  const leaseOf = (id: string): SessionLease | undefined => {
    const row = selectLease.get(id) as LeaseRow | undefined
    return row && {
      sessionId: id,
      owner: row.owner,
      expiresAt: row.expires_at,
      ...(row.pid === null ? {} : { pid: row.pid }),
      ...(row.hostname === null ? {} : { hostname: row.hostname }),
    }
  }
  const storeLease = (lease: SessionLease) => upsertLease.run(lease.sessionId, lease.owner, lease.expiresAt, lease.pid ?? null, lease.hostname ?? null)
  const fence = (id: string, owner: string | undefined) => checkWriter(id, leaseOf(id), owner, Date.now(), deadOnThisHost)

  const acquireLease = db.transaction((id: string, owner: string, ttlMs: number, origin: SessionLeaseOrigin) => {
    if (selectNextTurn.get(id) === undefined)
      throw notFound(id)
    const lease = grantLease(id, leaseOf(id), owner, ttlMs, origin, Date.now(), deadOnThisHost)
    storeLease(lease)
    return lease
  })

  const renewLease = db.transaction((id: string, owner: string, ttlMs: number) => {
    const lease = extendLease(id, leaseOf(id), owner, ttlMs, Date.now())
    storeLease(lease)
    return lease
  })

  const releaseLease = db.transaction((id: string, owner: string) => {
    const released = releasedLease(leaseOf(id), owner)
    if (released)
      storeLease(released)
  })

  // A deferred transaction gives the reads one consistent snapshot.
  const readSession = db.transaction((id: string) => {
    const row = selectSession.get(id) as SessionRow | undefined
    if (!row)
      return undefined
    return { row, turns: selectTurns.all(id) as RecordRow[], runs: selectRuns.all(id) as RecordRow[] }
  })

  const appendTurns = db.transaction((id: string, turns: readonly string[], at: number, owner: string | undefined) => {
    const next = selectNextTurn.get(id) as number | undefined
    if (next === undefined)
      throw notFound(id)
    fence(id, owner)
    if (turns.length === 0)
      return
    turns.forEach((turn, i) => insertTurn.run(id, next + i, turn))
    advanceTurns.run(next + turns.length, at, id)
  })

  const saveRun = db.transaction((id: string, runId: string, run: string, at: number, owner: string | undefined) => {
    const next = selectNextRun.get(id) as number | undefined
    if (next === undefined)
      throw notFound(id)
    fence(id, owner)
    if (updateRun.run(run, id, runId).changes === 0) {
      insertRun.run(id, runId, next, run)
      advanceRuns.run(next + 1, at, id)
    }
    else {
      touchSession.run(at, id)
    }
  })

  const removeSession = db.transaction((id: string) => {
    deleteTurns.run(id)
    deleteRuns.run(id)
    deleteSession.run(id)
    deleteLease.run(id)
  })

  /** better-sqlite3 is synchronous; run a statement and report failures as store errors. */
  const attempt = <T>(action: string, id: string | undefined, work: () => T): T => {
    try {
      return work()
    }
    catch (error) {
      throw ioError(action, id, error)
    }
  }

  return checksItsLoads({
    async create(record: CreateSessionRecord) {
      const id = sessionIdFor(record.id)
      const metadata = record.metadata === undefined ? null : writableJson(id, record.metadata, { kind: 'metadata', records: [record.metadata], levelsAbove: 0 })
      const at = Date.now()
      attempt('create', id, () => {
        try {
          insertSession.run(id, SESSION_FORMAT_VERSION, record.createdAt, at, metadata)
        }
        catch (error) {
          if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
            throw new SessionStoreError(`Session "${id}" already exists`, 'exists', { sessionId: id, cause: error })
          throw error
        }
      })
      const data: SessionData = { version: SESSION_FORMAT_VERSION, id, createdAt: record.createdAt, updatedAt: at, turns: [], runs: [] }
      if (metadata !== null)
        data.metadata = JSON.parse(metadata) as Record<string, unknown>
      return data
    },

    async load(id: string, options?: SessionLoadOptions) {
      assertSessionId(id)
      const stored = attempt('read', id, () => readSession(id))
      if (!stored)
        return undefined
      const { row } = stored
      assertReadableVersion(row.version, id)
      const records = corruptRecords(id, `Session "${id}" in SQLite`, options)
      const data: SessionData = {
        version: row.version,
        id,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        turns: soundRows<SessionTurn>(stored.turns, 'turns', 'turn', turnProblem, records),
        runs: soundRows<SessionRun>(stored.runs, 'runs', 'run', runProblem, records),
      }
      if (row.metadata !== null) {
        const metadata = parseRow(row.metadata, metadataProblem)
        if (typeof metadata === 'string')
          records.report('metadata', 'sessions row metadata', { table: 'sessions', problem: metadata }, () => row.metadata!)
        else
          data.metadata = metadata.value as Record<string, unknown>
      }
      return records.attach(data)
    },

    async appendTurns(id: string, turns: readonly SessionTurn[], write?: SessionWriteOptions) {
      assertSessionId(id)
      // A row per turn, each checked alone, as a load checks it.
      const rows = turns.map((turn, index) => writableJson(id, turn, { kind: 'turn', records: [turn], levelsAbove: 0, firstIndex: index }))
      attempt('append to', id, () => appendTurns.immediate(id, rows, Date.now(), write?.owner))
    },

    async saveRun(id: string, run: SessionRun, write?: SessionWriteOptions) {
      assertSessionId(id)
      const json = writableJson(id, run, { kind: 'run', records: [run], levelsAbove: 0 })
      attempt('save a run on', id, () => saveRun.immediate(id, run.id, json, Date.now(), write?.owner))
    },

    async acquireLease(id, owner, ttlMs, origin = thisProcess()) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      return attempt('lease', id, () => acquireLease.immediate(id, owner, ttlMs, origin))
    },

    async renewLease(id, owner, ttlMs) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      return attempt('renew the lease of', id, () => renewLease.immediate(id, owner, ttlMs))
    },

    async releaseLease(id, owner) {
      assertSessionId(id)
      attempt('release the lease of', id, () => releaseLease.immediate(id, owner))
    },

    async delete(id: string) {
      assertSessionId(id)
      attempt('delete', id, () => removeSession.immediate(id))
    },

    async list() {
      return attempt('list sessions in', undefined, () => selectIds.all() as string[])
    },

    async close() {
      if (db.open)
        db.close()
    },
  })
}

let driver: typeof Database | undefined

/**
 * Load `better-sqlite3` on first use rather than at import, so a project
 * without it can import this entry and gets a `MissingPeerDependencyError`
 * naming the install command instead of a bare module-not-found failure.
 * It is a CommonJS package, so a synchronous `require` keeps
 * `createSqliteStore` synchronous.
 */
function loadDriver(): typeof Database {
  if (driver)
    return driver
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as typeof Database
    return driver
  }
  catch (error) {
    if (isMissing(error, 'better-sqlite3'))
      throw new MissingPeerDependencyError('better-sqlite3', 'zidane/session/sqlite', { cause: error })
    throw error
  }
}

/** The package itself is missing (not one of its own dependencies, and not a broken install). */
function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND')
    && typeof message === 'string' && message.includes(`'${packageName}'`)
}

function openDatabase(options: SqliteStoreOptions): Database.Database {
  const Driver = loadDriver()
  try {
    if (options.path !== ':memory:' && options.path !== '')
      mkdirSync(dirname(options.path), { recursive: true })
    const db = new Driver(options.path)
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${options.durability === 'fsync' ? 'FULL' : 'NORMAL'}`)
    db.exec(SCHEMA)
    return db
  }
  catch (error) {
    throw ioError(`open the SQLite session database "${options.path}"`, undefined, error)
  }
}

/** Parse and check each row, reporting broken ones by table and seq; only sound records come back. */
function soundRows<T>(rows: readonly RecordRow[], table: 'turns' | 'runs', kind: 'turn' | 'run', problemOf: (value: unknown) => string | undefined, records: CorruptRecords): T[] {
  const sound: T[] = []
  for (const { seq, json } of rows) {
    const parsed = parseRow(json, problemOf)
    if (typeof parsed === 'string')
      records.report(kind, `${table} row ${seq}`, { table, row: seq, problem: parsed }, () => json)
    else
      sound.push(parsed.value as T)
  }
  return sound
}

/** A row's JSON as a value, or what is wrong with it (nested past `MAX_RECORD_DEPTH` included). */
function parseRow(json: string, problemOf: (value: unknown) => string | undefined): { value: unknown } | string {
  let value: unknown
  try {
    value = JSON.parse(json)
  }
  catch {
    return 'is not valid JSON'
  }
  return problemOf(value) ?? (nestsTooDeep(value, 0, true) ? TOO_DEEP : { value })
}

function notFound(id: string): SessionStoreError {
  return new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
}
