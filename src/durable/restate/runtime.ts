/**
 * `restateRuntime(ctx)`: a replay-mode `DurableRuntime` on a Restate
 * context. Each step is one `ctx.run` entry holding the step's JSON value
 * (or the error it ended with) and the time it ended. Ids come from
 * `ctx.rand`, which Restate seeds from the invocation. The clock is
 * synchronous (the loop reads it while a stream is read) and replay-stable:
 * it starts at the invocation's journaled time (`ctx.date.now()`) and moves
 * to each step's journaled end time as the step settles, so a replay reads
 * the same times at the same points instead of the wall clock's.
 *
 * No Restate promise is left awaited between steps: on a replay, Restate
 * refuses an await it cannot answer from the journal, and between steps the
 * run awaits its own I/O (a session read, a hook). So the start time is
 * awaited by the first step, and a suspend request (the start runner's) is
 * raced with each step.
 *
 * A cancellation (Restate's admin API, or a caller's cancel) is delivered as
 * a `CancelledError` at whichever Restate promise the invocation awaits
 * next, here always a step. It is not that step's result: the step throws
 * `AgentAbortedError` instead, after `onCancel` has had the chance to abort
 * the agent, so the loop ends the run as aborted rather than handing the
 * cancellation to the model as a tool's error or failing the model call.
 */
import type { CancelledError, Context, RestatePromise, Serde } from '@restatedev/restate-sdk'
import type { DurableRuntime } from '../types'
import type { StepRecord } from './step-record'
import { untilAborted } from '../../core/until-aborted'
import { AgentAbortedError, DurablePayloadTooLargeError } from '../../errors'
import { DEFAULT_MAX_ENTRY_BYTES } from '../types'
import { restateSdk } from './sdk'
import { decodeStepError, encodeStepError } from './step-record'

/** Options of `restateRuntime`. */
export interface RestateRuntimeOptions {
  /**
   * The largest journal entry a step may write, in bytes of its JSON
   * (default 4 MiB). A larger value is refused with
   * `DurablePayloadTooLargeError` (an error result for a tool), and the
   * refusal is what the journal records, so a replay refuses it the same way.
   */
  maxEntryBytes?: number
  /**
   * Where the clock starts: `await ctx.date.now()` read by the caller.
   * Without it the runtime reads `ctx.date.now()` itself, and `now()` throws
   * `RestateClockError` until the first step has settled.
   */
  startedAt?: number
  /**
   * Called once, with Restate's `CancelledError`, when the invocation is
   * cancelled; the step that saw it then throws `AgentAbortedError`. Abort
   * the agent here (`agent.abort()`): a run that is not aborted takes the
   * thrown error for a tool's or a model's failure and goes on. Steps after
   * that one run normally (the aborted run still records its end), and the
   * handler should end by throwing the `CancelledError` (a terminal 409).
   */
  onCancel?: (error: CancelledError) => void
  /**
   * Called once when this attempt of the invocation is over while the run
   * still goes: it was killed, or the worker lost its connection (Restate
   * then runs the invocation again elsewhere, from its journal). Abort the
   * agent here, so a tool in flight sees its `ctx.signal` and stops: nothing
   * it does now is recorded. Every step after this throws
   * `AgentAbortedError` without running, so nothing more reaches the session
   * store or the model.
   */
  onAttemptEnd?: () => void
}

/** A request to stop, raced with each step: when it wins, `onRequest` runs once and the step is still awaited. */
export interface SuspendWatch {
  promise: RestatePromise<string>
  onRequest: (reason: string) => void
}

/** A serde that passes the step's JSON text through: it is measured once, written once. */
const JSON_TEXT: Serde<string> = {
  contentType: 'application/json',
  serialize: text => new TextEncoder().encode(text),
  deserialize: bytes => new TextDecoder().decode(bytes),
}

/** A `DurableRuntime` journaling through `ctx`. Use it in your own handler: `createAgent({ …, durable: restateRuntime(ctx, { startedAt: await ctx.date.now() }) })`. */
export function restateRuntime(ctx: Context, options: RestateRuntimeOptions = {}): DurableRuntime {
  return journalRuntime(ctx, options)
}

/** `restateRuntime`, with the start runner's suspend request raced with each step. */
export function journalRuntime(ctx: Context, options: RestateRuntimeOptions, suspend?: SuspendWatch): DurableRuntime {
  const sdk = restateSdk('restateRuntime')
  const maxEntryBytes = entryCap(options.maxEntryBytes)
  let clock = options.startedAt
  const startedAt = clock === undefined ? ctx.date.now() : undefined
  let watching = suspend
  let cancelled = false
  // Aborted once this attempt has ended (a kill, a lost connection): the handler's work goes nowhere after it.
  const attempt = ctx.request().attemptCompletedSignal
  if (options.onAttemptEnd && attempt && !attempt.aborted)
    attempt.addEventListener('abort', options.onAttemptEnd, { once: true })
  const attemptOver = () => new AgentAbortedError('The Restate invocation attempt is over (killed, or the worker lost its connection); nothing more runs in it')
  const refuseIfOver = () => {
    if (attempt?.aborted)
      throw attemptOver()
  }
  /**
   * Await a Restate promise until the attempt ends. After a kill the SDK
   * settles none of the attempt's promises: without this the handler would
   * wait for ever, holding its agent (and what the agent holds) for good.
   */
  const whileAttemptLasts = <T>(promise: Promise<T>): Promise<T> => attempt ? untilAborted(promise, attempt) : promise
  /** A failure of an awaited step or timer, as the run should see it. */
  const failureOf = (error: unknown): unknown => attempt?.aborted ? attemptOver() : abortIfCancelled(error)

  /** Journal the step and wait for its record, watching for a suspend request meanwhile. */
  async function settle<T>(name: string, fn: () => Promise<T>): Promise<string> {
    if (clock === undefined && startedAt)
      clock = await startedAt
    const entry = ctx.run(name, () => runStep(name, fn, maxEntryBytes), { serde: JSON_TEXT })
    if (watching) {
      const watch = watching
      const first = await sdk.RestatePromise.race([entry.map(() => undefined), watch.promise.map(reason => ({ reason: reason ?? '' }))])
      if (first) {
        watching = undefined
        watch.onRequest(first.reason)
      }
    }
    return await entry
  }

  /** A cancellation as the run's abort; any other failure as it is. */
  function abortIfCancelled(error: unknown): unknown {
    if (!(error instanceof sdk.CancelledError))
      return error
    // Restate delivers a cancellation once; the steps after this one run, so the aborted run can record its end.
    if (!cancelled) {
      cancelled = true
      options.onCancel?.(error)
    }
    return new AgentAbortedError('The Restate invocation was cancelled', { cause: error })
  }

  return {
    mode: 'replay',
    maxEntryBytes,
    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      refuseIfOver()
      let text: string
      try {
        text = await whileAttemptLasts(settle(name, fn))
      }
      catch (error) {
        throw failureOf(error)
      }
      const record = JSON.parse(text) as StepRecord
      clock = Math.max(clock ?? record.t, record.t)
      if ('e' in record)
        throw decodeStepError(record.e)
      return record.v as T
    },
    // A durable timer: a cancellation reaches a run waiting out a backoff at once, not at its next step.
    async sleep(name: string, ms: number, signal?: AbortSignal): Promise<void> {
      refuseIfOver()
      signal?.throwIfAborted()
      const timer = ctx.sleep(ms, name)
      try {
        await whileAttemptLasts(signal ? untilAborted(timer, signal) : timer)
      }
      catch (error) {
        throw failureOf(error)
      }
    },
    now: () => {
      if (clock === undefined)
        throw new RestateClockError()
      return clock
    },
    randomUUID: () => ctx.rand.uuidv4(),
  }
}

/** `now()` was read before the runtime had a journaled time. */
export class RestateClockError extends Error {
  override name = 'RestateClockError'
  constructor() {
    super('restateRuntime has no journaled time yet: create it with { startedAt: await ctx.date.now() }')
  }
}

/** Run the step and write its record; never throws, so Restate never retries a step the loop decides about. */
async function runStep<T>(name: string, fn: () => Promise<T>, maxEntryBytes: number): Promise<string> {
  let value: T
  try {
    value = await fn()
  }
  catch (error) {
    return JSON.stringify({ e: encodeStepError(error), t: Date.now() } satisfies StepRecord)
  }
  const text = JSON.stringify({ v: value ?? null, t: Date.now() } satisfies StepRecord)
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= maxEntryBytes)
    return text
  return JSON.stringify({ e: encodeStepError(new DurablePayloadTooLargeError(name, bytes, maxEntryBytes)), t: Date.now() } satisfies StepRecord)
}

function entryCap(value: number | undefined): number {
  if (value === undefined)
    return DEFAULT_MAX_ENTRY_BYTES
  if (!Number.isInteger(value) || value < 64)
    throw new RangeError(`maxEntryBytes must be an integer of at least 64 bytes, got ${value}`)
  return value
}
