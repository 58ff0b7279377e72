import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import type { SessionTurn } from '../../src/core/content'
import type { SessionStore } from '../../src/session/types'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { SessionLeaseError } from '../../src/errors'
import { createSession, loadSession } from '../../src/session'
import { createSqliteStore } from '../../src/session/sqlite'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'
import { bundleChildScript } from '../support/child-bundle'

// Two processes running agents on one stored session: exactly one writes it,
// the other gets SessionLeaseError, and the session holds the winner's whole
// conversation and nothing else. A writer killed with SIGKILL leaves a lease
// that a new run takes over (at once when the dead process is provably gone,
// after expiry otherwise) and resumes from.

type Kind = 'file' | 'sqlite'

interface Outcome {
  outcome: 'completed' | 'failed' | 'killed'
  name?: string
  text?: string
  lease?: { reason: string, holder?: { pid?: number } }
}

interface Child {
  pid: number
  ready: Promise<void>
  go: () => void
  /** Resolves once the child printed `stored <n>`. */
  stored: (n: number) => Promise<void>
  kill: () => void
  done: Promise<Outcome>
}

const TRIALS = 3
const TURNS = 6
let workDir: string
let childScript: string

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-two-writers-'))
  childScript = await bundleChildScript('lease-child', workDir, ['better-sqlite3'])
})

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true })
})

function startChild(kind: Kind, path: string, sessionId: string, tag: string, turns: number, renewMs: number): Child {
  // The bundle lives outside the project: NODE_PATH lets it find better-sqlite3.
  const env = { ...process.env, NODE_PATH: fileURLToPath(new URL('../../node_modules', import.meta.url)) }
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [childScript, kind, path, sessionId, tag, String(turns), String(renewMs)], { env })
  let output = ''
  const waiters: { text: string, resolve: () => void, reject: (error: Error) => void }[] = []
  const check = () => {
    for (const waiter of waiters.filter(w => output.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  const until = (text: string) => new Promise<void>((resolve, reject) => {
    waiters.push({ text, resolve, reject })
    check()
  })
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    check()
  })
  let errors = ''
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
  })
  const done = new Promise<Outcome>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      // Whatever the test still waits for will never be printed now.
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`child exited before printing ${JSON.stringify(waiter.text)}: ${output}${errors}`))
      if (signal === 'SIGKILL')
        return resolve({ outcome: 'killed' })
      const last = output.trim().split('\n').at(-1) ?? ''
      if (code !== 0 || !last.startsWith('{'))
        return reject(new Error(`child exited with ${code}: ${output}${errors}`))
      resolve(JSON.parse(last) as Outcome)
    })
  })
  return {
    pid: child.pid!,
    ready: until('ready\n'),
    go: () => child.stdin.write('go\n'),
    stored: n => until(`stored ${n}\n`),
    kill: () => child.kill('SIGKILL'),
    done,
  }
}

function openStore(kind: Kind, path: string): SessionStore {
  return kind === 'sqlite' ? createSqliteStore({ path }) : createFileStore({ dir: path })
}

function storePath(kind: Kind, name: string): string {
  return kind === 'sqlite' ? join(workDir, name, 'sessions.db') : join(workDir, name)
}

/** Every tool call answered by the next turn, and every result asked for by the turn before. */
function expectPaired(turns: readonly SessionTurn[]): void {
  for (let i = 0; i < turns.length; i++) {
    const calls = turns[i].content.flatMap(block => block.type === 'tool_call' ? [block.id] : [])
    if (calls.length > 0)
      expect(turns[i + 1]?.content.flatMap(block => block.type === 'tool_result' ? [block.callId] : [])).toEqual(calls)
  }
}

function textOf(turn: SessionTurn): string {
  return turn.content.map(block => block.type === 'text' ? block.text : block.type === 'tool_result' ? String(block.output) : '').join('')
}

/** Point the stored lease at another host, so the store cannot tell its holder is dead and must wait for expiry. */
async function moveLeaseToAnotherHost(kind: Kind, path: string, sessionId: string): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(path)
    db.prepare('UPDATE zidane_leases SET hostname = ? WHERE session_id = ?').run('another-host', sessionId)
    db.close()
    return
  }
  const file = join(path, `${sessionId}.lease`)
  const record = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
  await writeFile(file, JSON.stringify({ ...record, hostname: 'another-host' }))
}

const work = { spec: { name: 'work', description: 'w', inputSchema: { type: 'object' } }, execute: () => 'late work' }

describe.each(['file', 'sqlite'] as const)('two processes on one %s-store session', (kind) => {
  it(`lets exactly one write it, ${TRIALS} times out of ${TRIALS}`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const path = storePath(kind, `${kind}-race-${trial}`)
      const setup = openStore(kind, path)
      const { id } = await createSession({ store: setup })
      await setup.close?.()

      const alpha = startChild(kind, path, id, 'alpha', TURNS, 1000)
      const beta = startChild(kind, path, id, 'beta', TURNS, 1000)
      await Promise.all([alpha.ready, beta.ready])
      alpha.go()
      beta.go()
      const outcomes = await Promise.all([alpha.done, beta.done])

      const winners = outcomes.filter(outcome => outcome.outcome === 'completed')
      expect(winners, JSON.stringify(outcomes)).toHaveLength(1)
      const winnerTag = winners[0].text!.split(' ')[0]
      const loser = outcomes.find(outcome => outcome.outcome !== 'completed')!
      const winnerPid = winnerTag === 'alpha' ? alpha.pid : beta.pid
      expect(loser).toMatchObject({ outcome: 'failed', name: 'SessionLeaseError', lease: { reason: 'held', holder: { pid: winnerPid } } })

      const reader = openStore(kind, path)
      const stored = await loadSession(id, { store: reader })
      expect(stored.runs.map(run => run.status)).toEqual(['completed'])
      // Every acknowledged turn of the winner, and not one of the loser's.
      expect(stored.turns).toHaveLength(1 + TURNS * 2 + 1)
      expect(stored.turns.every(turn => turn.runId === stored.runs[0].id)).toBe(true)
      expect(stored.turns.every(turn => textOf(turn).startsWith(winnerTag))).toBe(true)
      expectPaired(stored.turns)
      await reader.close?.()
    }
  }, 120_000)

  it.each(['its process is dead', 'its lease expired'] as const)('takes over from a writer killed with SIGKILL once %s, and resumes cleanly', async (how) => {
    const path = storePath(kind, `${kind}-kill-${how.split(' ')[1]}`)
    const setup = openStore(kind, path)
    const { id } = await createSession({ store: setup })
    await setup.close?.()

    // Renewed every second, the killed writer's lease lasts three.
    const victim = startChild(kind, path, id, 'victim', 200, 1000)
    await victim.ready
    victim.go()
    await victim.stored(3)
    victim.kill()
    expect((await victim.done).outcome).toBe('killed')

    const store = openStore(kind, path)
    const before = await loadSession(id, { store })
    expect(before.runs.map(run => run.status)).toEqual(['running'])
    expectPaired(before.turns)
    const resume = createAgent({ provider: scriptedProvider([{ text: 'resumed and finished' }]), tools: { work }, session: before })

    if (how === 'its lease expired') {
      await moveLeaseToAnotherHost(kind, path, id)
      const refused = await resume.run().then(() => undefined, (error: unknown) => error)
      expect(refused).toBeInstanceOf(SessionLeaseError)
      expect(refused).toMatchObject({ reason: 'held', holder: { pid: victim.pid, hostname: 'another-host' } })
      const expiresAt = (refused as SessionLeaseError).holder!.expiresAt
      await new Promise(resolve => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50))
    }

    const stats = await resume.run()
    expect(stats.text).toBe('resumed and finished')
    const after = await loadSession(id, { store: openStore(kind, path) })
    expect(after.turns.slice(0, before.turns.length).map(turn => turn.id)).toEqual(before.turns.map(turn => turn.id))
    expect(after.turns.at(-1)?.content).toEqual([{ type: 'text', text: 'resumed and finished' }])
    expect(after.runs.map(run => run.status)).toEqual(['running', 'completed'])
    expectPaired(after.turns)
    await store.close?.()
  }, 60_000)
})
