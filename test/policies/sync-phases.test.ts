import type { PolicyRunView, ResultPhaseContext, TurnPhaseContext } from '../../src/policies/policy'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { autoCompact } from '../../src/policies/auto-compact'
import { persistResults } from '../../src/policies/persist-results'
import { trackShellReads } from '../../src/policies/track-shell-reads'
import { createSession } from '../../src/session'

/**
 * A phase that answers with a promise is raced by the runner against the
 * run's signal and the wall deadline, which costs a listener, a race and a
 * few promises every time. The built-in phases that run for every tool call
 * or every turn and only sometimes do I/O answer synchronously when they have
 * nothing to do, and with a promise only when they do.
 */

function resultContext(overrides: Partial<ResultPhaseContext<null>>, run: Partial<PolicyRunView> = {}): ResultPhaseContext<null> {
  return {
    run: { runId: 'run', ...run } as PolicyRunView,
    behavior: {},
    state: null,
    turnId: 'turn',
    call: { callId: 'call', name: 'read_note', input: {} } as ResultPhaseContext<null>['call'],
    result: 'short',
    isError: false,
    answer: { kind: 'ran' },
    ...overrides,
  }
}

function isPromise(value: unknown): boolean {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

describe('built-in phases with nothing to do answer synchronously', () => {
  it('persist-results: a result under the threshold, or from an excluded tool', async () => {
    const behavior = { persistThreshold: 100, persistDir: '/nowhere', persistExcludeTools: ['shell'] }
    expect(persistResults.result!(resultContext({ behavior, result: 'x'.repeat(100) }))).toBeUndefined()
    expect(persistResults.result!(resultContext({ behavior, result: [{ type: 'image', data: 'AAAA', mediaType: 'image/png' }] }))).toBeUndefined()
    expect(persistResults.result!(resultContext({ behavior, call: { callId: 'c', name: 'shell', input: {} } as never, result: 'x'.repeat(500) }))).toBeUndefined()
    // Over the threshold it writes, asynchronously, and answers with the stub.
    const dir = mkdtempSync(join(tmpdir(), 'zidane-sync-phases-'))
    const writing = persistResults.result!(resultContext({ behavior: { persistThreshold: 100, persistDir: dir }, result: 'x'.repeat(500) }, {
      effects: { id: () => 'tmp', step: async (_name: string, work: () => Promise<unknown>) => work() } as never,
    }))
    expect(isPromise(writing)).toBe(true)
    const written = await writing
    rmSync(dir, { recursive: true, force: true })
    expect(written).toMatchObject({ decision: { type: 'replace' } })
  })

  it('track-shell-reads: any call but a shell command that exited 0 and only read', async () => {
    const session = await createSession()
    const execution = { resolvePath: (path: string) => path, readFile: async () => undefined }
    const run = { session, execution } as unknown as Partial<PolicyRunView>
    expect(trackShellReads.result!(resultContext({}, run))).toBeUndefined()
    const shell = (command: string, result: string) => resultContext({ call: { callId: 'c', name: 'shell', input: { command } } as never, result }, run)
    expect(trackShellReads.result!(shell('cat a.txt', 'boom\n\n[exit code 1 · 3 ms]'))).toBeUndefined()
    expect(trackShellReads.result!(shell('rm a.txt', '\n[exit code 0 · 3 ms]'))).toBeUndefined()
    const reading = trackShellReads.result!(shell('cat a.txt', 'alpha\n\n[exit code 0 · 3 ms]')) as unknown
    expect(isPromise(reading)).toBe(true)
    await expect(reading).resolves.toBeUndefined()
  })

  it('auto-compact: a turn under the threshold', () => {
    const ctx = {
      run: { contextWindow: 100_000 } as PolicyRunView,
      behavior: { autoCompact: { threshold: 0.8 } },
      state: { lastTurn: 0 },
      turnId: 'turn',
      turn: 3,
      assistant: { id: 'a', role: 'assistant', content: [], createdAt: 0 },
      toolResults: [{ callId: 'c', output: 'ok' }],
      usage: { input: 1_000, output: 10 },
      finishReason: 'tool-calls',
      decided: { ending: false, continues: false },
    } as unknown as TurnPhaseContext<{ lastTurn: number }>
    expect(autoCompact.afterTurn!(ctx)).toBeUndefined()
  })
})
