import type { SessionTurn } from '../../src/core/content'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'
import { bundleChildScript } from '../support/child-bundle'

// A process killed with SIGKILL at a random point must leave a session that
// loads, resumes to completion, keeps every tool call paired with its result,
// and neither loses nor duplicates a turn it had stored.

const TRIALS = Number(process.env.ZIDANE_CRASH_TRIALS ?? 50)
let workDir: string
let childScript: string

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-crash-'))
  childScript = await bundleChildScript('crash-child', workDir)
})

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true })
})

/** Start the child, wait for it to begin, kill it after `killAfterMs` (if still running). */
function runAndKill(dir: string, sessionId: string, killAfterMs: number): Promise<'killed' | 'finished'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, dir, sessionId], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (!timer && output.includes('ready'))
        timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL')
        resolve('killed')
      else if (code === 0)
        resolve('finished')
      else
        reject(new Error(`child exited with ${code}: ${output}`))
    })
  })
}

function assertPaired(turns: readonly SessionTurn[]): void {
  for (let i = 0; i < turns.length; i++) {
    const calls = turns[i].content.flatMap(block => block.type === 'tool_call' ? [block.id] : [])
    const results = turns[i].content.flatMap(block => block.type === 'tool_result' ? [block.callId] : [])
    if (calls.length > 0) {
      const answered = turns[i + 1]?.content.flatMap(block => block.type === 'tool_result' ? [block.callId] : []) ?? []
      expect(answered, `tool calls of turn ${i} must be answered by the next turn`).toEqual(calls)
    }
    if (results.length > 0) {
      const asked = turns[i - 1]?.content.flatMap(block => block.type === 'tool_call' ? [block.id] : []) ?? []
      expect(asked).toEqual(results)
    }
  }
}

describe('crash recovery', () => {
  it(`survives SIGKILL at ${TRIALS} random points`, async () => {
    const outcomes = { killed: 0, finished: 0 }
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = join(workDir, `trial-${trial}`)
      const store = createFileStore({ dir })
      const session = await createSession({ store })
      // Kill points spread over the child's whole run (about 40-80 ms of work).
      const outcome = await runAndKill(dir, session.id, Math.floor(Math.random() * 90))
      outcomes[outcome]++

      const reopened = createFileStore({ dir })
      const before = await loadSession(session.id, { store: reopened })
      assertPaired(before.turns)
      expect(new Set(before.turns.map(turn => turn.id)).size).toBe(before.turns.length)

      const resumer = scriptedProvider([{ text: 'resumed and finished' }])
      const agent = createAgent({ provider: resumer, session: before, tools: { work: { spec: { name: 'work', description: 'w', inputSchema: { type: 'object' } }, execute: () => 'late work' } } })
      const lastRole = before.turns.at(-1)?.role
      const stats = before.turns.length === 0 ? await agent.run({ prompt: 'do the work' }) : await agent.run()
      if (lastRole === 'assistant' && !before.turns.at(-1)!.content.some(block => block.type === 'tool_call'))
        expect(stats.turns).toBe(0)
      else
        expect(stats.text).toBe('resumed and finished')

      const after = await loadSession(session.id, { store: createFileStore({ dir }) })
      expect(after.turns.slice(0, before.turns.length).map(turn => turn.id)).toEqual(before.turns.map(turn => turn.id))
      assertPaired(after.turns)
      await store.close?.()
    }
    // The random kill points must actually land mid-run most of the time.
    expect(outcomes.killed).toBeGreaterThan(TRIALS / 2)
  }, 120_000)
})
