/**
 * Host processes run as leaders of their own process group, so a timeout or
 * an abort can end a command together with everything it started
 * (`npm test` → node → workers) instead of orphaning the grandchildren.
 */

import type { ChildProcess } from 'node:child_process'
import type { Timer } from '../core/timer'
import type { ExecExit } from './types'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { delay, startTimer } from '../core/timer'

/** Time between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000

/**
 * Groups started by any process context and maybe still alive. A single exit
 * listener kills them when the host exits, because detached groups would
 * otherwise outlive it (that is what `detached` means to the OS).
 */
const liveGroups = new Set<number>()
let exitListenerInstalled = false

function killLiveGroupsOnExit(): void {
  for (const pgid of liveGroups)
    signalGroup(pgid, 'SIGKILL')
}

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid)
  if (!exitListenerInstalled) {
    exitListenerInstalled = true
    process.once('exit', killLiveGroupsOnExit)
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid)
}

export interface SpawnGroupOptions {
  shell: string
  cwd: string
  env: NodeJS.ProcessEnv
  stdin: 'pipe' | 'ignore'
}

/** Start `command` under `shell -c` as the leader of a new process group. */
export function spawnGroup(command: string, options: SpawnGroupOptions): ChildProcess {
  return spawn(options.shell, ['-c', command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.stdin, 'pipe', 'pipe'],
  })
}

/** Send `signal` to every process of the group; `false` when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  }
  catch {
    return false
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count:
 * a host whose init does not reap orphans keeps dead members listed forever.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0))
    return false
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  }
  catch {
    return true
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57)
      continue
    const stat = readProcStat(entry)
    if (stat && stat.pgid === pgid && stat.state !== 'Z' && stat.state !== 'X')
      return true
  }
  return false
}

function readProcStat(pid: string): { state: string, pgid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name is parenthesized and may contain spaces: parse after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0], pgid: Number(fields[2]) }
  }
  catch {
    return undefined
  }
}

/** SIGTERM the group, then SIGKILL whatever is left after `graceMs`. Resolves once it is gone (or SIGKILLed). */
export async function terminateGroup(pgid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) {
    untrackGroup(pgid)
    return
  }
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    await sleep(25)
    if (!groupAlive(pgid)) {
      untrackGroup(pgid)
      return
    }
  }
  signalGroup(pgid, 'SIGKILL')
  untrackGroup(pgid)
}

function sleep(ms: number): Promise<void> {
  return delay(ms)
}

export interface WatchOptions {
  timeoutMs?: number
  signal?: AbortSignal
  graceMs: number
  /**
   * After the leader exits, how long to wait for its output pipes to close
   * before closing them ourselves. A command that backgrounds a child
   * (`server &`) leaves the pipes open; a foreground exec should still return.
   * `undefined` waits for the pipes however long it takes.
   */
  closePipesAfterExitMs?: number
}

/**
 * Settle when the child is done: exited and its output drained. A timeout
 * or an abort terminates the whole group and is reported in the result.
 */
export function watchChild(child: ChildProcess, options: WatchOptions): Promise<ExecExit> {
  const startedAt = Date.now()
  const pgid = child.pid
  let timedOut = false
  let aborted = false
  let exit: { code: number | null, signal: NodeJS.Signals | null } | undefined

  return new Promise<ExecExit>((resolve, reject) => {
    const kill = () => {
      if (pgid !== undefined)
        void terminateGroup(pgid, options.graceMs)
    }
    const timer = options.timeoutMs !== undefined && options.timeoutMs > 0
      ? startTimer(options.timeoutMs, () => {
          timedOut = true
          kill()
        })
      : undefined
    const onAbort = () => {
      aborted = true
      kill()
    }
    if (options.signal?.aborted)
      onAbort()
    else
      options.signal?.addEventListener('abort', onAbort, { once: true })
    let drainTimer: Timer | undefined

    const cleanup = () => {
      timer?.clear()
      drainTimer?.clear()
      options.signal?.removeEventListener('abort', onAbort)
    }
    child.once('error', (error) => {
      cleanup()
      reject(error)
    })
    child.once('exit', (code, signal) => {
      exit = { code, signal }
      if (options.closePipesAfterExitMs !== undefined) {
        drainTimer = startTimer(options.closePipesAfterExitMs, () => {
          child.stdout?.destroy()
          child.stderr?.destroy()
        })
      }
    })
    child.once('close', (code, signal) => {
      cleanup()
      // The group may outlive its leader (backgrounded children); keep it
      // tracked so destroy() and host exit still reach it.
      if (pgid !== undefined && !signalGroup(pgid, 0))
        untrackGroup(pgid)
      const final = exit ?? { code, signal }
      resolve({
        exitCode: final.code,
        signal: final.signal,
        timedOut,
        aborted,
        durationMs: Date.now() - startedAt,
      })
    })
  })
}
