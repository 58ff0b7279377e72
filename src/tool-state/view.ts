import type { StagedToolState, ToolStateOp, ToolStateView } from './types'
import { assertStateKey, decodeStateValue, encodeStateValue } from './json-value'

/** A staged op as kept internally: the value as JSON text (`json` absent for a deletion). */
export interface StagedEntry {
  key: string
  json?: string
}

/** The controller's handle on one call's staging. */
export interface Staging {
  view: ToolStateView
  /** The staged entries, in order (a copy). */
  entries: () => StagedEntry[]
  /** Forget the staged entries and refuse further writes. */
  close: () => void
}

const stagings = new WeakMap<ToolStateView, StagedToolState>()

/**
 * The staging behind a view made by a tool-state controller: for the
 * dispatcher and durable adapters, kept off the view itself so a tool cannot
 * reach it. Throws a `TypeError` for any other object.
 */
export function stagedToolState(view: ToolStateView): StagedToolState {
  const staged = stagings.get(view)
  if (!staged)
    throw new TypeError('This object is not a view created by a tool-state controller')
  return staged
}

export function entryToOp(entry: StagedEntry): ToolStateOp {
  return entry.json === undefined ? { key: entry.key, delete: true } : { key: entry.key, value: decodeStateValue(entry.json) }
}

/**
 * A view over `committed` (read live, so other calls' commits show up) plus
 * this call's staged entries, which shadow it key by key.
 */
export function createStaging(callId: string, committed: ReadonlyMap<string, string>, maxValueBytes: number): Staging {
  let entries: StagedEntry[] = []
  let latest = new Map<string, StagedEntry>()
  let closed = false

  const stage = (entry: StagedEntry) => {
    entries.push(entry)
    latest.set(entry.key, entry)
  }
  const assertOpen = () => {
    if (closed)
      throw new Error(`Tool state for call "${callId}" was already committed or discarded; a write now would be lost`)
  }
  const toEntry = (key: string, value: unknown): StagedEntry => {
    assertStateKey(key)
    return value === undefined ? { key } : { key, json: encodeStateValue(key, value, maxValueBytes) }
  }
  const currentJson = (key: string): string | undefined => {
    const entry = latest.get(key)
    return entry ? entry.json : committed.get(key)
  }

  const view: ToolStateView = {
    get: <T = unknown>(key: string) => decodeStateValue<T>(currentJson(key)),
    has: key => currentJson(key) !== undefined,
    keys: () => {
      const keys = new Set(committed.keys())
      for (const [key, entry] of latest) {
        if (entry.json === undefined)
          keys.delete(key)
        else
          keys.add(key)
      }
      return [...keys].sort()
    },
    set: (key, value) => {
      assertOpen()
      stage(toEntry(key, value))
    },
    delete: (key) => {
      assertOpen()
      assertStateKey(key)
      stage({ key })
    },
  }

  const staged: StagedToolState = {
    pending: () => entries.map(entryToOp),
    clear: () => {
      entries = []
      latest = new Map()
    },
    restore: (ops) => {
      assertOpen()
      const next = ops.map(op => toEntry(op.key, op.delete === true ? undefined : op.value))
      entries = []
      latest = new Map()
      next.forEach(stage)
    },
  }
  stagings.set(view, staged)

  return {
    view,
    entries: () => [...entries],
    close: () => {
      closed = true
      staged.clear()
    },
  }
}
