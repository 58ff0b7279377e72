/** Execution: how many tools run at once, and the bounds on the execution context's spawn and teardown. */

import type { ToolCall, ToolResult } from '../providers/types'
import type { KnobCheck } from './define'
import { defineKnobs, isFunction, isLimit } from './define'

/**
 * One turn's tool calls, handed to a host's `toolBatchExecutor`. `calls` are
 * in the model's order, named as hooks name them (canonical names). `execute`
 * answers one call through the whole call pipeline (gates, validation, hooks,
 * the tool, transforms) and never rejects for a call of this batch; calling it
 * twice for one call runs it once. `signal` aborts with the run, and when
 * `toolBatchTimeoutMs` passes.
 */
export interface ToolBatch {
  /** The turn's calls, in the model's order, under their canonical names. */
  readonly calls: readonly ToolCall[]
  /** Answer one call through the whole call pipeline (gates, validation, hooks, the tool); it never rejects for a call of the batch. */
  readonly execute: (call: ToolCall) => Promise<ToolResult>
  /** Aborts with the run, and when `toolBatchTimeoutMs` passes. */
  readonly signal: AbortSignal
  /** The run the turn belongs to. */
  readonly runId: string
  /** The turn whose calls these are. */
  readonly turnId: string
}

/**
 * A host scheduler for a turn's tool calls (a queue, a worker pool, a rate
 * limiter). Its results are paired with the calls by `callId` and put back in
 * the model's order, whatever order they come in; see docs/chat.md.
 */
export type ToolBatchExecutor = (batch: ToolBatch) => Promise<ToolResult[]>

/** Tool concurrency and execution-context watchdogs. */
export interface ExecutionKnobs {
  /** Concurrency-safe tools in flight at once within a turn. Default 10; values below 1 become 1. */
  maxConcurrentTools?: number
  /** Bound on the execution context's first `spawn()`. Default 300000; `0` disables. */
  spawnTimeoutMs?: number
  /** Bound on the execution context's teardown in `agent.destroy()`. Default 30000; `0` disables. */
  destroyTimeoutMs?: number
  /** A host scheduler for each turn's calls, in place of the built-in one. Default: unset (the built-in scheduler). */
  toolBatchExecutor?: ToolBatchExecutor
  /** Bound on a custom `toolBatchExecutor`: past it the batch's signal aborts and unanswered calls get error results. Default off (`0` / unset). */
  toolBatchTimeoutMs?: number
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
  toolBatchExecutor: { doc: 'A host scheduler for each turn\'s tool calls; results are paired by call id and kept in call order.', defaultLabel: 'unset', check: isFunction },
  toolBatchTimeoutMs: { doc: 'Bound on a custom `toolBatchExecutor` only: unanswered calls get error results and its signal aborts.', defaultLabel: 'off', check: isLimit },
})
