/**
 * Source of timestamps and ids for everything the loop records (turn ids,
 * `createdAt`, run ids). Live measurements such as `elapsed` read the run's
 * effects instead (`RunEffects.now`, real time by default), so they track
 * real time even under a replay clock.
 */
export interface AgentClock {
  /** Epoch milliseconds; may be async (a durable runtime journals it). */
  now: () => number | Promise<number>
  /** A v4 UUID; synchronous so ids can be minted anywhere. */
  randomUUID: () => string
}

/** The default clock: `Date.now()` and `crypto.randomUUID()`. */
export const DEFAULT_AGENT_CLOCK: AgentClock = Object.freeze({
  now: () => Date.now(),
  randomUUID: () => globalThis.crypto.randomUUID(),
})
