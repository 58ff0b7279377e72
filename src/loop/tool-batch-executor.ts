import type { ToolResultBlock } from '../core/content'
import type { ToolBatch, ToolBatchExecutor } from '../knobs/execution-knobs'
import type { ToolCall, ToolResult } from '../providers/types'
import type { PreparedCall } from './call-resolve'
import type { RunContext } from './run-context'
import { startTimer } from '../core/timer'
import { debugLog } from '../debug'
import { abortedMessage, errorMessage } from './call-answer'
import { answerCall } from './call-pipeline'
import { checkToolOutput } from './tool-output-check'

/**
 * A turn's calls answered by the host's `toolBatchExecutor` instead of the
 * built-in scheduler. The batch gate has already run (`gateCalls`); every
 * `execute(call)` then takes the rest of the call pipeline (`answerCall`).
 *
 * Pairing, whatever the executor returns:
 * - results are matched to calls by `callId` and put back in the model's
 *   order; with two calls under one id (a provider that repeats ids), the
 *   n-th result with that id answers the n-th call;
 * - a call that went through `execute` is answered with what the pipeline
 *   produced (its duration, metadata and nested calls included), even when
 *   the executor returns something else for it or leaves it out: the tool
 *   ran, and the model must see what it did;
 * - a result for a call the executor never executed is the host's answer
 *   (checked like any tool output); a result naming no call of the batch, or
 *   one more than the batch has under that id, is dropped (logged with
 *   `ZIDANE_DEBUG`);
 * - a call left without an answer gets an error result saying it did not
 *   run; a rejecting executor leaves every unanswered call with its error.
 *
 * `toolBatchTimeoutMs` bounds the executor (and only it): when it passes,
 * or when the run is aborted, the batch's signal aborts, the wait ends at
 * once, calls already answered by the pipeline keep their answers and every
 * other call gets an error result, so each tool_use stays paired.
 */
export async function answerWithExecutor(
  run: RunContext,
  turnId: string,
  prepared: readonly PreparedCall[],
  executor: ToolBatchExecutor,
): Promise<ToolResultBlock[]> {
  const controller = new AbortController()
  const stopWaiting = deferred()
  const onRunAbort = () => {
    controller.abort(run.signal.reason)
    stopWaiting.resolve('aborted')
  }
  if (run.signal.aborted)
    onRunAbort()
  else
    run.signal.addEventListener('abort', onRunAbort, { once: true })
  const limit = run.behavior.toolBatchTimeoutMs ?? 0
  const timer = limit > 0
    ? startTimer(limit, () => {
        controller.abort(new Error(`the tool batch executor did not finish within ${limit}ms`))
        stopWaiting.resolve('timeout')
      })
    : undefined

  // Each call answers to the batch's signal: a timeout cuts the tools still running.
  for (const call of prepared) call.signal = controller.signal
  const calls = prepared.map(call => Object.freeze({ id: call.base.callId, name: call.base.name, input: call.base.input }))
  const indexOf = new Map<ToolCall, number>(calls.map((call, index) => [call, index]))
  const running: (Promise<ToolResultBlock> | undefined)[] = []
  const answered: (ToolResultBlock | undefined)[] = []

  let closed = false
  const execute = (call: ToolCall): Promise<ToolResult> => {
    // The turn's results are recorded: a call started now would run with no one to read its answer.
    if (closed)
      return Promise.reject(new Error('This tool batch is over; its results are already recorded'))
    const index = indexOf.get(call) ?? calls.findIndex(candidate => candidate.id === call?.id)
    if (index === -1)
      return Promise.reject(new TypeError(`No call "${String(call?.id)}" in this tool batch`))
    running[index] ??= answerCall(run, prepared[index]).then(({ result }) => {
      answered[index] = result
      return result
    })
    return running[index].then(toToolResult)
  }

  const batch: ToolBatch = Object.freeze({ calls: Object.freeze(calls), execute, signal: controller.signal, runId: run.runId, turnId })
  const outcome: BatchOutcome = {}
  try {
    const work = Promise.resolve().then(() => executor(batch)).then(
      (value) => {
        outcome.returned = { value }
      },
      (error) => {
        outcome.failed = { error }
      },
    )
    outcome.cut = await Promise.race([work.then(() => undefined), stopWaiting.promise])
    // What `execute` still runs after the executor returned is awaited, bounded like the executor.
    const pending = running.filter((work, index) => work !== undefined && answered[index] === undefined)
    if (outcome.cut === undefined && pending.length > 0)
      outcome.cut = await Promise.race([Promise.all(pending).then(() => undefined), stopWaiting.promise])
  }
  finally {
    closed = true
    timer?.clear()
    run.signal.removeEventListener('abort', onRunAbort)
    // Anything still running for this batch (cut by the timeout or the executor's failure) stops now.
    if (!controller.signal.aborted)
      controller.abort(new Error('the tool batch is over'))
  }

  const hostResults = outcome.returned ? pairResults(calls, outcome.returned.value) : []
  return prepared.map((call, index): ToolResultBlock => {
    const done = answered[index]
    if (done)
      return done
    const callId = call.base.callId
    const host = hostResults[index]
    if (host && running[index] === undefined)
      return hostAnswer(callId, call.base.displayName, host)
    return { type: 'tool_result', callId, output: missingMessage(run, outcome, running[index] !== undefined), isError: true, durationMs: 0 }
  })
}

/** How the wait for the executor ended. */
interface BatchOutcome {
  returned?: { value: unknown }
  failed?: { error: unknown }
  /** The run was aborted, or `toolBatchTimeoutMs` passed, before everything was answered. */
  cut?: 'aborted' | 'timeout'
}

/** The executor's results matched to the calls, by id and then by order under one id. */
function pairResults(calls: readonly ToolCall[], value: unknown): (ToolResult | undefined)[] {
  const paired: (ToolResult | undefined)[] = []
  if (!Array.isArray(value)) {
    debugLog('tool batch executor returned no array', value)
    return paired
  }
  for (const result of value as unknown[]) {
    const callId = typeof result === 'object' && result !== null ? (result as { callId?: unknown }).callId : undefined
    const index = typeof callId === 'string' ? calls.findIndex((call, at) => call.id === callId && paired[at] === undefined) : -1
    if (index === -1) {
      debugLog('tool batch executor result dropped (unknown, duplicate or malformed call id)', callId)
      continue
    }
    paired[index] = result as ToolResult
  }
  return paired
}

/** A result the host made for a call it never executed, checked like any tool output. */
function hostAnswer(callId: string, displayName: string, result: ToolResult): ToolResultBlock {
  const checked = checkToolOutput(result.output, displayName)
  const isError = result.isError === true || checked.isError === true
  return { type: 'tool_result', callId, output: checked.output, ...(isError ? { isError: true } : {}), durationMs: 0 }
}

function missingMessage(run: RunContext, outcome: BatchOutcome, started: boolean): string {
  const stage = started ? 'It was started but did not finish.' : 'It did not run.'
  if (outcome.cut === 'aborted')
    return abortedMessage(run, started)
  if (outcome.cut === 'timeout')
    return `Error: the tool batch executor did not finish within ${run.behavior.toolBatchTimeoutMs}ms. ${stage}`
  if (outcome.failed)
    return `Error: the tool batch executor failed (${errorMessage(outcome.failed.error)}). ${stage}`
  return `Error: the tool batch executor returned no result for this call. ${stage}`
}

function toToolResult(block: ToolResultBlock): ToolResult {
  return block.isError ? { callId: block.callId, output: block.output, isError: true } : { callId: block.callId, output: block.output }
}

function deferred(): { promise: Promise<'aborted' | 'timeout'>, resolve: (kind: 'aborted' | 'timeout') => void } {
  let resolve!: (kind: 'aborted' | 'timeout') => void
  const promise = new Promise<'aborted' | 'timeout'>((done) => {
    resolve = done
  })
  return { promise, resolve }
}
