/**
 * What the model has seen of each file in a session: the content hash at the
 * moment it saw the file, and how it saw it. `read_file` uses it to skip
 * identical re-reads; `edit` / `multi_edit` use it to refuse edits against
 * files never read or changed since (`requireReadBeforeEdit`).
 *
 * The state belongs to the session: in memory it is kept per session object
 * (without a session there is nowhere to keep it and every session-scoped
 * file feature is off); on disk it travels in the run state saved with each
 * run record (`RunState.read`), so a session loaded in a new process (after a
 * restart or a crash) knows what the model had read before.
 */

import type { ReadSlice, ReadSource, ReadStateEntry, RunReadState } from '../core/run-state'
import type { Session } from '../session/session'
import { createHash } from 'node:crypto'
import { mergeObjects } from '../core/merge-objects'

export type { ReadSlice, ReadSource, ReadStateEntry } from '../core/run-state'

/** The session's read state, keyed by resolved path. */
export type ReadStateMap = Map<string, ReadStateEntry>

interface SessionReadState {
  entries: ReadStateMap
  seq: number
  /** Bumped by every change (a read, a shell command, a drift refusal): what a checkpoint compares to know it must save again. */
  changes: number
  /** The last shell command run in the session, to name it when a file changed behind the model's back. */
  lastShell?: { command: string, seq: number }
}

const states = new WeakMap<Session, SessionReadState>()

function stateOf(session: Session): SessionReadState {
  let state = states.get(session)
  if (!state) {
    state = { entries: new Map(), seq: 0, changes: 0 }
    states.set(session, state)
  }
  return state
}

/**
 * Seed a session's read state from a saved one, when this process does not
 * track that session yet (what it tracks is newer than any saved copy).
 */
export function restoreReadState(session: Session, saved: RunReadState): void {
  if (states.has(session))
    return
  const entries: ReadStateMap = new Map()
  for (const entry of saved.entries) entries.set(entry.path, mergeObjects(entry, (entry.slice ? { slice: { ...entry.slice } } : {})))
  states.set(session, { entries, seq: saved.seq, changes: 0, ...(saved.lastShell ? { lastShell: { ...saved.lastShell } } : {}) })
}

/** Whether this process tracks the session's read state already (then a saved copy is older). */
export function tracksReadState(session: Session): boolean {
  return states.has(session)
}

/** The session's read state as data, for the run state; `undefined` when the model has seen no file. */
export function readStateSnapshot(session: Session): RunReadState | undefined {
  const state = states.get(session)
  if (!state || (state.entries.size === 0 && !state.lastShell))
    return undefined
  // Entries are replaced, never changed in place, except `driftRefusals`: copied so the saved value stays as it was.
  const entries = Array.from(state.entries.values(), entry => ({ ...entry }))
  return { seq: state.seq, entries, ...(state.lastShell ? { lastShell: state.lastShell } : {}) }
}

/** How many times the session's read state changed in this process (0 when it is not tracked): cheap to compare. */
export function readStateVersion(session: Session): number {
  return states.get(session)?.changes ?? 0
}

/** Count one more refused edit of a file that drifted since it was read; returns the new count. */
export function countDriftRefusal(session: Session, entry: ReadStateEntry): number {
  stateOf(session).changes++
  return ++entry.driftRefusals
}

/** The read state of a session (live: later reads show up in it). */
export function readStateOf(session: Session): ReadStateMap {
  return stateOf(session).entries
}

/** sha256 of file bytes, hex. */
export function contentHash(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** Record that the model now knows `path` at `hash`; replaces any earlier entry. */
export function recordRead(session: Session, entry: { path: string, hash: string, source: ReadSource, slice?: ReadSlice }): ReadStateEntry {
  const state = stateOf(session)
  const recorded: ReadStateEntry = mergeObjects(entry, { seq: ++state.seq, driftRefusals: 0 })
  state.changes++
  state.entries.set(entry.path, recorded)
  return recorded
}

/** The last number of the session's sequence of file events (0 when not tracked). */
export function readStateSeq(session: Session): number {
  return states.get(session)?.seq ?? 0
}

/** The entries recorded after `seq`, in sequence order: what one tool call added, for a durable journal. */
export function readEntriesAfter(session: Session, seq: number): ReadStateEntry[] {
  const state = states.get(session)
  if (!state)
    return []
  return [...state.entries.values()].filter(entry => entry.seq > seq).sort((a, b) => a.seq - b.seq).map(entry => ({ ...entry }))
}

/**
 * Record again entries a replayed tool call recorded when it ran (its body
 * does not run on a replay): the model saw those files then. Each takes the
 * next number of this session's sequence, as it did the first time.
 */
export function replayReadEntries(session: Session, entries: readonly ReadStateEntry[]): void {
  for (const entry of entries)
    recordRead(session, { path: entry.path, hash: entry.hash, source: entry.source, ...(entry.slice ? { slice: { ...entry.slice } } : {}) })
}

/** Whether a `read_file` of `slice` at `hash` repeats the last read of `path` exactly. */
export function isDuplicateRead(session: Session, path: string, hash: string, slice: ReadSlice): boolean {
  const entry = stateOf(session).entries.get(path)
  if (!entry || entry.source !== 'read_file' || !entry.slice || entry.hash !== hash)
    return false
  const last = entry.slice
  return last.offset === slice.offset && last.limit === slice.limit
    && last.maxBytes === slice.maxBytes && last.lineNumbers === slice.lineNumbers
}

/** Note a shell command that ran (whatever it did), for drift messages. */
export function noteShellCommand(session: Session, command: string): void {
  const state = stateOf(session)
  state.lastShell = { command, seq: ++state.seq }
  state.changes++
}

/** The last shell command that ran after `entry` was recorded, if any. */
export function shellCommandSince(session: Session, entry: ReadStateEntry): string | undefined {
  const last = stateOf(session).lastShell
  return last && last.seq > entry.seq ? last.command : undefined
}
