/**
 * Start `bench/fake-server.ts` in a child process and wait for its URL. The
 * child also exits on its own when this process dies, because it watches its
 * stdin, which is a pipe from here.
 */

import type { ChildProcess } from 'node:child_process'
import type { BenchProvider } from './loop-script'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export type { BenchProvider } from './loop-script'

export interface ServerProcess {
  url: string
  stop: () => Promise<void>
}

const SCRIPT = fileURLToPath(new URL('./fake-server.ts', import.meta.url))
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
const START_TIMEOUT_MS = 20_000

export async function startServerProcess(provider: BenchProvider, turns: number, callsPerTurn: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, provider, String(turns), String(callsPerTurn)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  try {
    const url = await firstLine(child)
    return { url, stop: () => stopChild(child) }
  }
  catch (error) {
    await stopChild(child)
    throw error
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    let timer: NodeJS.Timeout | undefined
    function cleanup() {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.off('exit', onExit)
      child.off('error', fail)
    }
    function fail(error: Error) {
      cleanup()
      reject(error)
    }
    function onExit(code: number | null) {
      fail(new Error(`fake server exited early (code ${code})`))
    }
    function onData(chunk: Buffer) {
      buffered += chunk.toString('utf8')
      const end = buffered.indexOf('\n')
      if (end < 0)
        return
      cleanup()
      resolve(buffered.slice(0, end).trim())
    }
    timer = setTimeout(fail, START_TIMEOUT_MS, new Error('fake server did not print its URL in time'))
    child.stdout?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', fail)
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null)
    return
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}
