import { withGetters } from '../../core/fast-accessors'
/**
 * The in-process response cache behind `fetchUrlCacheTtlMs`: rendered results
 * of successful text fetches, keyed by URL, least recently used first out.
 * Bounded by entry count and total bytes so a long fan-out cannot grow it
 * without limit.
 */

/** Fixed caps for the default cache. */
export const FETCH_CACHE_MAX_ENTRIES = 100
export const FETCH_CACHE_MAX_BYTES = 8 * 1024 * 1024

/** Bounds of the fetch cache (entries and bytes). */
export interface FetchCacheOptions {
  maxEntries?: number
  maxBytes?: number
  /** Clock in ms; injected in tests to expire entries without waiting. */
  now?: () => number
}

export interface FetchCache {
  /** The entry for `key` if it was stored less than `ttlMs` ago; an expired entry is dropped. */
  get: (key: string, ttlMs: number) => string | undefined
  /** Store `value`, evicting the least recently used entries until both caps hold. Too large a value is not stored. */
  set: (key: string, value: string) => void
  readonly size: number
  readonly bytes: number
}

interface Entry {
  value: string
  bytes: number
  storedAt: number
}

export function createFetchCache(options: FetchCacheOptions = {}): FetchCache {
  const maxEntries = options.maxEntries ?? FETCH_CACHE_MAX_ENTRIES
  const maxBytes = options.maxBytes ?? FETCH_CACHE_MAX_BYTES
  const now = options.now ?? Date.now
  // A Map iterates in insertion order; re-inserting on a hit makes the first key the least recently used.
  const entries = new Map<string, Entry>()
  let bytes = 0

  const remove = (key: string) => {
    const entry = entries.get(key)
    if (entry) {
      entries.delete(key)
      bytes -= entry.bytes
    }
  }

  return withGetters<FetchCache, 'size' | 'bytes'>({
    get(key, ttlMs) {
      const entry = entries.get(key)
      if (!entry)
        return undefined
      entries.delete(key)
      if (now() - entry.storedAt >= ttlMs) {
        bytes -= entry.bytes
        return undefined
      }
      entries.set(key, entry)
      return entry.value
    },
    set(key, value) {
      remove(key)
      const size = Buffer.byteLength(value)
      if (size > maxBytes || maxEntries < 1)
        return
      // Oldest first until both caps hold; `remove` lowers `bytes` and the map's size.
      for (const oldest of entries.keys()) {
        if (entries.size < maxEntries && bytes + size <= maxBytes)
          break
        remove(oldest)
      }
      entries.set(key, { value, bytes: size, storedAt: now() })
      bytes += size
    },
  }, { size: () => entries.size, bytes: () => bytes })
}
