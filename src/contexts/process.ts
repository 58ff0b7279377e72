/**
 * The default context: commands run on the host as process groups, files are
 * the host's. No isolation at all (`hardening` is absent); its job is to make
 * commands bounded and killable, not contained.
 */

import type { ChildProcess } from 'node:child_process'
import type { LogSink } from './tasks'
import type { DirEntry, ExecOptions, ExecResult, ExecStreamOptions, ExecutionContext, ExecutionHandle, FileStat, FileType, ReadFileOptions, SpawnConfig } from './types'
import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import { constants, createWriteStream } from 'node:fs'
import { chmod, chown, mkdir, open, readdir, readlink, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { startTimer } from '../core/timer'
import { WorkingDirectoryError } from '../errors'
import { CombinedOutput, DEFAULT_EXEC_OUTPUT_BYTES } from './output'
import { DEFAULT_KILL_GRACE_MS, signalGroup, spawnGroup, terminateGroup, trackGroup, untrackGroup, watchChild } from './process-group'
import { DEFAULT_READ_FILE_MAX_BYTES, fileTooLargeError } from './read-limit'
import { createTaskManager } from './tasks'

/** How long a foreground command's pipes may stay open after the command exited (held by children it backgrounded). */
const PIPE_DRAIN_MS = 250

/**
 * Bytes asked of the kernel per read. A multiple of 8: `/proc/<pid>/pagemap`
 * refuses a read of any other length (EINVAL).
 */
const READ_CHUNK_BYTES = 64 * 1024

/** Where and how `createProcessContext` runs commands on the host. */
export interface ProcessContextOptions {
  /** Working directory; default `process.cwd()`. */
  cwd?: string
  /** Environment merged over `process.env`. */
  env?: Record<string, string>
  /** Shell that runs commands with `-c`; default `/bin/sh`. */
  shell?: string
  /** Time between SIGTERM and SIGKILL when a command is stopped. Default 2000. */
  killGraceMs?: number
}

export interface ProcessContext extends ExecutionContext {
  readonly type: 'process'
}

/** The default execution context: commands and files on the host, each command in its own process group so a timeout or abort kills all of it. */
export function createProcessContext(options: ProcessContextOptions = {}): ProcessContext {
  const cwd = resolve(options.cwd ?? process.cwd())
  const shell = options.shell ?? '/bin/sh'
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  let baseEnv: Record<string, string> = { ...options.env }
  let spawned: Promise<void> | undefined
  let destroyed = false
  // Every group this context started; kept until teardown because a command
  // may leave children behind after its leader exited.
  const groups = new Set<number>()

  const resolvePath = (path: string) => resolve(cwd, path)

  function ensureUsable(): void {
    if (destroyed)
      throw new Error('The execution context was destroyed')
  }

  async function spawnContext(config: SpawnConfig = {}): Promise<void> {
    ensureUsable()
    spawned ??= (async () => {
      baseEnv = mergeObjects(baseEnv, config.env)
      await checkWorkingDirectory(cwd)
    })()
    // A failed start is not kept: once the directory exists, the next run starts.
    spawned.catch(() => {
      spawned = undefined
    })
    return spawned
  }

  function startGroup(command: string, callCwd: string | undefined, env: Record<string, string> | undefined, stdin: 'pipe' | 'ignore'): ChildProcess {
    ensureUsable()
    const groupCwd = callCwd === undefined ? cwd : resolvePath(callCwd)
    let child: ChildProcess
    try {
      child = spawnGroup(command, { shell, cwd: groupCwd, env: mergeObjects(process.env, baseEnv, env), stdin })
    }
    catch (error) {
      // Node throws some failures (E2BIG) at once rather than emitting them.
      throw startFailure(error as NodeJS.ErrnoException, groupCwd, shell, command)
    }
    if (child.pid !== undefined) {
      groups.add(child.pid)
      trackGroup(child.pid)
    }
    return child
  }

  async function exec(command: string, execOptions: ExecOptions = {}): Promise<ExecResult> {
    await spawnContext()
    if (execOptions.signal?.aborted)
      return { output: '', truncatedBytes: 0, exitCode: null, signal: null, timedOut: false, aborted: true, durationMs: 0 }
    const child = startGroup(command, execOptions.cwd, execOptions.env, execOptions.stdin === undefined ? 'ignore' : 'pipe')
    const output = new CombinedOutput(execOptions.maxOutputBytes ?? DEFAULT_EXEC_OUTPUT_BYTES)
    child.stdout!.on('data', (chunk: Buffer) => output.write('stdout', chunk))
    child.stderr!.on('data', (chunk: Buffer) => output.write('stderr', chunk))
    if (child.stdin) {
      // A command that exits without reading its stdin closes the pipe under us.
      child.stdin.on('error', () => {})
      child.stdin.end(execOptions.stdin)
    }
    const exit = await watchChild(child, {
      timeoutMs: execOptions.timeoutMs,
      signal: execOptions.signal,
      graceMs,
      closePipesAfterExitMs: PIPE_DRAIN_MS,
    }).catch((error: NodeJS.ErrnoException) => {
      throw startFailure(error, execOptions.cwd === undefined ? cwd : resolvePath(execOptions.cwd), shell, command)
    })
    return mergeObjects(exit, output.finish())
  }

  function handleFor(child: ChildProcess, streamOptions: ExecStreamOptions, background: boolean): ExecutionHandle {
    const done = watchChild(child, { timeoutMs: streamOptions.timeoutMs, signal: streamOptions.signal, graceMs })
    // Callers that never call wait() must not turn a late spawn error into an unhandled rejection.
    done.catch(() => {})
    if (background) {
      // A background task must not keep the host alive; the exit listener of
      // process-group.ts kills it when the host goes away.
      child.unref()
      for (const stream of [child.stdin, child.stdout, child.stderr])
        (stream as { unref?: () => void } | null)?.unref?.()
    }
    return {
      pid: child.pid,
      stdin: child.stdin!,
      stdout: child.stdout!,
      stderr: child.stderr!,
      wait: () => done,
      kill: (signal) => {
        if (child.pid === undefined)
          return
        if (signal === undefined || signal === 'SIGTERM') {
          void terminateGroup(child.pid, graceMs).then(() => closePipesOnceExited(child))
        }
        else {
          signalGroup(child.pid, signal)
          closePipesOnceExited(child)
        }
      },
    }
  }

  async function execStream(command: string, streamOptions: ExecStreamOptions = {}): Promise<ExecutionHandle> {
    await spawnContext()
    const child = startGroup(command, streamOptions.cwd, streamOptions.env, 'pipe')
    await spawnedOrFailed(child, streamOptions.cwd === undefined ? cwd : resolvePath(streamOptions.cwd), shell, command)
    return handleFor(child, streamOptions, false)
  }

  const tasks = createTaskManager({
    cwd,
    resolvePath,
    killGraceMs: graceMs,
    start: async (command, startOptions) => {
      await spawnContext()
      const child = startGroup(command, startOptions.cwd, startOptions.env, 'pipe')
      await spawnedOrFailed(child, startOptions.cwd, shell, command)
      return handleFor(child, {}, true)
    },
    openLog: openFileLog,
  })

  /**
   * Temp file and rename, so readers never see half a file. The rename lands
   * on the link's target, not on the link (which it would replace with a plain
   * file, leaving the target as it was), and the new file keeps the old one's
   * mode and, when we may set it, owner: an edited script stays executable, a
   * 0600 file stays private.
   */
  async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
    const target = await realTarget(resolvePath(path))
    await mkdir(dirname(target), { recursive: true })
    const previous = await stat(target).catch(() => undefined)
    const temp = join(dirname(target), `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`)
    try {
      // Created with the mode already (no moment readable by others); chmod because the umask narrowed it.
      await writeFile(temp, data, { mode: previous ? previous.mode & 0o7777 : 0o666 })
      if (previous) {
        // Owner first: a chown clears setuid and setgid bits, which the chmod then restores.
        if (previous.uid !== process.getuid?.() || previous.gid !== process.getgid?.())
          await chown(temp, previous.uid, previous.gid).catch(() => {})
        await chmod(temp, previous.mode & 0o7777)
      }
      await rename(temp, target)
    }
    catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  }

  return {
    type: 'process',
    cwd,
    capabilities: { exec: true, execStream: true, files: true, detachedTasks: 'ephemeral', network: true },
    spawn: spawnContext,
    exec,
    execStream,
    tasks,
    resolvePath,
    readFile: (path, readOptions) => readRegularFile(resolvePath(path), readOptions),
    writeFile: writeFileAtomic,
    stat: async (path) => {
      try {
        const info = await stat(resolvePath(path))
        return { type: info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other', size: info.size, mtimeMs: info.mtimeMs } satisfies FileStat
      }
      catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return undefined
        throw error
      }
    },
    readDir: async (path) => {
      const entries = await readdir(resolvePath(path), { withFileTypes: true })
      return entries.map((entry): DirEntry => {
        const type: FileType = entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : entry.isSymbolicLink() ? 'symlink' : 'other'
        return { name: entry.name, type }
      })
    },
    mkdir: async (path) => {
      await mkdir(resolvePath(path), { recursive: true })
    },
    remove: path => rm(resolvePath(path), { recursive: true, force: true }),
    destroy: async () => {
      if (destroyed)
        return
      await tasks.killAll()
      destroyed = true
      await Promise.all(Array.from(groups, pgid => terminateGroup(pgid, graceMs)))
      for (const pgid of groups) untrackGroup(pgid)
      groups.clear()
    },
  }
}

/** The working directory must be a directory we can enter; anything else is a `WorkingDirectoryError` naming it. */
async function checkWorkingDirectory(cwd: string): Promise<void> {
  let isDirectory: boolean
  try {
    isDirectory = (await stat(cwd)).isDirectory()
  }
  catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES')
      throw new WorkingDirectoryError(cwd, code, { cause: error })
    throw error
  }
  if (!isDirectory)
    throw new WorkingDirectoryError(cwd, 'ENOTDIR')
}

/**
 * Node reports a missing cwd as the shell being missing; say which one it may
 * be. A command too long to pass to a new process (`E2BIG`: Linux takes at
 * most 128 KiB in one argument) is said in words the model can act on.
 */
function startFailure(error: NodeJS.ErrnoException, cwd: string, shell: string, command: string): Error {
  if (error.code === 'E2BIG') {
    return new Error(`Could not start the command: at ${Buffer.byteLength(command, 'utf8')} bytes it is longer than the system passes to a new process `
      + '(at most 128 KiB for the command on Linux, less with a large environment). Write the script to a file and run that file instead.', { cause: error })
  }
  if (error.code !== 'ENOENT')
    return error
  return new Error(`Could not start the command: the working directory ${cwd} or the shell ${shell} does not exist`, { cause: error })
}

/**
 * After a kill: once the leader has exited, give its pipes `PIPE_DRAIN_MS` to
 * drain, then close them. A child that left the group (`setsid`, a daemon)
 * survives the kill and keeps them open; without this the command would never
 * be done (a background task reported running forever). Nothing happens while
 * the leader lives: it may have caught the signal.
 */
function closePipesOnceExited(child: ChildProcess): void {
  const closePipes = () => {
    startTimer(PIPE_DRAIN_MS, () => {
      child.stdout?.destroy()
      child.stderr?.destroy()
    }).unref()
  }
  if (child.exitCode !== null || child.signalCode !== null)
    closePipes()
  else
    child.once('exit', closePipes)
}

/** Resolve once the child has a pid, reject if it could not start (missing shell or cwd). */
function spawnedOrFailed(child: ChildProcess, cwd: string, shell: string, command: string): Promise<void> {
  if (child.pid !== undefined)
    return Promise.resolve()
  return new Promise((resolvePromise, reject) => {
    child.once('spawn', () => resolvePromise())
    child.once('error', error => reject(startFailure(error, cwd, shell, command)))
  })
}

async function openFileLog(path: string): Promise<LogSink> {
  await mkdir(dirname(path), { recursive: true })
  const stream = createWriteStream(path, { flags: 'a' })
  await new Promise<void>((resolvePromise, reject) => {
    stream.once('open', () => resolvePromise())
    stream.once('error', reject)
  })
  return {
    write: bytes => void stream.write(bytes),
    close: () => new Promise<void>(resolvePromise => stream.end(() => resolvePromise())),
  }
}

/** Where a write to `path` lands: through symlinks to their target; the path itself when nothing is there yet. */
async function realTarget(path: string): Promise<string> {
  try {
    return await realpath(path)
  }
  catch (error) {
    // A dangling link: write where it points, as `echo > link` does.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return resolve(dirname(path), await readlink(path).catch(() => basename(path)))
    throw error
  }
}

/**
 * The bytes of a regular file. Anything else is refused before a byte is
 * read: the path comes from the model, and a FIFO would block the read until
 * some writer came (forever, with no way to abort it), while `/dev/zero` or
 * `/dev/urandom` never end and fill memory. The open does not block either
 * (`O_NONBLOCK`, which changes nothing for a regular file).
 *
 * The size `stat` gives is not trusted: files under `/proc` say 0 and some
 * never end (`/proc/self/pagemap` holds gigabytes), and any file may grow
 * while it is read. So the file is read in chunks and refused (`EFBIG`) as
 * soon as it passes `maxBytes`.
 */
async function readRegularFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? DEFAULT_READ_FILE_MAX_BYTES
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const info = await handle.stat()
    if (info.isDirectory())
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' })
    if (!info.isFile())
      throw new Error('it is not a regular file (a device, a FIFO or a socket); only regular files are read')
    const chunks: Buffer[] = []
    let total = 0
    // The first read is sized by what stat says, which a regular file tells truly (a file of 100 bytes is not a
    // 64 KiB allocation); a file that said 0 (under /proc) or grew is read in chunks.
    let size = info.size > 0 ? multipleOf8(Math.min(info.size, maxBytes + 1)) : READ_CHUNK_BYTES
    for (;;) {
      const chunk = Buffer.allocUnsafe(size)
      const { bytesRead } = await handle.read(chunk, 0, size, null)
      if (bytesRead === 0)
        break
      total += bytesRead
      if (total > maxBytes)
        throw fileTooLargeError(path, maxBytes)
      chunks.push(chunk.subarray(0, bytesRead))
      // Once what stat said is in, 8 bytes are enough to find the end (and come from Node's buffer pool).
      size = info.size > 0 && size !== 8 && total >= info.size ? 8 : READ_CHUNK_BYTES
    }
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
  }
  finally {
    await handle.close()
  }
}

/** `n` rounded up to a multiple of 8 (see `READ_CHUNK_BYTES`). */
function multipleOf8(n: number): number {
  return Math.ceil(n / 8) * 8
}
