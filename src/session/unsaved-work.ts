/**
 * What runs on a session hold back from its store: a run with
 * `persistTurns: false` keeps its turns in memory until it ends. Each such
 * run registers a flush here while it lives, and `Session.save()` calls them,
 * so a host can make the store whole at a moment of its choosing (a user's
 * save, a shutdown) without waiting for the run to end.
 */

/** Store what the run has settled so far (never an unanswered tool call); resolves once it is stored. */
export type UnsavedWorkFlush = () => Promise<void>

const flushes = new WeakMap<object, Set<UnsavedWorkFlush>>()

/** Register `flush` for `session` until the returned function is called. */
export function holdUnsavedWork(session: object, flush: UnsavedWorkFlush): () => void {
  let set = flushes.get(session)
  if (!set) {
    set = new Set()
    flushes.set(session, set)
  }
  set.add(flush)
  return () => {
    set.delete(flush)
  }
}

/** Run every flush registered for `session`, one after another (each run writes its own turns in order). */
export async function flushUnsavedWork(session: object): Promise<void> {
  const set = flushes.get(session)
  if (!set)
    return
  for (const flush of [...set]) await flush()
}
