/**
 * Background tasks on top of any context that can stream a command. The
 * manager lives in the host process: it copies the task's output into a log
 * file inside the context (capped, so an unattended dev server cannot fill
 * the disk), keeps a short tail in memory for `wait_task`, and watches for
 * silence. Tasks therefore outlive tool calls but not the host: `'ephemeral'`.
 */

import type { Timer } from '../core/timer'
import type {
  BackgroundTaskStatus,
  DetachedTasksCapability,
  ExecExit,
  ExecutionHandle,
  TaskEntry,
  TaskExitInfo,
  TaskHandle,
  TaskOutputTail,
  TaskStartOptions,
  TaskWaitOptions,
} from './types'
import { randomUUID } from 'node:crypto'
import { posix } from 'node:path'
import { startTimer } from '../core/timer'
import { debugLog } from '../debug'
import { truncateUtf8 } from '../text/truncate'
import { TailBuffer, tailOfText, Utf8Carry } from './output'
import { DEFAULT_KILL_GRACE_MS } from './process-group'
import { quoteShellArg } from './shell-quote'

/** Where a task's output is appended. */
export interface LogSink {
  /** Append bytes to the task's log. */
  write: (bytes: Uint8Array) => void
  /** Flush and close; the log is complete once this resolves. */
  close: () => Promise<void>
}

/** What the manager needs from a context. */
export interface TaskRuntime {
  cwd: string
  /** Make a path absolute against the context's working directory. */
  resolvePath: (path: string) => string
  /** Start one command in the background and hand back its handle. */
  start: (command: string, options: { cwd: string, env?: Record<string, string> }) => Promise<ExecutionHandle>
  /** Open the log file a task's output goes to. */
  openLog: (path: string) => Promise<LogSink>
  killGraceMs?: number
}

export interface TaskManager extends DetachedTasksCapability {
  /** Kill every running task and wait for their logs to close (context teardown). */
  killAll: () => Promise<void>
}

/** Bytes of recent output kept in memory per task. */
const TAIL_BYTES = 64 * 1024
const DEFAULT_TAIL_READ_BYTES = 16 * 1024
/** Finished tasks remembered for `list`/`wait`; older ones are forgotten first. */
const MAX_FINISHED_TASKS = 200

const encoder = new TextEncoder()

interface TaskRecord {
  entry: TaskEntry
  handle: ExecutionHandle
  sink: LogSink
  tail: TailBuffer
  cap?: number
  logged: number
  capped: boolean
  killRequested: boolean
  stallTimer?: Timer
  settled: Promise<TaskExitInfo>
}

/** Background tasks for a context that can start processes: logs, waits, kills and stall detection on top of the runtime's primitives. */
export function createTaskManager(runtime: TaskRuntime): TaskManager {
  const tasks = new Map<string, TaskRecord>()
  const graceMs = runtime.killGraceMs ?? DEFAULT_KILL_GRACE_MS

  function newId(): string {
    let id: string
    do id = `task-${randomUUID().slice(0, 8)}`
    while (tasks.has(id))
    return id
  }

  function forgetOldFinished(): void {
    const finished = [...tasks.values()].filter(record => record.entry.status !== 'running')
    for (const record of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_TASKS)))
      tasks.delete(record.entry.id)
  }

  function appendToLog(record: TaskRecord, bytes: Uint8Array): void {
    if (record.cap === undefined) {
      record.sink.write(bytes)
      return
    }
    if (record.capped) {
      record.entry.droppedBytes += bytes.length
      return
    }
    const room = record.cap - record.logged
    if (bytes.length <= room) {
      record.sink.write(bytes)
      record.logged += bytes.length
      return
    }
    const part = truncateUtf8(bytes, room)
    if (part.length > 0)
      record.sink.write(part)
    record.logged += part.length
    record.entry.droppedBytes += bytes.length - part.length
    record.capped = true
    record.sink.write(encoder.encode(`\n[output capped at ${record.cap} bytes: the task keeps running, further output is not logged]\n`))
  }

  function onOutput(record: TaskRecord, bytes: Uint8Array): void {
    if (bytes.length === 0)
      return
    record.entry.outputBytes += bytes.length
    record.entry.lastOutputAt = Date.now()
    record.stallTimer?.refresh()
    record.tail.push(bytes)
    appendToLog(record, bytes)
  }

  async function finish(record: TaskRecord, exit: ExecExit | Error): Promise<TaskExitInfo> {
    record.stallTimer?.clear()
    const info = exitInfo(record, exit)
    record.entry.status = info.status
    record.entry.exit = info
    if (exit instanceof Error)
      record.sink.write(encoder.encode(`\n[task failed: ${exit.message}]\n`))
    if (record.entry.droppedBytes > 0)
      record.sink.write(encoder.encode(`[output capped: ${record.entry.droppedBytes} bytes were not logged]\n`))
    await record.sink.close().catch(error => debugLog(`closing the log of ${record.entry.id} failed`, error))
    forgetOldFinished()
    return info
  }

  function exitInfo(record: TaskRecord, exit: ExecExit | Error): TaskExitInfo {
    const durationMs = Date.now() - record.entry.startedAt
    if (exit instanceof Error)
      return { status: 'failed', exitCode: null, signal: null, durationMs }
    const status: BackgroundTaskStatus = record.killRequested || exit.signal !== null ? 'killed' : 'exited'
    return { status, exitCode: exit.exitCode, signal: exit.signal, durationMs }
  }

  function armStallWatchdog(record: TaskRecord, options: TaskStartOptions): void {
    const { stallAfterMs, onStall } = options
    if (!onStall || stallAfterMs === undefined || !(stallAfterMs > 0))
      return
    // One timer per task, pushed back by `refresh()` on output; after firing it
    // stays idle until fresh output re-arms it, so a silent task reports once.
    record.stallTimer = startTimer(stallAfterMs, () => {
      if (record.entry.status !== 'running')
        return
      try {
        onStall({
          taskId: record.entry.id,
          command: record.entry.command,
          logPath: record.entry.logPath,
          silentMs: Date.now() - record.entry.lastOutputAt,
          lastOutputAt: record.entry.lastOutputAt,
        })
      }
      catch (error) {
        debugLog(`stall handler for ${record.entry.id} threw`, error)
      }
    }).unref()
  }

  async function start(options: TaskStartOptions): Promise<TaskHandle> {
    const id = newId()
    const logPath = runtime.resolvePath(posix.join(options.logDir, `${id}.log`))
    const cwd = options.cwd === undefined ? runtime.cwd : runtime.resolvePath(options.cwd)
    const sink = await runtime.openLog(logPath)
    let handle: ExecutionHandle
    try {
      handle = await runtime.start(options.command, { cwd, env: options.env })
    }
    catch (error) {
      sink.write(encoder.encode(`[task failed to start: ${error instanceof Error ? error.message : String(error)}]\n`))
      await sink.close().catch(() => {})
      throw error
    }
    const now = Date.now()
    const record: TaskRecord = {
      entry: { id, command: options.command, cwd, logPath, pid: handle.pid, status: 'running', startedAt: now, lastOutputAt: now, outputBytes: 0, droppedBytes: 0 },
      handle,
      sink,
      tail: new TailBuffer(TAIL_BYTES),
      cap: options.outputCap !== undefined && options.outputCap >= 0 ? options.outputCap : undefined,
      logged: 0,
      capped: false,
      killRequested: false,
      settled: undefined as unknown as Promise<TaskExitInfo>,
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      const carry = new Utf8Carry()
      handle[stream].on('data', (chunk: Uint8Array) => onOutput(record, carry.take(chunk)))
      handle[stream].on('end', () => {
        const rest = carry.flush()
        if (rest)
          onOutput(record, rest)
      })
    }
    handle.stdin.on('error', () => {})
    handle.stdin.end()
    record.settled = handle.wait().then(exit => finish(record, exit), error => finish(record, error instanceof Error ? error : new Error(String(error))))
    armStallWatchdog(record, options)
    tasks.set(id, record)
    return {
      id,
      logPath,
      pid: handle.pid,
      entry: () => ({ ...record.entry }),
      wait: waitOptions => waitFor(record, waitOptions),
      kill: async (signal) => {
        await killRecord(record, signal)
      },
    }
  }

  async function waitFor(record: TaskRecord, options: TaskWaitOptions = {}): Promise<TaskExitInfo | undefined> {
    if (options.signal?.aborted)
      return record.entry.exit
    const stops: Promise<undefined>[] = []
    const cleanups: (() => void)[] = []
    if (options.timeoutMs !== undefined) {
      stops.push(new Promise((resolve) => {
        const timer = startTimer(options.timeoutMs!, () => resolve(undefined))
        cleanups.push(() => timer.clear())
      }))
    }
    if (options.signal) {
      const signal = options.signal
      stops.push(new Promise((resolve) => {
        const onAbort = () => resolve(undefined)
        signal.addEventListener('abort', onAbort, { once: true })
        cleanups.push(() => signal.removeEventListener('abort', onAbort))
      }))
    }
    try {
      return await Promise.race([record.settled, ...stops])
    }
    finally {
      for (const cleanup of cleanups) cleanup()
    }
  }

  async function killRecord(record: TaskRecord, signal?: NodeJS.Signals): Promise<void> {
    if (record.entry.status !== 'running')
      return
    record.killRequested = true
    record.handle.kill(signal)
    // The group gets SIGKILL after the grace period; allow for the logs to close.
    await waitFor(record, { timeoutMs: graceMs + 3_000 })
  }

  return {
    start,
    list: async () => Array.from(tasks.values(), record => ({ ...record.entry })),
    get: async (id) => {
      const record = tasks.get(id)
      return record && { ...record.entry }
    },
    kill: async (id, signal) => {
      const record = tasks.get(id)
      if (!record)
        return false
      await killRecord(record, signal)
      return true
    },
    wait: async (id, options) => {
      const record = tasks.get(id)
      return record && waitFor(record, options)
    },
    tail: async (id, maxBytes = DEFAULT_TAIL_READ_BYTES): Promise<TaskOutputTail | undefined> => {
      const record = tasks.get(id)
      if (!record)
        return undefined
      const kept = record.tail.text()
      const cut = tailOfText(kept.text, maxBytes)
      return { text: cut.text, droppedBytes: kept.droppedBytes + cut.droppedBytes }
    },
    killAll: async () => {
      await Promise.all(Array.from(tasks.values(), record => killRecord(record)))
    },
  }
}

/** A log sink for contexts without host file access: `cat >> log` running inside the context. */
export async function openStreamedLog(execStream: (command: string) => Promise<ExecutionHandle>, path: string): Promise<LogSink> {
  const handle = await execStream(`mkdir -p ${quoteShellArg(posix.dirname(path))} && cat >> ${quoteShellArg(path)}`)
  handle.stdout.resume()
  handle.stderr.resume()
  handle.stdin.on('error', error => debugLog(`log writer for ${path} failed`, error))
  return {
    write: bytes => void handle.stdin.write(bytes),
    close: async () => {
      handle.stdin.end()
      await handle.wait()
    },
  }
}
