/** Runs tasks one after another per key; tasks on different keys run freely. */
export interface KeyedQueue {
  run: <T>(key: string, task: () => Promise<T>) => Promise<T>
}

/**
 * A promise chain per key. A failed task does not block the ones queued
 * behind it, and a key whose chain has drained is forgotten, so the map only
 * holds keys with work in flight.
 */
export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<void>>()
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve()
      const result = previous.then(task)
      const tail = result.then(() => {}, () => {})
      tails.set(key, tail)
      void tail.then(() => {
        if (tails.get(key) === tail)
          tails.delete(key)
      })
      return result
    },
  }
}
