/**
 * Programs a test starts to see how a process behaves as a whole: whether it
 * exits by itself, and what Node prints as warnings.
 */

import { spawn } from 'node:child_process'
import { afterEach, beforeEach } from 'vitest'

/** How a program started by `runUntilExit` ended. */
export interface ProgramEnd {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Whether it was still running at the bound and was SIGKILLed. */
  timedOut: boolean
}

/** Run a TypeScript program under tsx and wait for it to end by itself; SIGKILL it past `boundMs`. */
export function runUntilExit(script: string, args: readonly string[], boundMs: number): Promise<ProgramEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, boundMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, timedOut })
    })
  })
}

/**
 * The process warnings of each test of the file (listened to from its start
 * to its end), and a wait for the ones a call caused: Node emits a warning on
 * a later tick than the listener that caused it.
 */
export function processWarnings(): { list: () => Error[], settle: () => Promise<void> } {
  let warnings: Error[] = []
  const onWarning = (warning: Error) => void warnings.push(warning)
  beforeEach(() => {
    warnings = []
    process.on('warning', onWarning)
  })
  afterEach(() => {
    process.off('warning', onWarning)
  })
  return { list: () => warnings, settle: () => new Promise(resolve => setImmediate(resolve)) }
}
