import type { ToolStateStore } from './types'
import { mergeObjects } from '../core/merge-objects'

export interface MemoryToolStateStoreOptions {
  /** State the store starts with (copied). */
  initial?: Record<string, unknown>
  /** Declared per-value limit, in bytes of JSON. */
  maxValueBytes?: number
}

/**
 * A store that keeps tool state in this process: what a controller uses when
 * none is given, and a stand-in for a durable store in tests. Holds copies, so
 * later changes to `initial` or to loaded records do not leak in.
 */
export function createMemoryToolStateStore(options: MemoryToolStateStoreOptions = {}): ToolStateStore {
  const data = new Map<string, string>()
  const put = (key: string, value: unknown) => {
    const json = JSON.stringify(value)
    if (json === undefined)
      data.delete(key)
    else
      data.set(key, json)
  }
  for (const [key, value] of Object.entries(options.initial ?? {}))
    put(key, value)

  return mergeObjects(options.maxValueBytes === undefined ? {} : { maxValueBytes: options.maxValueBytes }, { load: () => Object.fromEntries(Array.from(data, ([key, json]) => [key, JSON.parse(json)])), commit: (ops) => {
    for (const op of ops) {
      if (op.delete === true)
        data.delete(op.key)
      else
        put(op.key, op.value)
    }
  } })
}
