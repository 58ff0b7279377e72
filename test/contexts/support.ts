import type { ExecutionContext } from '../../src/contexts/types'
import type { ToolContext } from '../../src/tools/types'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { defaultRunEffects } from '../../src/core/effects'

/** A fresh temporary directory per call, all removed when the test file is done. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = []
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `zidane-${prefix}-`))
    made.push(dir)
    return dir
  }
}

/**
 * Whether a process is still running. `process.kill(pid, 0)` alone is not
 * enough here: where init does not reap orphans, a killed grandchild stays
 * listed as a zombie, which is dead for every purpose that matters.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  }
  catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    return state !== 'Z' && state !== 'X'
  }
  catch {
    return true
  }
}

/** Poll `check` until it returns a truthy value; generous bounds, no timing assertions. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 8_000, intervalMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const value = await check()
      if (value)
        return value as NonNullable<T>
    }
    catch (error) {
      last = error
    }
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`)
}

/** A tool context as the agent would build it, carrying `execution`. */
export function toolContext(options: { execution: ExecutionContext, behavior?: Record<string, unknown>, signal?: AbortSignal }): ToolContext {
  const ctx = {
    callId: 'call-1',
    turnId: 'turn-1',
    runId: 'run-1',
    name: 'shell',
    displayName: 'shell',
    signal: options.signal ?? new AbortController().signal,
    depth: 0,
    behavior: options.behavior ?? {},
    state: undefined as unknown as ToolContext['state'],
    reportOutcome: () => {},
    progress: () => {},
    execution: options.execution,
    subagents: { emit: () => {}, reportChild: () => {}, nextChildLabel: () => 'child-1' },
    callTool: () => Promise.reject(new Error('a tool run outside an agent run cannot call other tools')),
    effects: defaultRunEffects(),
  }
  return ctx
}
