/**
 * The durable runtime a run can be given (`AgentOptions.durable`): the
 * engine that keeps the run alive across process deaths. See docs/durable.md.
 */

/** Default `maxEntryBytes`: 4 MiB of JSON per journal entry. */
export const DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024

/**
 * A durable runtime: one implementation of the run's effects.
 *
 * - `'replay'`: an engine with a journal (Restate, or a host's own). Every
 *   step's result is journaled under its name; a re-executed run gets the
 *   journaled result back instead of running the step again. `now()` and
 *   `randomUUID()` must give the same values on a replay of the same
 *   invocation (read from the journal, or derived from it).
 * - `'checkpoint'`: no engine. The session store is the checkpoint (turns and
 *   the run state at each turn boundary), a run holds its session's lease,
 *   and a crashed, paused or suspended run is continued with `agent.resume()`.
 */
export interface DurableRuntime {
  readonly mode: 'replay' | 'checkpoint'
  /**
   * Run `fn` once per name: on a replay, resolve with what it resolved with
   * the first time. The value is plain JSON. `fn` must not call `step`.
   */
  step: <T>(name: string, fn: () => Promise<T>) => Promise<T>
  /**
   * Optional, `'replay'` mode: a wait between steps (a retry's backoff) on
   * the engine's own timer, under a step-like name. The engine keeps it
   * across a re-execution and can end it early, as Restate does when the
   * invocation is cancelled; `signal` ends it too. Without it a wait is
   * journaled as its deadline and waited in the process, where the engine
   * cannot reach it.
   */
  sleep?: (name: string, ms: number, signal?: AbortSignal) => Promise<void>
  /** Epoch milliseconds, replay-stable in `'replay'` mode. */
  now: () => number
  /** A UUID, replay-stable in `'replay'` mode. */
  randomUUID: () => string
  /** Largest journal entry, in bytes of JSON. Default 4 MiB (`DEFAULT_MAX_ENTRY_BYTES`). */
  readonly maxEntryBytes?: number
  /** Checkpoint runs: how often the session lease is renewed (the run's `leaseRenewMs` wins). Default 60 s. */
  readonly leaseRenewMs?: number
}

/** The durable mode of a run, when it has a runtime. */
export type DurableMode = DurableRuntime['mode']
