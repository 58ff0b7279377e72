/**
 * `zidane/contexts/sandbox`: an execution context over a minimal provider
 * interface, so a remote sandbox service (or any custom runtime) needs only
 * a handful of methods to host an agent. The adapter adds what every context
 * promises on top: bounded output, abort, atomic writes, background tasks.
 *
 * @module zidane/contexts/sandbox
 */

import type { TaskManager } from './tasks'
import type {
  ContextCapabilities,
  ContextHardening,
  DetachedTasksCapability,
  DirEntry,
  ExecOptions,
  ExecResult,
  ExecStreamOptions,
  ExecutionContext,
  ExecutionHandle,
  FileStat,
  ReadFileOptions,
  SpawnConfig,
} from './types'
import { randomUUID } from 'node:crypto'
import { posix } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { startTimer } from '../core/timer'
import { DEFAULT_EXEC_OUTPUT_BYTES, tailOfText } from './output'
import { withinReadLimit } from './read-limit'
import { quoteShellArg } from './shell-quote'
import { createTaskManager, openStreamedLog } from './tasks'

/** One command a `SandboxProvider` is asked to run. */
export interface SandboxExecRequest {
  /** Absolute working directory in the sandbox. */
  cwd: string
  env?: Record<string, string>
  timeoutMs?: number
  signal?: AbortSignal
  stdin?: Uint8Array
}

/** What a `SandboxProvider` reports once a command has finished. */
export interface SandboxExecResponse {
  /** Combined output in arrival order, when the provider has it; otherwise `stdout` then `stderr` are joined. */
  output?: string
  stdout?: string
  stderr?: string
  exitCode: number | null
  signal?: string | null
  timedOut?: boolean
}

/**
 * What a sandbox service must offer. Paths are absolute POSIX paths in the
 * sandbox (the adapter resolves relative ones against `workdir`). File
 * methods reject with an error carrying `code: 'ENOENT'` for missing paths.
 */
export interface SandboxProvider {
  /** Reported as the context's `type`; default `'sandbox'`. */
  readonly name?: string
  /** Working directory inside the sandbox. */
  readonly workdir: string
  readonly hardening?: ContextHardening
  /** Network reachability and task durability, when the provider knows them. */
  readonly capabilities?: Partial<Pick<ContextCapabilities, 'network' | 'detachedTasks'>>
  /** Create or connect to the sandbox. Called once. */
  create: (config: SpawnConfig) => Promise<void>
  /** Run a shell command to completion; should honor `timeoutMs` and `signal` by killing the command. */
  exec: (command: string, request: SandboxExecRequest) => Promise<SandboxExecResponse>
  /** Live stdio; needed for background tasks and context-scoped MCP servers. */
  execStream?: (command: string, request: SandboxExecRequest) => Promise<ExecutionHandle>
  /**
   * The whole file as bytes; rejects for a missing file. `maxBytes` is the
   * caller's cap: a provider that can should stop reading one byte past it
   * (the adapter refuses a longer result either way, but only once it holds it).
   */
  readFile: (path: string, options?: ReadFileOptions) => Promise<Uint8Array>
  /** Plain write; the adapter makes it atomic with a temporary file and `rename` (or `mv`). */
  writeFile: (path: string, data: Uint8Array) => Promise<void>
  /** Move a file within the sandbox; without it the adapter falls back to `mv`. */
  rename?: (from: string, to: string) => Promise<void>
  /** `undefined` for a missing path. */
  stat: (path: string) => Promise<FileStat | undefined>
  /** The entries of one directory (not recursive). */
  readDir: (path: string) => Promise<DirEntry[]>
  /** Recursive, tolerant of an existing directory. */
  mkdir: (path: string) => Promise<void>
  /** Recursive, tolerant of a missing path. */
  remove: (path: string) => Promise<void>
  /** The provider's own background tasks (durable unless `capabilities.detachedTasks` says otherwise). */
  tasks?: DetachedTasksCapability
  /** Release the sandbox; called once by the context's `destroy()`. */
  destroy: () => Promise<void>
}

export interface SandboxContext extends ExecutionContext {
  readonly provider: SandboxProvider
}

/** Extra time given to a provider that ignores `timeoutMs` before the adapter stops waiting for it. */
const PROVIDER_TIMEOUT_SLACK_MS = 10_000

/** An execution context over any `SandboxProvider`: the adapter adds atomic writes, timeouts and output caps on top of its few methods. */
export function createSandboxContext(provider: SandboxProvider): SandboxContext {
  const cwd = posix.resolve('/', provider.workdir)
  const resolvePath = (path: string) => posix.resolve(cwd, path)
  let spawned: Promise<void> | undefined
  let destroyed = false
  let baseEnv: Record<string, string> = {}

  async function spawn(config: SpawnConfig = {}): Promise<void> {
    if (destroyed)
      throw new Error('The execution context was destroyed')
    spawned ??= (async () => {
      baseEnv = { ...config.env }
      await provider.create(config)
    })()
    // A failed create (a busy service, an aborted start) is not kept: the next call tries again.
    spawned.catch(() => {
      spawned = undefined
    })
    return spawned
  }

  function request(options: { cwd?: string, env?: Record<string, string>, timeoutMs?: number, signal?: AbortSignal }): SandboxExecRequest {
    return {
      cwd: options.cwd === undefined ? cwd : resolvePath(options.cwd),
      env: mergeObjects(baseEnv, options.env),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    }
  }

  async function exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    await spawn()
    const startedAt = Date.now()
    const interrupted = (timedOut: boolean, aborted: boolean): ExecResult =>
      ({ output: '', truncatedBytes: 0, exitCode: null, signal: null, timedOut, aborted, durationMs: Date.now() - startedAt })
    if (options.signal?.aborted)
      return interrupted(false, true)
    const stdin = typeof options.stdin === 'string' ? new TextEncoder().encode(options.stdin) : options.stdin
    const call = provider.exec(command, mergeObjects(request(options), { stdin }))
    // Abort must return promptly even if the provider does not listen for it.
    const response = await raceInterrupts(call, options.signal, options.timeoutMs === undefined ? undefined : options.timeoutMs + PROVIDER_TIMEOUT_SLACK_MS)
    if (response === 'aborted')
      return interrupted(false, true)
    if (response === 'timed-out')
      return interrupted(true, false)
    const combined = response.output ?? `${response.stdout ?? ''}${response.stderr ?? ''}`
    const { text, droppedBytes } = tailOfText(combined, options.maxOutputBytes ?? DEFAULT_EXEC_OUTPUT_BYTES)
    return {
      output: text,
      truncatedBytes: droppedBytes,
      exitCode: response.exitCode,
      signal: response.signal ?? null,
      timedOut: response.timedOut ?? false,
      aborted: options.signal?.aborted ?? false,
      durationMs: Date.now() - startedAt,
    }
  }

  async function execStream(command: string, options: ExecStreamOptions = {}): Promise<ExecutionHandle> {
    if (!provider.execStream)
      throw new Error(`The sandbox provider${provider.name ? ` ${provider.name}` : ''} does not support streaming commands (execStream)`)
    await spawn()
    return provider.execStream(command, request(options))
  }

  let ownTasks: TaskManager | undefined
  let tasks: DetachedTasksCapability | undefined = provider.tasks
  let detachedTasks = provider.capabilities?.detachedTasks ?? (provider.tasks ? 'durable' : 'none')
  if (!tasks && provider.execStream) {
    ownTasks = createTaskManager({
      cwd,
      resolvePath,
      start: (command, startOptions) => execStream(command, startOptions),
      openLog: path => openStreamedLog(command => execStream(command), path),
    })
    tasks = ownTasks
    detachedTasks = 'ephemeral'
  }

  async function writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await spawn()
    const target = resolvePath(path)
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    await provider.mkdir(posix.dirname(target))
    const temp = posix.join(posix.dirname(target), `.${posix.basename(target)}.${randomUUID().slice(0, 8)}.tmp`)
    await provider.writeFile(temp, bytes)
    try {
      if (provider.rename) {
        await provider.rename(temp, target)
        return
      }
      const moved = await provider.exec(`mv -f ${quoteShellArg(temp)} ${quoteShellArg(target)}`, { cwd })
      if (moved.exitCode !== 0)
        throw new Error(`Could not move ${temp} to ${target}: ${(moved.output ?? moved.stderr ?? '').trim()}`)
    }
    catch (error) {
      await provider.remove(temp).catch(() => {})
      throw error
    }
  }

  return {
    type: provider.name ?? 'sandbox',
    cwd,
    provider,
    hardening: provider.hardening,
    capabilities: {
      exec: true,
      execStream: provider.execStream !== undefined,
      files: true,
      detachedTasks,
      ...(provider.capabilities?.network === undefined ? {} : { network: provider.capabilities.network }),
    },
    tasks,
    spawn,
    exec,
    execStream,
    resolvePath,
    readFile: async (path, readOptions) => {
      await spawn()
      const resolved = resolvePath(path)
      return withinReadLimit(await provider.readFile(resolved, readOptions), resolved, readOptions?.maxBytes)
    },
    writeFile,
    stat: async (path) => {
      await spawn()
      return provider.stat(resolvePath(path))
    },
    readDir: async (path) => {
      await spawn()
      return provider.readDir(resolvePath(path))
    },
    mkdir: async (path) => {
      await spawn()
      await provider.mkdir(resolvePath(path))
    },
    remove: async (path) => {
      await spawn()
      await provider.remove(resolvePath(path))
    },
    destroy: async () => {
      if (destroyed)
        return
      destroyed = true
      await ownTasks?.killAll()
      // Nothing was created if spawn never ran, but a provider may hold a connection anyway.
      await provider.destroy()
    },
  }
}

async function raceInterrupts<T>(work: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<T | 'aborted' | 'timed-out'> {
  if (!signal && timeoutMs === undefined)
    return work
  // If we stop waiting, a later failure of the abandoned call must not surface as unhandled.
  work.catch(() => {})
  let cleanup = () => {}
  const interrupt = new Promise<'aborted' | 'timed-out'>((resolve) => {
    const timer = timeoutMs === undefined ? undefined : startTimer(timeoutMs, () => resolve('timed-out'))
    const onAbort = () => resolve('aborted')
    signal?.addEventListener('abort', onAbort, { once: true })
    cleanup = () => {
      timer?.clear()
      signal?.removeEventListener('abort', onAbort)
    }
  })
  try {
    return await Promise.race([work, interrupt])
  }
  finally {
    cleanup()
  }
}
