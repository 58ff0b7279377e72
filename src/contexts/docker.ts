/**
 * `zidane/contexts/docker`: a context backed by one long-lived container,
 * driven through the `docker` CLI (no engine SDK dependency). Every CLI call
 * is built by `docker-commands.ts` and run through a host process context,
 * so it inherits the same bounded output and process-group kill.
 *
 * @module zidane/contexts/docker
 */

import type { DockerMount } from './docker-commands'
import type { ContextHardening, ExecExit, ExecOptions, ExecResult, ExecStreamOptions, ExecutionContext, ExecutionHandle, FileStat, SpawnConfig } from './types'
import { randomUUID } from 'node:crypto'
import { posix } from 'node:path'
import { startTimer } from '../core/timer'
import {
  copyInArgs,
  copyOutArgs,
  createContainerArgs,
  engineInfoArgs,
  execArgs,
  FILE_SCRIPT_EXIT,
  fileScriptArgs,
  fileScriptError,
  killExecArgs,
  parseReadDirOutput,
  parseStatOutput,
  removeContainerArgs,
  startContainerArgs,
} from './docker-commands'
import { CombinedOutput, DEFAULT_EXEC_OUTPUT_BYTES } from './output'
import { createProcessContext } from './process'
import { DEFAULT_KILL_GRACE_MS } from './process-group'
import { DEFAULT_READ_FILE_MAX_BYTES, withinReadLimit } from './read-limit'
import { quoteShellCommand } from './shell-quote'
import { createTaskManager, openStreamedLog } from './tasks'

export type { DockerMount } from './docker-commands'

/** How to create the container behind `createDockerContext`. */
export interface DockerContextOptions {
  image: string
  /** Container name; default `zidane-<random>`. */
  name?: string
  /** Working directory in the container, created if missing. Default `/workspace`. */
  workdir?: string
  env?: Record<string, string>
  mounts?: DockerMount[]
  hardening?: ContextHardening
  pull?: 'missing' | 'always' | 'never'
  /** Extra `docker create` flags. */
  createArgs?: string[]
  /** The CLI binary. Default `docker`. */
  docker?: string
  killGraceMs?: number
}

export interface DockerContext extends ExecutionContext {
  readonly type: 'docker'
  readonly containerName: string
  /** Copy a host file or directory into the container (`docker cp`). */
  copyIn: (hostPath: string, containerPath: string) => Promise<void>
  /** Copy a container file or directory to the host (`docker cp`). */
  copyOut: (containerPath: string, hostPath: string) => Promise<void>
}

interface CliResult {
  stdout: Uint8Array
  stderr: string
  exitCode: number | null
}

/** Whether a docker engine answers (used to skip live tests and by hosts choosing a context). */
export async function dockerAvailable(docker = 'docker'): Promise<boolean> {
  const host = createProcessContext()
  try {
    const result = await host.exec(quoteShellCommand([docker, ...engineInfoArgs()]), { timeoutMs: 10_000 })
    return result.exitCode === 0
  }
  catch {
    return false
  }
  finally {
    await host.destroy()
  }
}

/** An execution context in one long-lived container, started on first use and removed by `destroy()`. */
export function createDockerContext(options: DockerContextOptions): DockerContext {
  const docker = options.docker ?? 'docker'
  const name = options.name ?? `zidane-${randomUUID().slice(0, 12)}`
  const cwd = posix.resolve('/', options.workdir ?? '/workspace')
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  const host = createProcessContext()
  const resolvePath = (path: string) => posix.resolve(cwd, path)
  let spawned: Promise<void> | undefined
  // Set before the first `docker create`: from then on a container by this name may exist.
  let createAttempted = false
  let destroyed = false

  async function cli(args: string[], cliOptions: { stdin?: Uint8Array, signal?: AbortSignal } = {}): Promise<CliResult> {
    const handle = await host.execStream(quoteShellCommand([docker, ...args]), { signal: cliOptions.signal })
    const stdout: Uint8Array[] = []
    const stderr: Uint8Array[] = []
    handle.stdout.on('data', (chunk: Uint8Array) => stdout.push(chunk))
    handle.stderr.on('data', (chunk: Uint8Array) => stderr.push(chunk))
    handle.stdin.on('error', () => {})
    handle.stdin.end(cliOptions.stdin)
    const exit = await handle.wait()
    return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8'), exitCode: exit.exitCode }
  }

  async function cliOk(args: string[], cliOptions: { stdin?: Uint8Array, signal?: AbortSignal } = {}): Promise<CliResult> {
    const result = await cli(args, cliOptions)
    if (result.exitCode !== 0)
      throw new Error(`docker ${args[0]} failed (exit ${result.exitCode}): ${result.stderr.trim()}`)
    return result
  }

  async function spawn(config: SpawnConfig = {}): Promise<void> {
    if (destroyed)
      throw new Error('The execution context was destroyed')
    spawned ??= (async () => {
      const { signal } = config
      // What a failed attempt left (created, not started) would make this create fail on its name.
      if (createAttempted)
        await cli(removeContainerArgs(name))
      createAttempted = true
      await cliOk(createContainerArgs({
        image: options.image,
        name,
        workdir: cwd,
        env: { ...options.env, ...config.env },
        mounts: options.mounts,
        hardening: options.hardening,
        pull: options.pull,
        extraArgs: options.createArgs,
      }), { signal })
      await cliOk(startContainerArgs(name), { signal })
      await cliOk(fileScriptArgs(name, 'mkdir', cwd), { signal })
    })()
    // A failed start (an image still pulling, an aborted create) is not kept: the next call tries again.
    spawned.catch(() => {
      spawned = undefined
    })
    return spawned
  }

  /** Stop one command inside the container: SIGTERM its tree, SIGKILL after the grace period. */
  function stopInContainer(execId: string, client: ExecutionHandle): void {
    void cli(killExecArgs(name, execId, 'TERM')).catch(() => {})
    const timer = startTimer(graceMs, () => {
      void cli(killExecArgs(name, execId, 'KILL')).catch(() => {})
      client.kill('SIGKILL')
    })
    void client.wait().catch(() => {}).finally(() => timer.clear())
  }

  /** Start a command in the container; the returned handle's kill and the timeout/abort reach into the container. */
  async function startInContainer(command: string, startOptions: ExecStreamOptions, interactive: boolean): Promise<{ handle: ExecutionHandle, done: Promise<ExecExit> }> {
    await spawn()
    const execId = randomUUID()
    const client = await host.execStream(quoteShellCommand([docker, ...execArgs(name, {
      command,
      cwd: startOptions.cwd === undefined ? cwd : resolvePath(startOptions.cwd),
      env: startOptions.env,
      execId,
      interactive,
    })]))
    const startedAt = Date.now()
    let timedOut = false
    let aborted = false
    const stop = () => stopInContainer(execId, client)
    const timer = startOptions.timeoutMs !== undefined && startOptions.timeoutMs > 0
      ? startTimer(startOptions.timeoutMs, () => {
          timedOut = true
          stop()
        })
      : undefined
    const onAbort = () => {
      aborted = true
      stop()
    }
    if (startOptions.signal?.aborted)
      onAbort()
    else
      startOptions.signal?.addEventListener('abort', onAbort, { once: true })
    const done = client.wait().then((exit): ExecExit => {
      timer?.clear()
      startOptions.signal?.removeEventListener('abort', onAbort)
      // `docker exec` reports a signal death as 128 + n; the host client itself exits normally.
      return { exitCode: exit.exitCode, signal: exit.signal, timedOut, aborted, durationMs: Date.now() - startedAt }
    })
    done.catch(() => {})
    const handle: ExecutionHandle = {
      stdin: client.stdin,
      stdout: client.stdout,
      stderr: client.stderr,
      wait: () => done,
      kill: signal => signal === 'SIGKILL' ? void cli(killExecArgs(name, execId, 'KILL')).catch(() => {}) : stop(),
    }
    return { handle, done }
  }

  async function exec(command: string, execOptions: ExecOptions = {}): Promise<ExecResult> {
    if (execOptions.signal?.aborted)
      return { output: '', truncatedBytes: 0, exitCode: null, signal: null, timedOut: false, aborted: true, durationMs: 0 }
    const { handle, done } = await startInContainer(command, execOptions, execOptions.stdin !== undefined)
    const output = new CombinedOutput(execOptions.maxOutputBytes ?? DEFAULT_EXEC_OUTPUT_BYTES)
    handle.stdout.on('data', (chunk: Uint8Array) => output.write('stdout', chunk))
    handle.stderr.on('data', (chunk: Uint8Array) => output.write('stderr', chunk))
    handle.stdin.on('error', () => {})
    handle.stdin.end(execOptions.stdin)
    const exit = await done
    return { ...exit, ...output.finish() }
  }

  async function execStream(command: string, streamOptions: ExecStreamOptions = {}): Promise<ExecutionHandle> {
    return (await startInContainer(command, streamOptions, true)).handle
  }

  async function fileScript(script: Parameters<typeof fileScriptArgs>[1], path: string, stdin?: Uint8Array, maxBytes?: number): Promise<CliResult> {
    await spawn()
    return cli(fileScriptArgs(name, script, resolvePath(path), maxBytes), { stdin })
  }

  async function fileScriptOk(script: Parameters<typeof fileScriptArgs>[1], path: string, stdin?: Uint8Array, maxBytes?: number): Promise<CliResult> {
    const result = await fileScript(script, path, stdin, maxBytes)
    if (result.exitCode !== 0)
      throw fileScriptError(result.exitCode, resolvePath(path), result.stderr)
    return result
  }

  const tasks = createTaskManager({
    cwd,
    resolvePath,
    killGraceMs: graceMs,
    start: (command, startOptions) => execStream(command, startOptions),
    openLog: path => openStreamedLog(command => execStream(command), path),
  })

  return {
    type: 'docker',
    cwd,
    containerName: name,
    hardening: options.hardening,
    capabilities: { exec: true, execStream: true, files: true, detachedTasks: 'ephemeral', network: options.hardening?.network !== 'none' },
    tasks,
    spawn,
    exec,
    execStream,
    resolvePath,
    readFile: async (path, readOptions) => {
      const maxBytes = readOptions?.maxBytes ?? DEFAULT_READ_FILE_MAX_BYTES
      // Past the cap, to tell a file too large from one exactly at it, and by a multiple of 8:
      // /proc/<pid>/pagemap refuses a read of any other length.
      const { stdout } = await fileScriptOk('read', path, undefined, Math.ceil((maxBytes + 1) / 8) * 8)
      return withinReadLimit(stdout, resolvePath(path), maxBytes)
    },
    writeFile: async (path, data) => {
      await fileScriptOk('write', path, typeof data === 'string' ? new TextEncoder().encode(data) : data)
    },
    stat: async (path): Promise<FileStat | undefined> => {
      const result = await fileScript('stat', path)
      if (result.exitCode === FILE_SCRIPT_EXIT.notFound)
        return undefined
      if (result.exitCode !== 0)
        throw fileScriptError(result.exitCode, resolvePath(path), result.stderr)
      return parseStatOutput(Buffer.from(result.stdout).toString('utf8'))
    },
    readDir: async path => parseReadDirOutput(Buffer.from((await fileScriptOk('readDir', path)).stdout).toString('utf8')),
    mkdir: async (path) => {
      await fileScriptOk('mkdir', path)
    },
    remove: async (path) => {
      await fileScriptOk('remove', path)
    },
    copyIn: async (hostPath, containerPath) => {
      await spawn()
      await cliOk(copyInArgs(name, hostPath, resolvePath(containerPath)))
    },
    copyOut: async (containerPath, hostPath) => {
      await spawn()
      await cliOk(copyOutArgs(name, resolvePath(containerPath), hostPath))
    },
    destroy: async () => {
      if (destroyed)
        return
      destroyed = true
      await tasks.killAll()
      // A create that failed midway may still have left a container behind; `rm -f` of a missing one is harmless.
      if (createAttempted)
        await cli(removeContainerArgs(name)).catch(() => {})
      await host.destroy()
    },
  }
}
