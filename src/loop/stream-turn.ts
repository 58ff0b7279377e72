import type { ModelCallRequest } from '../core/effects'
import type { Timer } from '../core/timer'
import type { StreamDeltaContext } from '../hooks/run-hooks'
import type { StreamOptions, TurnResult } from '../providers/types'
import type { RunContext } from './run-context'
import type { WatchdogKind } from './watchdog'
import { startTimer, timerNow } from '../core/timer'
import { debugLog } from '../debug'
import {
  AgentBudgetExceededError,
  AgentContextExceededError,
  AgentProviderError,
  ClassifiedError,
  DurablePayloadTooLargeError,
  OperationTimeoutError,
} from '../errors'
import { callHookBounded, fireHook, hasHookHandlers } from '../hooks/bus'
import { contextFromBase, extendContext } from '../hooks/context'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'
import { backoffDelay, resolveRetry } from './backoff'
import { startStreamWatchdog } from './watchdog'

/** The request of one turn, before the signal is attached. */
export type TurnRequest = Omit<StreamOptions, 'signal'>

/** How a provider call is observed. */
export interface StreamCallOptions {
  /**
   * A side call (`run.complete`): it runs under the same watchdogs, retries
   * and fallbacks as a turn, but fires no stream hook and does not count as
   * the run's first signal. What it streamed reached nobody, so a failed
   * attempt may be replayed even after text arrived.
   */
  readonly sideCall?: boolean
  /** What a side call is for (`CompletionRequest.purpose`), handed to the effects with each attempt. */
  readonly purpose?: string
}

/** What one provider attempt streamed before it ended. */
interface AttemptProgress {
  /** Text or a tool call reached the caller: replaying now would duplicate output. */
  contentStreamed: boolean
  /** A server-side tool (web search, code execution) ran: replaying would run it again. */
  serverToolRan: boolean
  thinking: string
  firstSignalAtMs?: number
  /** Told once, when the first chunk arrives (`ModelCallRequest.onFirstChunk`). */
  onFirstChunk?: () => void
}

/** A finished turn plus the timing the loop records on its usage. */
export interface StreamedTurn {
  result: TurnResult
  timeToFirstTokenMs?: number
  streamDurationMs: number
}

/**
 * What an attempt's caller learns besides its result or its error: when the
 * first signal came, and what streamed before a failure. Kept beside the
 * result (or error) object, so effects that record an attempt and hand it
 * back on a replay (a durable journal) can record and restore them too.
 */
export interface AttemptFacts {
  firstSignalAtMs?: number
  contentStreamed: boolean
  serverToolRan: boolean
  thinking: string
}

const attemptFacts = new WeakMap<object, AttemptFacts>()

/** The facts of the attempt that produced `outcome` (a `TurnResult` or a thrown error), if it was one. */
export function factsOfAttempt(outcome: unknown): AttemptFacts | undefined {
  return typeof outcome === 'object' && outcome !== null ? attemptFacts.get(outcome) : undefined
}

/** Attach an attempt's facts to an outcome rebuilt from a record. */
export function attachAttemptFacts(outcome: object, facts: AttemptFacts): void {
  attemptFacts.set(outcome, facts)
}

function keepFacts(outcome: unknown, progress: AttemptProgress): void {
  if (typeof outcome === 'object' && outcome !== null)
    attemptFacts.set(outcome, { ...progress })
}

/** An outcome handed back without its attempt running: take its recorded facts. */
function takeFacts(outcome: unknown, progress: AttemptProgress): void {
  const facts = factsOfAttempt(outcome)
  if (facts)
    Object.assign(progress, facts)
}

/**
 * Errors of turns that failed after text, a tool call or a server-side tool
 * had streamed. The fallback chain must not replay such a turn on another
 * target: the caller has seen the output once already.
 */
const failedAfterOutput = new WeakSet<object>()

/** Whether `error` ended a turn that had already streamed output (see `streamTurn`). */
export function endedAfterOutput(error: unknown): boolean {
  return typeof error === 'object' && error !== null && failedAfterOutput.has(error)
}

/**
 * Stream one turn, retrying retryable failures (`behavior.retry`) while
 * nothing but reasoning has streamed and no server-side tool has run.
 * Returns `undefined` when the run was aborted; throws `AgentProviderError`
 * (or `AgentContextExceededError`, or a wall-clock `AgentBudgetExceededError`)
 * when the turn fails for good. An error thrown after output streamed is
 * marked so that no fallback replays the turn (`endedAfterOutput`).
 */
export async function streamTurn(run: RunContext, turnId: string, request: TurnRequest, options: StreamCallOptions = {}): Promise<StreamedTurn | undefined> {
  const retry = resolveRetry(run.behavior.retry)
  const observed = options.sideCall !== true
  const kind = observed ? 'turn' : 'side-call'
  const dispatchedAtMs = run.effects.now()
  for (let attempt = 1; ; attempt++) {
    const progress: AttemptProgress = { contentStreamed: false, serverToolRan: false, thinking: '' }
    try {
      if (observed && hasHookHandlers(run.hooks, 'stream:start'))
        await callStreamStart(run, turnId, request.model, attempt)
      const call: ModelCallRequest = {
        provider: run.provider.name,
        model: request.model,
        runId: run.runId,
        id: turnId,
        attempt,
        body: request,
        ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
        onFirstChunk: (listener) => {
          progress.onFirstChunk = listener
        },
      }
      const result = await run.effects.model(kind, call, () => streamAttempt(run, turnId, request, progress, observed).then((value) => {
        keepFacts(value, progress)
        return value
      }, (error: unknown) => {
        keepFacts(error, progress)
        throw error
      }))
      takeFacts(result, progress)
      if (observed && progress.firstSignalAtMs !== undefined)
        run.firstSignalAtMs ??= progress.firstSignalAtMs
      return {
        result,
        timeToFirstTokenMs: progress.firstSignalAtMs === undefined ? undefined : progress.firstSignalAtMs - dispatchedAtMs,
        streamDurationMs: run.effects.now() - dispatchedAtMs,
      }
    }
    catch (error) {
      if (run.signal.aborted)
        return undefined
      if (error instanceof AgentBudgetExceededError || error instanceof OperationTimeoutError || error instanceof DurablePayloadTooLargeError)
        throw error
      takeFacts(error, progress)
      const final = finalError(run, request.model, error, attempt, retry.maxAttempts, progress)
      if (final) {
        if (progress.contentStreamed || progress.serverToolRan)
          failedAfterOutput.add(final)
        throw final
      }
      const classified = error as ClassifiedError

      const delayMs = backoffDelay(attempt, retry, classified.retryAfterMs, run.effects.random)
      if (observed) {
        await callHookBounded(run.hooks, 'stream:retry', extendContext(runIds(run), {
          turnId,
          attempt: attempt + 1,
          error: classified,
          delayMs,
          discardedThinking: progress.thinking,
        }), { timeoutMs: hookTimeout(run), failClosed: false })
      }
      try {
        // A delay is a wait like the others: the `maxWallMs` cap cuts it (and ends the run).
        const sleeping = run.effects.sleep(delayMs, run.signal)
        await (run.wall ? run.wall.bound(sleeping) : sleeping)
      }
      catch {
        return undefined
      }
    }
  }
}

/** The error that ends the turn for good, or `undefined` when the attempt may be retried. */
function finalError(run: RunContext, model: string, error: unknown, attempt: number, maxAttempts: number, progress: AttemptProgress): Error | undefined {
  if (!(error instanceof ClassifiedError))
    return unclassifiedError(run, model, error, attempt)
  if (error.kind === 'context_exceeded')
    return new AgentContextExceededError(error.message, { provider: run.provider.name, model, cause: error })
  if (!error.retryable || progress.contentStreamed || progress.serverToolRan || attempt >= maxAttempts)
    return providerError(run, model, error, attempt)
  return undefined
}

async function callStreamStart(run: RunContext, turnId: string, model: string, attempt: number): Promise<void> {
  await callHookBounded(run.hooks, 'stream:start', extendContext(runIds(run), {
    turnId,
    provider: run.provider.name,
    model,
    attempt,
  }), { timeoutMs: hookTimeout(run), failClosed: true })
}

/**
 * One provider call under its watchdogs. The call is raced against its own
 * abort signal, so a provider that ignores the signal cannot hang the run.
 * `observed` is false for a side call: no stream hook fires, and nothing it
 * streams marks the attempt as seen by the caller.
 */
async function streamAttempt(run: RunContext, turnId: string, request: TurnRequest, progress: AttemptProgress, observed: boolean): Promise<TurnResult> {
  const ready = run.provider.prepare?.()
  if (ready)
    await providerReady(run, ready)
  const controller = new AbortController()
  // Only this function aborts the attempt, so it settles the race itself
  // instead of listening on the attempt's signal.
  let cancel!: (reason: unknown) => void
  const cancelled = new Promise<never>((_, reject) => {
    cancel = reject
  })
  const abortAttempt = (reason: unknown) => {
    controller.abort(reason)
    cancel(controller.signal.reason)
  }
  const forwardRunAbort = () => abortAttempt(run.signal.reason)
  if (run.signal.aborted)
    forwardRunAbort()
  else
    run.signal.addEventListener('abort', forwardRunAbort, { once: true })

  let firedBy: { kind: WatchdogKind, afterMs: number } | undefined
  const watchdog = startStreamWatchdog(watchdogLimits(run), (kind, afterMs) => {
    firedBy = { kind, afterMs }
    abortAttempt(new Error(`provider ${kind} watchdog fired`))
  })

  // Once this attempt is over, late callbacks from a provider that ignored the
  // abort must not reach hooks or the watchdogs (a retry may be streaming).
  let live = true
  const markSignal = () => {
    if (progress.firstSignalAtMs === undefined) {
      progress.firstSignalAtMs = run.effects.now()
      progress.onFirstChunk?.()
      if (observed)
        run.firstSignalAtMs ??= progress.firstSignalAtMs
    }
    watchdog.activity()
  }

  // Called through an async wrapper so a provider that throws synchronously
  // still lands in the race below, where the watchdog is cleared.
  const call = (async () => run.provider.stream(extendContext(request, { signal: controller.signal }), {
    onText(delta) {
      if (!live)
        return
      markSignal()
      if (!observed)
        return
      progress.contentStreamed = true
      if (hasHookHandlers(run.hooks, 'stream:text'))
        fireHook(run.hooks, 'stream:text', deltaContext(run, turnId, delta))
    },
    onThinking(delta) {
      if (!live)
        return
      progress.thinking += delta
      markSignal()
      if (observed && hasHookHandlers(run.hooks, 'stream:thinking'))
        fireHook(run.hooks, 'stream:thinking', deltaContext(run, turnId, delta))
    },
    onToolCallStart() {
      if (!live)
        return
      if (observed)
        progress.contentStreamed = true
      markSignal()
    },
    onToolCallDelta(call, delta) {
      if (!live)
        return
      watchdog.activity()
      if (observed && hasHookHandlers(run.hooks, 'stream:tool-input'))
        fireHook(run.hooks, 'stream:tool-input', { runId: run.runId, depth: run.depth, parentRunId: run.parentRunId, parentCallId: run.parentCallId, turnId, callId: call.id, name: run.tools.toCanonical(call.name), delta })
    },
    onServerToolUse() {
      if (!live)
        return
      progress.serverToolRan = true
      watchdog.activity()
    },
    onActivity() {
      if (!live)
        return
      watchdog.activity()
    },
    // Reported even after the attempt ended: the credentials changed whatever became of it.
    onOAuthRefresh: refresh => callHookBounded(run.hooks, 'oauth:refresh', refresh, { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(error => debugLog('oauth:refresh hook failed', error instanceof Error ? error.name : undefined)),
  }))()
  // The losing side of the race must not surface as an unhandled rejection.
  call.catch(() => {})
  cancelled.catch(() => {})

  try {
    return await Promise.race([call, cancelled])
  }
  catch (error) {
    if (firedBy)
      throw watchdogError(run, firedBy.kind, firedBy.afterMs)
    throw error
  }
  finally {
    live = false
    watchdog.clear()
    run.signal.removeEventListener('abort', forwardRunAbort)
  }
}

/**
 * Wait for a provider to load what its first request needs (an SDK imported
 * on first use), before the watchdogs start: that load is not the
 * provider's response time, so the start and idle limits do not count it.
 * The wait has bounds of its own: the whole-call limit
 * (`providerStreamTimeoutMs`), the run's signal and the `maxWallMs` cap. A
 * load that fails or is still going when one of them ends the wait is left
 * to the request, which reports it under its own watchdogs; a cap that cut
 * the wait has aborted the run, which the attempt then sees.
 */
async function providerReady(run: RunContext, ready: PromiseLike<void>): Promise<void> {
  const limitMs = run.behavior.providerStreamTimeoutMs ?? BEHAVIOR_DEFAULTS.providerStreamTimeoutMs
  const signal = run.signal
  if (signal.aborted)
    return
  let timer: Timer | undefined
  let stop = () => {}
  const gaveUp = new Promise<void>((resolve) => {
    stop = resolve
    if (limitMs > 0)
      timer = startTimer(limitMs, resolve)
    signal.addEventListener('abort', stop, { once: true })
  })
  const loaded = Promise.resolve(ready).then(() => {}, error => debugLog('the provider could not load before its first request', error))
  try {
    await Promise.race([run.wall ? run.wall.bound(loaded) : loaded, gaveUp])
  }
  catch {
    // Cut by the `maxWallMs` cap, which aborted the run.
  }
  finally {
    timer?.clear()
    signal.removeEventListener('abort', stop)
  }
}

/**
 * One per streamed delta: built on the bus's context prototype, which carries
 * `ctx.decide`, so the bus has nothing to define on it before the handlers run.
 */
function deltaContext(run: RunContext, turnId: string, delta: string): StreamDeltaContext {
  const ctx = contextFromBase(run.hooks)
  ctx.runId = run.runId
  ctx.depth = run.depth
  ctx.parentRunId = run.parentRunId
  ctx.parentCallId = run.parentCallId
  ctx.turnId = turnId
  ctx.delta = delta
  return ctx as unknown as StreamDeltaContext
}

function watchdogLimits(run: RunContext) {
  const b = run.behavior
  return {
    startMs: b.providerStreamStartTimeoutMs ?? BEHAVIOR_DEFAULTS.providerStreamStartTimeoutMs,
    idleMs: b.providerStreamIdleTimeoutMs,
    totalMs: b.providerStreamTimeoutMs ?? BEHAVIOR_DEFAULTS.providerStreamTimeoutMs,
    // In real time, like the watchdogs' own timers.
    wallDeadline: run.wall?.at,
  }
}

function watchdogError(run: RunContext, kind: WatchdogKind, afterMs: number): Error {
  if (kind === 'wall' && run.wall) {
    // Counted in real time, like every error of the wall-clock bounds.
    return new AgentBudgetExceededError('wallClock', run.wall.max, timerNow() - (run.wall.at - run.wall.max))
  }
  const what = kind === 'start' ? 'sent nothing' : kind === 'idle' ? 'went silent' : 'did not finish'
  return new ClassifiedError(`The provider stream ${what} within ${afterMs} ms`, {
    kind: 'timeout',
    retryable: true,
    provider: run.provider.name,
  })
}

function providerError(run: RunContext, model: string, error: ClassifiedError, attempts: number): AgentProviderError {
  return new AgentProviderError(`${run.provider.name} (${model}) failed: ${error.message}`, {
    kind: error.kind,
    status: error.status,
    provider: run.provider.name,
    model,
    url: error.url,
    attempts,
    cause: error,
  })
}

/** A provider threw something other than a `ClassifiedError` (a bug): not retried. */
function unclassifiedError(run: RunContext, model: string, error: unknown, attempts: number): AgentProviderError {
  const message = error instanceof Error ? error.message : String(error)
  return new AgentProviderError(`${run.provider.name} (${model}) failed: ${message}`, {
    kind: 'unknown',
    provider: run.provider.name,
    model,
    attempts,
    cause: error,
  })
}

export function hookTimeout(run: RunContext): number {
  return run.behavior.hookTimeoutMs ?? BEHAVIOR_DEFAULTS.hookTimeoutMs
}

export function runIds(run: RunContext) {
  return { runId: run.runId, depth: run.depth, parentRunId: run.parentRunId, parentCallId: run.parentCallId }
}
