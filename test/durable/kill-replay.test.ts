import type { FakeModelStep } from '../../src/testing'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { startFakeModelServer } from '../../src/testing'
import { bundleChildScript } from '../support/child-bundle'

const exec = promisify(execFile)

const SCRIPT: FakeModelStep[] = [
  { text: 'Charging two.', toolCalls: [{ id: 'c1', name: 'charge', input: { who: 'ann' } }, { id: 'c2', name: 'charge', input: { who: 'bob' } }] },
  { toolCalls: [{ id: 'c3', name: 'charge', input: { who: 'cy' } }] },
  { text: 'All charged.' },
]

let workDir: string
let childScript: string
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-kill-replay-'))
  childScript = await bundleChildScript('replay-child', workDir)
})
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true })
})

/** A worker process over a file journal: killed with SIGKILL before new step `killAt` (-1: never), then run again. */
async function scenario(name: string, killAt: number) {
  const server = await startFakeModelServer({ script: SCRIPT })
  try {
    const dir = join(workDir, name)
    const session = await createSession({ store: createFileStore({ dir }), clock: { now: () => 1, randomUUID: () => 'unused' } })
    const args = [childScript, dir, session.id, server.url, join(workDir, `${name}.journal`), join(workDir, `${name}.effects`)]
    let killed = false
    if (killAt >= 0) {
      const died = await exec(process.execPath, [...args, String(killAt)]).then(() => undefined, (error: { signal?: string }) => error.signal)
      killed = died === 'SIGKILL'
    }
    const { stdout } = await exec(process.execPath, [...args, '-1'])
    const stored = await loadSession(session.id, { store: createFileStore({ dir }) })
    return {
      killed,
      result: JSON.parse(stdout.trim()) as { stopReason: string, text: string },
      effects: (await readFile(join(workDir, `${name}.effects`), 'utf8')).trim().split('\n'),
      requests: server.requests.length,
      recorded: JSON.stringify({ turns: stored.turns, runs: stored.runs }),
    }
  }
  finally {
    await server.close()
  }
}

describe('a replay-mode worker killed with SIGKILL', () => {
  it('is replayed by a new process from its file journal: every side effect once, every turn asked once, the same session', async () => {
    const baseline = await scenario('baseline', -1)
    expect(baseline.result).toEqual({ stopReason: 'completed', text: 'All charged.' })
    // Killed before the first model call, before the second, before the lone tool, before the answer.
    for (const killAt of [1, 4, 5, 6]) {
      const run = await scenario(`kill-${killAt}`, killAt)
      expect(run.killed, `kill before step ${killAt}`).toBe(true)
      expect(run.result).toEqual(baseline.result)
      expect([...run.effects].sort()).toEqual(['c1', 'c2', 'c3'])
      expect(run.requests).toBe(3)
      expect(run.recorded, `kill before step ${killAt}`).toBe(baseline.recorded)
    }
  }, 120_000)
})
