/** Execution: how many tools run at once, and the bounds on the execution context's spawn and teardown. */

import type { KnobCheck } from './define'
import { defineKnobs, isLimit } from './define'

/** Tool concurrency and execution-context watchdogs. */
export interface ExecutionKnobs {
  /** Concurrency-safe tools in flight at once within a turn. Default 10; values below 1 become 1. */
  maxConcurrentTools?: number
  /** Bound on the execution context's first `spawn()`. Default 300000; `0` disables. */
  spawnTimeoutMs?: number
  /** Bound on the execution context's teardown in `agent.destroy()`. Default 30000; `0` disables. */
  destroyTimeoutMs?: number
}

/** Defaults of the execution slice. */
export const EXECUTION_DEFAULTS = Object.freeze({
  maxConcurrentTools: 10,
  spawnTimeoutMs: 300_000,
  destroyTimeoutMs: 30_000,
} satisfies ExecutionKnobs)

// Any number: values below 1, and NaN, run the calls one at a time.
const concurrency: KnobCheck = value => typeof value === 'number' ? undefined : { path: '', expected: 'a number (values below 1 become 1)' }

/** The execution slice. */
export const EXECUTION_KNOBS = defineKnobs<ExecutionKnobs, typeof EXECUTION_DEFAULTS>('execution', EXECUTION_DEFAULTS, {
  maxConcurrentTools: { doc: 'Concurrency-safe calls of one turn in flight at once; values below 1 become 1.', check: concurrency },
  spawnTimeoutMs: { doc: 'Bound on the execution context\'s first `spawn()`; a lower `maxWallMs` wins.', check: isLimit },
  destroyTimeoutMs: { doc: 'Bound on each teardown step of `agent.destroy()`.', check: isLimit },
})
