import type { AgentToolState, ToolStateCommitResult, ToolStateController, ToolStateOp, ToolStateStore } from './types'
import type { StagedEntry, Staging } from './view'
import { pushAll } from '../core/push-all'
import { decodeStateValue } from './json-value'
import { createMemoryToolStateStore } from './memory-store'
import { DEFAULT_MAX_VALUE_BYTES } from './types'
import { createStaging, entryToOp } from './view'

/**
 * The tool state of one agent. Without a store the state lives in memory for
 * the controller's lifetime. Throws a `RangeError` when the store declares a
 * `maxValueBytes` that is not a positive number.
 */
export function createToolStateController(store: ToolStateStore = createMemoryToolStateStore()): ToolStateController {
  const maxValueBytes = store.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES
  if (!(maxValueBytes > 0))
    throw new RangeError(`ToolStateStore.maxValueBytes must be a positive number, got ${String(store.maxValueBytes)}`)

  // Values are kept as JSON text: every read parses a fresh copy, so nothing a
  // caller does to a value it got (or set) can reach the state.
  const committed = new Map<string, string>()
  const views = new Map<string, Staging>()
  // Commits made before hydration finished, re-applied over what the store loads.
  const beforeHydration: StagedEntry[] = []
  let hydrated = false
  let hydration: Promise<void> | undefined
  let commits: Promise<unknown> = Promise.resolve()

  const apply = (entries: readonly StagedEntry[]) => {
    for (const entry of entries) {
      if (entry.json === undefined)
        committed.delete(entry.key)
      else
        committed.set(entry.key, entry.json)
    }
  }

  const load = async () => {
    const loaded: unknown = await store.load()
    if (typeof loaded !== 'object' || loaded === null || Array.isArray(loaded))
      throw new TypeError('ToolStateStore.load must return a key to value record')
    const next = new Map<string, string>()
    for (const [key, value] of Object.entries(loaded)) {
      const json = JSON.stringify(value)
      if (json !== undefined)
        next.set(key, json)
    }
    committed.clear()
    for (const [key, json] of next)
      committed.set(key, json)
    apply(beforeHydration)
    beforeHydration.length = 0
    hydrated = true
  }

  const write = async (entries: readonly StagedEntry[]): Promise<ToolStateCommitResult> => {
    try {
      await store.commit(entries.map(entryToOp))
    }
    catch (error) {
      return { ok: false, error, ops: entries.map(entryToOp) }
    }
    apply(entries)
    if (!hydrated)
      pushAll(beforeHydration, entries)
    return { ok: true, ops: entries.map(entryToOp) }
  }

  const committedView: AgentToolState = Object.freeze({
    get: <T = unknown>(key: string) => decodeStateValue<T>(committed.get(key)),
    has: (key: string) => committed.has(key),
    keys: () => [...committed.keys()].sort(),
  })

  return {
    begin(callId) {
      let staging = views.get(callId)
      if (!staging)
        views.set(callId, staging = createStaging(callId, committed, maxValueBytes))
      return staging.view
    },

    commit(callId) {
      const staging = views.get(callId)
      const entries = staging?.entries() ?? []
      views.delete(callId)
      staging?.close()
      if (entries.length === 0)
        return Promise.resolve({ ok: true, ops: [] })
      const result = commits.then(() => write(entries))
      commits = result
      return result
    },

    discard(callId) {
      views.get(callId)?.close()
      views.delete(callId)
    },

    hydrate() {
      if (!hydration) {
        const attempt = load()
        hydration = attempt
        attempt.catch(() => {
          if (hydration === attempt)
            hydration = undefined
        })
      }
      return hydration
    },

    pending(callId): readonly ToolStateOp[] {
      return views.get(callId)?.entries().map(entryToOp) ?? []
    },

    snapshot() {
      const keys = [...committed.keys()].sort()
      return Object.fromEntries(keys.map(key => [key, decodeStateValue(committed.get(key))]))
    },

    committed: committedView,
  }
}
