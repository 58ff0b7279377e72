/**
 * The host side of the codemode sandbox: a small pool of worker threads, each
 * running one script at a time in a fresh QuickJS VM (`worker-main.ts`). The
 * VM never runs on the agent's thread, so a busy script cannot block its
 * event loop; the time limit and an abort set a shared flag the VM's
 * interrupt handler reads, and a worker that does not answer within a grace
 * period is terminated.
 */

import type { QuickJsEngine } from './quickjs-runtime'
import type { CallMessage, DoneMessage, FromWorker, ScriptEnd, ScriptLimits, StopReasonCode, ToWorker } from './worker-protocol'
import { setMaxListeners } from 'node:events'
import { Worker } from 'node:worker_threads'
import { mergeObjects } from '../../core/merge-objects'
import { startTimer, timerNow } from '../../core/timer'
import { PRELUDE, SCRIPT_FILE, wrapScript } from './prelude'
import { loadQuickJs } from './quickjs-runtime'
import { sandboxWorkerMain } from './worker-main'

/** Fixed bounds of one script. */
export const SANDBOX_LIMITS = Object.freeze({
  /** Characters of a script's source. */
  maxCodeChars: 200_000,
  /** Nested calls (tools, searches, descriptions) one script may make. */
  maxCalls: 1000,
  /** Nested calls of one script answered at the same time; the rest wait their turn. */
  maxCallsInFlight: 16,
  /**
   * Native stack of a worker thread, in MiB. QuickJS's own guard
   * (`MAX_STACK_SIZE`) must trip before the thread's stack runs out: with
   * Node's default (4 MiB), a deep `JSON.stringify`, `JSON.parse` or source
   * overflowed the thread first, an error no script could catch.
   */
  workerStackMb: 16,
  /** How long a stopped worker has to confirm before it is terminated. */
  stopGraceMs: 1000,
  /** Idle workers kept for the next script. */
  maxIdleWorkers: 2,
  /** Workers alive at once; a script past it waits for one. */
  maxWorkers: 8,
  script: {
    maxPrintChars: 40_000,
    maxValueChars: 40_000,
    maxArgumentChars: 1_000_000,
    // Every call is recorded with its arguments in the session: without this, 1000 calls of 1 MB each made one turn too large to write.
    maxArgumentTotalChars: 4_000_000,
    maxProgressEvents: 1000,
    maxProgressChars: 2000,
  } satisfies ScriptLimits,
})

/** A nested request of a script, as the caller answers it. */
export interface SandboxCall {
  readonly kind: CallMessage['kind']
  readonly name: string
  /** JSON text of the arguments (`''` when none were given). */
  readonly input: string
  readonly line?: number
  /** Aborted when the script ends (time limit, abort, or done). */
  readonly signal: AbortSignal
}

/** The answer to a nested request: JSON text of a value, or an error the script can catch. */
export type SandboxAnswer = { readonly ok: true, readonly value: string } | { readonly ok: false, readonly message: string, readonly tool: string, readonly blocked: boolean }

export interface ScriptRequest {
  readonly code: string
  /** Names reachable as `tools.<name>`. */
  readonly names: readonly string[]
  readonly timeoutMs: number
  readonly memoryLimitBytes: number
  readonly signal: AbortSignal
  /** Answer a nested request; must not throw. */
  readonly onCall: (call: SandboxCall) => Promise<SandboxAnswer>
  /** Each print as it happens; without it, prints are only collected. */
  readonly onPrint?: (text: string, line: number | undefined) => void
}

/** How a script went. */
export interface ScriptOutcome {
  readonly end: ScriptEnd
  readonly printed: readonly string[]
  readonly droppedLines: number
  readonly valueCut: boolean
  /** Milliseconds until the script's VM was ready (0 when it never was). */
  readonly startMs: number
  /** Nested requests the script made. */
  readonly calls: number
}

interface PooledWorker {
  readonly worker: Worker
  /** Settles when the worker has loaded the engine (a script's time starts then), or failed to. */
  readonly ready: Promise<void>
  listener?: (message: FromWorker) => void
  onExit?: (reason: string) => void
  exited: boolean
}

const idle: PooledWorker[] = []
let live = 0
const waiting: (() => void)[] = []
let nextScriptId = 0

function spawn(engine: QuickJsEngine): PooledWorker {
  const source = [
    `import { parentPort, workerData } from 'node:worker_threads'`,
    `import * as quickjs from ${JSON.stringify(engine.moduleUrl)}`,
    // A transpiler that keeps function names (tsx, some bundlers) calls this helper inside the function's text.
    `const __name = (target) => target`,
    `;(${sandboxWorkerMain.toString()})({ port: parentPort, quickjs, wasm: workerData.wasm })`,
  ].join('\n')
  // No inherited flags: a loader the host runs under (`--import tsx`) or an inspector port is not the sandbox's.
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
    workerData: { wasm: engine.wasm },
    execArgv: [],
    resourceLimits: { stackSizeMb: SANDBOX_LIMITS.workerStackMb },
  })
  let markReady: () => void = () => {}
  let markFailed: (error: Error) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    markFailed = reject
  })
  const pooled: PooledWorker = { worker, ready, exited: false }
  live++
  worker.on('message', (message: FromWorker) => {
    if (message.type === 'ready')
      markReady()
    else
      pooled.listener?.(message)
  })
  worker.on('error', (error) => {
    markFailed(error)
    pooled.onExit?.(`the sandbox failed: ${error.message}`)
  })
  worker.on('exit', () => {
    markFailed(new Error('the sandbox stopped before it was ready'))
    if (!pooled.exited) {
      pooled.exited = true
      live--
      const index = idle.indexOf(pooled)
      if (index >= 0)
        idle.splice(index, 1)
      waiting.shift()?.()
    }
    pooled.onExit?.('the sandbox stopped unexpectedly')
  })
  // Kept referenced while it starts and while it runs a script (a script's caller is waiting); idle, it is unreferenced.
  return pooled
}

async function acquire(signal: AbortSignal): Promise<PooledWorker> {
  const engine = await loadQuickJs()
  for (;;) {
    if (signal.aborted)
      throw signal.reason
    const reused = idle.pop()
    if (reused)
      return reused
    if (live < SANDBOX_LIMITS.maxWorkers) {
      const spawned = spawn(engine)
      try {
        await spawned.ready
      }
      catch (error) {
        void spawned.worker.terminate()
        throw error
      }
      return spawned
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        wake: () => {
          signal.removeEventListener('abort', waiter.abort)
          resolve()
        },
        // An aborted waiter leaves the queue: left in it, it would take the wake-up of the next worker freed.
        abort: () => {
          const index = waiting.indexOf(waiter.wake)
          if (index >= 0)
            waiting.splice(index, 1)
          reject(signal.reason)
        },
      }
      waiting.push(waiter.wake)
      signal.addEventListener('abort', waiter.abort, { once: true })
    })
  }
}

function release(pooled: PooledWorker, healthy: boolean): void {
  pooled.listener = undefined
  pooled.onExit = undefined
  pooled.worker.unref()
  if (healthy && !pooled.exited && idle.length < SANDBOX_LIMITS.maxIdleWorkers) {
    idle.push(pooled)
    waiting.shift()?.()
    return
  }
  void pooled.worker.terminate()
}

function stoppedEnd(reason: StopReasonCode): ScriptOutcome {
  return { end: { kind: 'stopped', reason }, printed: [], droppedLines: 0, valueCut: false, startMs: 0, calls: 0 }
}

/** Run one script to its end. Never rejects: every failure is an outcome. */
export async function runScript(request: ScriptRequest): Promise<ScriptOutcome> {
  if (request.signal.aborted)
    return stoppedEnd(2)
  let pooled: PooledWorker
  try {
    pooled = await acquire(request.signal)
  }
  catch (error) {
    if (request.signal.aborted)
      return stoppedEnd(2)
    throw error
  }
  // Aborted while a worker started (not abortable itself): the abort listener below would never hear of it.
  if (request.signal.aborted) {
    release(pooled, true)
    return stoppedEnd(2)
  }
  return new Promise<ScriptOutcome>((resolve) => {
    const id = ++nextScriptId
    const flag = new SharedArrayBuffer(4)
    const view = new Int32Array(flag)
    const callsEnded = new AbortController()
    // Every call in flight links to it until answered: sixteen at once is the design, not a leak.
    setMaxListeners(SANDBOX_LIMITS.maxCallsInFlight + 10, callsEnded.signal)
    const queue: CallMessage[] = []
    let inFlight = 0
    let calls = 0
    let argumentChars = 0
    let settled = false
    let backstop: { clear: () => void } | undefined
    let timer: { clear: () => void } | undefined

    const post = (message: ToWorker) => {
      if (!settled)
        pooled.worker.postMessage(message)
    }
    // Set once `stop` exists; the listener is only added after that.
    let onAbort = (): void => {}
    const end = (outcome: ScriptOutcome, healthy: boolean) => {
      if (settled)
        return
      settled = true
      timer?.clear()
      backstop?.clear()
      request.signal.removeEventListener('abort', onAbort)
      callsEnded.abort(new Error('the script ended'))
      release(pooled, healthy)
      resolve(outcome)
    }
    const stop = (reason: StopReasonCode) => {
      if (settled || Atomics.load(view, 0) !== 0)
        return
      Atomics.store(view, 0, reason)
      pooled.worker.postMessage({ type: 'stop', id, reason } satisfies ToWorker)
      callsEnded.abort(new Error('the script was stopped'))
      backstop = startTimer(SANDBOX_LIMITS.stopGraceMs, () => end(mergeObjects(stoppedEnd(reason), { calls }), false))
    }
    const answer = async (call: CallMessage) => {
      inFlight++
      let reply: SandboxAnswer
      try {
        reply = await request.onCall({ kind: call.kind, name: call.name, input: call.input, ...(call.line === undefined ? {} : { line: call.line }), signal: callsEnded.signal })
      }
      catch (error) {
        reply = { ok: false, message: error instanceof Error ? error.message : String(error), tool: call.name, blocked: false }
      }
      inFlight--
      post({ type: 'reply', id, seq: call.seq, ...reply } as ToWorker)
      const next = queue.shift()
      if (next)
        void answer(next)
    }
    // The worker refuses calls past these limits before sending them; this is the host's own check.
    const onCall = (call: CallMessage) => {
      calls++
      argumentChars += call.input.length
      if (calls > SANDBOX_LIMITS.maxCalls || argumentChars > SANDBOX_LIMITS.script.maxArgumentTotalChars) {
        post({ type: 'reply', id, seq: call.seq, ok: false, message: `A script may make at most ${SANDBOX_LIMITS.maxCalls} calls, passing at most ${SANDBOX_LIMITS.script.maxArgumentTotalChars} characters of arguments in all.`, tool: call.name, blocked: true })
        return
      }
      if (inFlight >= SANDBOX_LIMITS.maxCallsInFlight)
        queue.push(call)
      else
        void answer(call)
    }
    pooled.listener = (message) => {
      if (message.id !== id || settled)
        return
      if (message.type === 'done')
        end(outcomeOf(message, calls), message.broken !== true)
      else if (message.type === 'print')
        request.onPrint?.(message.text, message.line)
      else if (message.type === 'call')
        onCall(message)
    }
    pooled.onExit = reason => end({ end: { kind: 'error', name: 'Error', message: reason }, printed: [], droppedLines: 0, valueCut: false, startMs: 0, calls }, false)
    onAbort = () => stop(2)
    timer = startTimer(request.timeoutMs, () => stop(1))
    request.signal.addEventListener('abort', onAbort, { once: true })
    pooled.worker.ref()
    post({
      type: 'run',
      id,
      prelude: PRELUDE,
      script: wrapScript(request.code),
      scriptFile: SCRIPT_FILE,
      names: JSON.stringify(request.names),
      flag,
      deadline: timerNow() + request.timeoutMs,
      memoryLimit: request.memoryLimitBytes,
      maxCalls: SANDBOX_LIMITS.maxCalls,
      limits: SANDBOX_LIMITS.script,
      progress: request.onPrint !== undefined,
    })
  })
}

function outcomeOf(message: DoneMessage, calls: number): ScriptOutcome {
  return { end: message.end, printed: message.printed, droppedLines: message.droppedLines, valueCut: message.valueCut, startMs: message.startMs, calls }
}
