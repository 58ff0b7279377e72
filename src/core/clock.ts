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

/**
 * `crypto.randomUUID()` as one flat string. Node builds a UUID by adding its
 * hex pairs one at a time, which V8 keeps as a chain of about a dozen
 * concatenation nodes (some 500 bytes instead of 56); every turn and call id
 * lives as long as its session, so each one was kept that way and copied by
 * each young-generation collection it survived. `toLowerCase` flattens the
 * chain into a new string (a UUID is lowercase already, so the text is the
 * same) and the chain is left behind as garbage.
 */
export function flatUUID(): string {
  return globalThis.crypto.randomUUID().toLowerCase()
}

/** The default clock: `Date.now()` and `crypto.randomUUID()` (flattened, `flatUUID`). */
export const DEFAULT_AGENT_CLOCK: AgentClock = Object.freeze({
  now: () => Date.now(),
  randomUUID: flatUUID,
})
