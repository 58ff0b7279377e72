import type { RunEffects } from '../core/effects'

/** Options of `testEffects`. */
export interface TestEffectsOptions {
  /** Epoch milliseconds the time starts at. Default 0. */
  readonly start?: number
  /** Milliseconds the time moves on at each read. Default 0: time stands still. */
  readonly step?: number
  /** Seed of the random numbers; the same seed draws the same numbers. Default 1. */
  readonly seed?: number
}

/**
 * Effects that make a run repeat exactly: time starts at `start` and moves
 * `step` ms per read, ids are counted (`00000000-0000-4000-8000-000000000001`,
 * then `…002`), random numbers come from a generator seeded with `seed`, and
 * sleeps end at once (still rejecting when their signal aborts). Model calls,
 * tool executions and policy steps run as given. With the same script, two
 * runs on `createAgent({ effects: testEffects() })` record byte-identical
 * sessions, durations and retry delays included: with no clock of its own,
 * the agent takes its turn ids and timestamps from these effects too.
 *
 * Only what the run measures and records is virtual: the timers that bound
 * real waits (stream watchdogs, the wall-clock bounds) still count real time.
 */
export function testEffects(options: TestEffectsOptions = {}): RunEffects {
  const step = options.step ?? 0
  let time = options.start ?? 0
  let ids = 0
  const random = seededRandom(options.seed ?? 1)
  return {
    now: () => {
      const read = time
      time += step
      return read
    },
    id: () => countedId(++ids),
    random,
    sleep: async (_ms, signal) => {
      if (signal?.aborted)
        throw signal.reason
    },
    model: (_kind, _request, exec) => exec(),
    tool: (_call, exec) => exec(),
    step: (_name, exec) => exec(),
  }
}

/** The `n`-th counted id, shaped like a v4 UUID so code that checks the shape accepts it. */
function countedId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}

/**
 * Numbers in [0, 1) from a 32-bit xorshift generator. The seed is scrambled
 * first (a zero state would stay zero), so nearby seeds draw unrelated numbers.
 */
function seededRandom(seed: number): () => number {
  let state = Math.imul((seed | 0) ^ 0x9E3779B9, 0x85EBCA6B) >>> 0
  if (state === 0)
    state = 0x6D2B79F5
  return () => {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state / 2 ** 32
  }
}
