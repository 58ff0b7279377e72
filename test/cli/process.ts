/**
 * Drive the real `zidane` process: `node --import tsx src/cli/bin.ts`, the
 * same file the build turns into the package's bin, with its standard
 * streams piped, or inside a pseudo-terminal (`script` from util-linux) when
 * what a terminal sees matters.
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const BIN_SOURCE = join(root, 'src/cli/bin.ts')
/** tsx's loader by URL: the command runs in folders that have no node_modules. */
export const TSX = import.meta.resolve('tsx')

/** Whether `script` (util-linux) can give the process a pseudo-terminal here. */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0

export const freshDir = (label: string) => mkdtempSync(join(tmpdir(), `zidane-cli-${label}-`))

/** An environment without any provider key or colour setting of the machine running the tests. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...extra }
  return env
}

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Run the command to its end with piped streams; `stdin` is written and closed. */
export function runCli(args: readonly string[], options: { env: NodeJS.ProcessEnv, cwd: string, stdin?: string, timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, BIN_SOURCE, ...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.stdin ?? '')
  })
}

const quote = (arg: string) => `'${arg.replaceAll('\'', `'\\''`)}'`

/** A command running in a pseudo-terminal: everything it printed so far (both streams, as the terminal got them). */
export interface PtyRun {
  readonly child: ChildProcessWithoutNullStreams
  readonly output: () => string
  /** Resolves once the output contains `text`. */
  readonly waitFor: (text: string) => Promise<void>
  /** Type into the terminal (`\x03` is Ctrl-C). */
  readonly type: (keys: string) => void
  readonly exit: Promise<number | null>
}

/** Start the command inside `script -qfec`, which gives it a terminal and exits with its code. */
export function runInPty(args: readonly string[], options: { env: NodeJS.ProcessEnv, cwd: string }): PtyRun {
  const command = [process.execPath, '--import', TSX, BIN_SOURCE, ...args].map(quote).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  const waiters: { text: string, resolve: () => void }[] = []
  const onData = (chunk: string) => {
    output += chunk
    for (const waiter of waiters.filter(w => output.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  child.stdout.setEncoding('utf8').on('data', onData)
  child.stderr.setEncoding('utf8').on('data', onData)
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const exit = new Promise<number | null>(resolve => child.on('close', (code) => {
    clearTimeout(timer)
    resolve(code)
  }))
  return {
    child,
    output: () => output,
    waitFor: text => output.includes(text) ? Promise.resolve() : new Promise(resolve => waiters.push({ text, resolve })),
    type: keys => void child.stdin.write(keys),
    exit,
  }
}
