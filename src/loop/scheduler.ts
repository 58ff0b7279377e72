/**
 * Run a turn's tool calls: concurrency-safe calls overlap up to `maxConcurrent`
 * (a sliding window: a finished call frees its slot at once), and each unsafe
 * call is a barrier that waits for everything before it and runs alone.
 * Results come back in call order whatever order the calls finish in.
 * `run` must not reject; the dispatcher turns every failure into a result.
 */
export async function runToolCallsInOrder<T>(
  count: number,
  isSafe: (index: number) => boolean,
  run: (index: number) => Promise<T>,
  maxConcurrent: number,
): Promise<T[]> {
  const limit = Math.max(1, Math.floor(maxConcurrent) || 1)
  const results: T[] = []
  const inFlight = new Set<Promise<void>>()

  for (let index = 0; index < count; index++) {
    if (!isSafe(index)) {
      if (inFlight.size > 0)
        await Promise.all(inFlight)
      results[index] = await run(index)
      continue
    }
    while (inFlight.size >= limit)
      await Promise.race(inFlight)
    const slot: Promise<void> = run(index).then((result) => {
      results[index] = result
      inFlight.delete(slot)
    })
    inFlight.add(slot)
  }
  if (inFlight.size > 0)
    await Promise.all(inFlight)
  return results
}
