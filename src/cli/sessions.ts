/**
 * The command's sessions: a new one per run unless `--session` names one or
 * `--resume` picks the latest of the working folder, and the `--list` table.
 * Each session records the folder it was started in and its first prompt.
 */

import type { Session } from '../session/session'
import type { SessionData, SessionStore } from '../session/types'
import { mergeObjects } from '../core/merge-objects'
import { createSession, loadSession } from '../session/session'
import { UsageError } from './args'
import { oneLine } from './render'

/** What the command stores in `SessionData.metadata`. */
export interface CliSessionMetadata {
  readonly cwd: string
  readonly title: string
}

/** One row of `--list`. */
export interface CliSessionRow {
  readonly id: string
  readonly updatedAt: number
  readonly turns: number
  readonly cwd?: string
  readonly title?: string
}

/** How to open the run's session. */
export interface OpenSessionRequest {
  readonly id?: string
  readonly resume: boolean
  readonly cwd: string
  readonly prompt?: string
}

function metadataOf(data: Pick<SessionData, 'metadata'>): Partial<CliSessionMetadata> {
  const meta = data.metadata ?? {}
  return mergeObjects(typeof meta.cwd === 'string' ? { cwd: meta.cwd } : {}, typeof meta.title === 'string' ? { title: meta.title } : {})
}

/** Every stored session, newest first. A session the store cannot read is left out. */
export async function listCliSessions(store: SessionStore): Promise<CliSessionRow[]> {
  const rows: CliSessionRow[] = []
  for (const id of await store.list()) {
    const data = await store.load(id, { onCorrupt: 'skip' }).catch(() => undefined)
    if (data)
      rows.push({ id, updatedAt: data.updatedAt, turns: data.turns.length, ...metadataOf(data) })
  }
  // Ties in code-unit order: the same on every machine, and no ICU collator to start (about 10 ms).
  return rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Shown for a time no date can hold. */
const NO_TIME = '????-??-?? ??:??'

/** `at` as `YYYY-MM-DD HH:MM` (UTC). A damaged or foreign file can hold any number there: one no date can hold is shown as such, and the table goes on. */
function timeOf(at: number): string {
  const date = new Date(at)
  return Number.isNaN(date.getTime()) ? NO_TIME : date.toISOString().slice(0, 16).replace('T', ' ')
}

/** The `--list` table, one session per line. */
export function formatSessionRows(rows: readonly CliSessionRow[], safe: (text: string) => string): string {
  if (rows.length === 0)
    return 'No saved sessions.\n'
  return rows.map((row) => {
    const when = timeOf(row.updatedAt)
    return [row.id, when, `${row.turns} turns`, row.cwd ?? '-', row.title ?? ''].map(safe).join('  ')
  }).join('\n').concat('\n')
}

/** Open the session the run records into (see `OpenSessionRequest`). `UsageError` for a session that must exist and does not. */
export async function openCliSession(store: SessionStore, request: OpenSessionRequest): Promise<Session> {
  if (request.id !== undefined) {
    if (await store.load(request.id))
      return loadSession(request.id, { store })
    if (request.resume)
      throw new UsageError(`no saved session "${request.id}" to resume (see zidane --list)`)
    return createSession({ id: request.id, store, metadata: newMetadata(request) })
  }
  if (request.resume) {
    const latest = (await listCliSessions(store)).find(row => row.cwd === request.cwd)
    if (!latest)
      throw new UsageError(`no saved session was started in ${request.cwd} (see zidane --list)`)
    return loadSession(latest.id, { store })
  }
  return createSession({ store, metadata: newMetadata(request) })
}

function newMetadata(request: OpenSessionRequest): Record<string, unknown> {
  return { cwd: request.cwd, title: oneLine(request.prompt ?? '') } satisfies CliSessionMetadata
}
