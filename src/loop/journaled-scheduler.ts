/**
 * The tool-batch scheduler of a replay-mode durable run. Like the native one
 * (`./scheduler`): concurrency-safe calls overlap up to `maxConcurrent`, an
 * unsafe call is a barrier that runs alone, results come back in call order.
 * What differs is that no choice depends on which call finished first, since
 * a replay, whose journaled calls finish at once and in any order, must make
 * the same choices as the first execution:
 *
 * the window frees its slots in call order: call `i + maxConcurrent` starts
 * once calls `0..i` have finished, so calls start (and take their journal
 * entries) in the same order every time.
 *
 * The calls of a window still run side by side: their steps are joined
 * through the runtime, not run one after the other.
 */
export async function runToolCallsJournaled<T>(
  count: number,
  isSafe: (index: number) => boolean,
  run: (index: number) => Promise<T>,
  maxConcurrent: number,
): Promise<T[]> {
  const limit = Math.max(1, Math.floor(maxConcurrent) || 1)
  const results: T[] = []
  // The answers of the current group of safe calls, in call order.
  let group: Promise<T>[] = []
  let groupStart = 0

  const drain = async () => {
    for (let i = 0; i < group.length; i++) results[groupStart + i] = await group[i]
    group = []
  }

  for (let index = 0; index < count; index++) {
    if (!isSafe(index)) {
      await drain()
      results[index] = await run(index)
      groupStart = index + 1
      continue
    }
    if (group.length === 0)
      groupStart = index
    // The slot of the call `limit` places back frees when that call has finished, not when any call has.
    const freedBy = group.length >= limit ? group[group.length - limit] : undefined
    const previous = group.at(-1)
    group.push(startInOrder(freedBy, previous, () => run(index)))
  }
  await drain()
  return results
}

/** Start `work` once `freedBy` settled; settle only after `previous` (so a slot frees in call order). */
async function startInOrder<T>(freedBy: Promise<T> | undefined, previous: Promise<T> | undefined, work: () => Promise<T>): Promise<T> {
  if (freedBy)
    await freedBy
  const answer = await work()
  if (previous)
    await previous
  return answer
}
