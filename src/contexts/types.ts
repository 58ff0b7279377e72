/**
 * Execution contexts: where the agent's tools run commands and touch files.
 * Every built-in tool goes through one of these instead of the host, so the
 * same agent can work on the local machine (`process`), in a container
 * (`docker`) or in a remote sandbox (`sandbox`) without changing a tool.
 *
 * Paths are strings in the context's own namespace (POSIX inside docker and
 * sandboxes); relative paths resolve against `cwd`.
 */

import type { Readable, Writable } from 'node:stream'

/** Which kind of context this is; custom contexts may use their own name. */
export type ContextType = 'process' | 'docker' | 'sandbox' | (string & {})

/**
 * How background tasks behave. `'none'`: no detached tasks. `'ephemeral'`:
 * tasks outlive the tool call that started them but die with the host
 * process (or the context). `'durable'`: tasks survive the host process, so a
 * durable runtime may keep background mode on.
 */
export type DetachedTasksKind = 'none' | 'ephemeral' | 'durable'

/** What a context can do. Tools check these before offering a feature. */
export interface ContextCapabilities {
  /** `exec` runs shell commands. */
  exec: boolean
  /** `execStream` gives live stdio (needed by MCP servers with `scope: 'context'`). */
  execStream: boolean
  /** The file operations work. */
  files: boolean
  detachedTasks: DetachedTasksKind
  /** Commands can reach the network; `undefined` when the context cannot tell. */
  network?: boolean
}

/** Isolation a context applies; reported so hosts and policies can tell how contained the agent is. */
export interface ContextHardening {
  /** Root filesystem mounted read-only (the workspace stays writable). */
  readOnlyRoot?: boolean
  /** Network mode: `'none'` cuts the network off. */
  network?: 'none' | 'bridge' | 'host' | (string & {})
  /** User the commands run as (`uid[:gid]` or a name). */
  user?: string
  /** Memory ceiling, in the engine's notation (`'512m'`, `'2g'`). */
  memory?: string
  /** CPU ceiling in cores. */
  cpus?: number
  /** Most processes at once. */
  pidsLimit?: number
  /** Drop every Linux capability. */
  dropCapabilities?: boolean
  /** Forbid privilege escalation through setuid binaries. */
  noNewPrivileges?: boolean
}

/** Passed to the first `spawn()`; later calls return the same setup. */
export interface SpawnConfig {
  /** Cancels a slow setup (image pull, remote create). */
  signal?: AbortSignal
  /** Extra environment for every command of the context. */
  env?: Record<string, string>
}

/** Options of one `exec` call. */
export interface ExecOptions {
  /** Working directory; relative values resolve against the context's `cwd`. */
  cwd?: string
  /** Merged over the context's environment. */
  env?: Record<string, string>
  /** Kill the command's whole process group after this many ms. */
  timeoutMs?: number
  /** Abort kills the command's whole process group. */
  signal?: AbortSignal
  /** Written to the command's stdin, which is then closed. Without it stdin is empty. */
  stdin?: string | Uint8Array
  /**
   * Most bytes of combined output kept; the oldest bytes are dropped first
   * (the end of a log is what explains a failure) and counted in `truncatedBytes`.
   */
  maxOutputBytes?: number
}

/** How a command ended. */
export interface ExecExit {
  /** `null` when the command was ended by a signal. */
  exitCode: number | null
  /** The signal that ended it, if any. */
  signal: string | null
  timedOut: boolean
  aborted: boolean
  durationMs: number
}

export interface ExecResult extends ExecExit {
  /** stdout and stderr interleaved in arrival order, decoded as UTF-8; starts on a character boundary. */
  output: string
  /** Bytes dropped from the start of `output` to honor `maxOutputBytes`. */
  truncatedBytes: number
}

/** Options of one `execStream` call (a long-lived process with piped stdio). */
export interface ExecStreamOptions {
  cwd?: string
  env?: Record<string, string>
  timeoutMs?: number
  signal?: AbortSignal
}

/** A running command with live stdio. */
export interface ExecutionHandle {
  /** Process id in the context's namespace, when the context knows it. */
  readonly pid?: number
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable
  /** Settles once the command has ended and its output streams are finished. */
  wait: () => Promise<ExecExit>
  /** Signal the whole process group: SIGTERM by default, SIGKILL after a grace period. */
  kill: (signal?: NodeJS.Signals) => void
}

/** What a path is, as `stat` and `readDir` report it. */
export type FileType = 'file' | 'directory' | 'symlink' | 'other'

/** `stat` follows symlinks, so `type` is never `'symlink'` there. */
export interface FileStat {
  type: FileType
  size: number
  mtimeMs: number
}

/** A directory entry; symlinks are reported as such (not followed). */
export interface DirEntry {
  name: string
  type: FileType
}

/** Options of one `readFile` call. */
export interface ReadFileOptions {
  /** The most bytes read before the call rejects with `EFBIG`. Default 256 MiB. */
  maxBytes?: number
}

/** Filesystem operations. Failures reject with an error whose `code` follows Node (`ENOENT`, `EISDIR`, `ENOTDIR`, …). */
export interface ContextFiles {
  /** Absolute path in the context for `path` (relative paths resolve against `cwd`). */
  resolvePath: (path: string) => string
  /**
   * The whole file as bytes; rejects for a missing file, and with `EFBIG` once
   * more than `maxBytes` (default 256 MiB) were read, whatever size the file
   * reported (files under `/proc` report 0).
   */
  readFile: (path: string, options?: ReadFileOptions) => Promise<Uint8Array>
  /**
   * Write the whole file atomically: the bytes go to a temporary file in the
   * same directory, which is then renamed over `path`, so readers never see a
   * half-written file. Missing parent directories are created.
   */
  writeFile: (path: string, data: string | Uint8Array) => Promise<void>
  /** `undefined` when nothing exists at `path`. */
  stat: (path: string) => Promise<FileStat | undefined>
  /** The entries of one directory (not recursive). */
  readDir: (path: string) => Promise<DirEntry[]>
  /** Creates parents too; an existing directory is fine. */
  mkdir: (path: string) => Promise<void>
  /** Recursive; a missing path is fine. */
  remove: (path: string) => Promise<void>
}

// --- detached (background) tasks -------------------------------------------

/** Where a background task is in its life. */
export type BackgroundTaskStatus = 'running' | 'exited' | 'killed' | 'failed'

/** How a background task ended. */
export interface TaskExitInfo {
  status: Exclude<BackgroundTaskStatus, 'running'>
  exitCode: number | null
  signal: string | null
  durationMs: number
}

/** A snapshot of one task. */
export interface TaskEntry {
  id: string
  command: string
  cwd: string
  /** Where the task's output is appended, in the context's namespace. */
  logPath: string
  pid?: number
  status: BackgroundTaskStatus
  startedAt: number
  /** Last time the task produced output (or `startedAt`). */
  lastOutputAt: number
  /** Bytes of output the task produced, dropped ones included. */
  outputBytes: number
  /** Bytes not written to the log because of the output cap. */
  droppedBytes: number
  exit?: TaskExitInfo
}

/** Reported when a task has been silent for `stallAfterMs`; the task is left running. */
export interface TaskStallInfo {
  taskId: string
  command: string
  logPath: string
  silentMs: number
  lastOutputAt: number
}

/** How to start one background task. */
export interface TaskStartOptions {
  command: string
  /** Directory for the log; the file is `<logDir>/<task id>.log`. */
  logDir: string
  cwd?: string
  env?: Record<string, string>
  /** Bytes written to the log before further output is dropped (the task keeps running). */
  outputCap?: number
  /** Report a stall after this many ms without output; re-armed by fresh output. */
  stallAfterMs?: number
  /** Called when the task has printed nothing for the stall watchdog's interval. */
  onStall?: (info: TaskStallInfo) => void
}

/** How long `TaskHandle.wait` may wait. */
export interface TaskWaitOptions {
  /** Give up waiting (the task keeps running) after this many ms. */
  timeoutMs?: number
  signal?: AbortSignal
}

/** The end of a task's output, held in memory so it can be shown without reading the log. */
export interface TaskOutputTail {
  text: string
  /** Bytes of earlier output not in `text`. */
  droppedBytes: number
}

/** A running or finished background task. */
export interface TaskHandle {
  readonly id: string
  readonly logPath: string
  readonly pid?: number
  /** A snapshot of the task's state. */
  entry: () => TaskEntry
  /** The exit info, or `undefined` if the task is still running when the wait ends. */
  wait: (options?: TaskWaitOptions) => Promise<TaskExitInfo | undefined>
  /** Stop the task. */
  kill: (signal?: NodeJS.Signals) => Promise<void>
}

/** Background tasks that outlive the tool call that started them. */
export interface DetachedTasksCapability {
  /** Start a command in the background; it keeps running after the tool call returns. */
  start: (options: TaskStartOptions) => Promise<TaskHandle>
  /** Every task this context knows, running or finished. */
  list: () => Promise<TaskEntry[]>
  /** One task by id, or `undefined` when none is known. */
  get: (id: string) => Promise<TaskEntry | undefined>
  /** `false` when no such task is known. Killing a finished task is a no-op that returns `true`. */
  kill: (id: string, signal?: NodeJS.Signals) => Promise<boolean>
  /** `undefined` when the task is unknown or still running when the wait ends. */
  wait: (id: string, options?: TaskWaitOptions) => Promise<TaskExitInfo | undefined>
  /** `undefined` when the task is unknown. */
  tail: (id: string, maxBytes?: number) => Promise<TaskOutputTail | undefined>
}

// --- the context ------------------------------------------------------------

export interface ExecutionContext extends ContextFiles {
  readonly type: ContextType
  /** Default working directory for commands and relative paths. */
  readonly cwd: string
  readonly capabilities: ContextCapabilities
  readonly hardening?: ContextHardening
  /**
   * Set the context up (create a container, a remote sandbox). Idempotent: the
   * first call does the work and later calls share its promise. Other methods
   * call it on demand, so calling it up front only moves the cost (and lets
   * the agent bound it with `spawnTimeoutMs`).
   */
  spawn: (config?: SpawnConfig) => Promise<void>
  /** Run a shell command to completion. Never rejects for a failing command; reads `exitCode`. */
  exec: (command: string, options?: ExecOptions) => Promise<ExecResult>
  /** Run a shell command with live stdio. */
  execStream: (command: string, options?: ExecStreamOptions) => Promise<ExecutionHandle>
  /** Present when `capabilities.detachedTasks !== 'none'`. */
  readonly tasks?: DetachedTasksCapability
  /**
   * Kill everything the context started (commands, tasks, containers) and
   * release it. Safe to call twice; the context is unusable afterwards.
   */
  destroy: () => Promise<void>
}
