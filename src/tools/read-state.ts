/**
 * What the model has seen of each file in a session: the content hash at the
 * moment it saw the file, and how it saw it. `read_file` uses it to skip
 * identical re-reads; `edit` / `multi_edit` use it to refuse edits against
 * files never read or changed since (`requireReadBeforeEdit`).
 *
 * The state lives with the session object, in memory: without a session there
 * is nowhere to keep it and every session-scoped file feature is off.
 */

import type { Session } from '../session/session'
import { createHash } from 'node:crypto'

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

/** The session's read state, keyed by resolved path. */
export type ReadStateMap = Map<string, ReadStateEntry>

interface SessionReadState {
  entries: ReadStateMap
  seq: number
  /** The last shell command run in the session, to name it when a file changed behind the model's back. */
  lastShell?: { command: string, seq: number }
}

const states = new WeakMap<Session, SessionReadState>()

function stateOf(session: Session): SessionReadState {
  let state = states.get(session)
  if (!state) {
    state = { entries: new Map(), seq: 0 }
    states.set(session, state)
  }
  return state
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
  const recorded: ReadStateEntry = { ...entry, seq: ++state.seq, driftRefusals: 0 }
  state.entries.set(entry.path, recorded)
  return recorded
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
}

/** The last shell command that ran after `entry` was recorded, if any. */
export function shellCommandSince(session: Session, entry: ReadStateEntry): string | undefined {
  const last = stateOf(session).lastShell
  return last && last.seq > entry.seq ? last.command : undefined
}
