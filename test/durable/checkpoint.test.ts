import type { SessionStore } from '../../src/session/types'
import type { FakeModelServer, FakeModelStep } from '../../src/testing'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { checkpointRuntime, SessionLeaseError } from '../../src/durable'
import { anthropic } from '../../src/providers/anthropic'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { startFakeModelServer } from '../../src/testing'
import { bundleChildScript } from '../support/child-bundle'

const exec = promisify(execFile)

/** Three steps, one per turn, then the answer. */
const STEPS: FakeModelStep[] = [
  { text: 'Step one.', toolCalls: [{ id: 's1', name: 'step', input: { n: 1 } }] },
  { text: 'Step two.', toolCalls: [{ id: 's2', name: 'step', input: { n: 2 } }] },
  { toolCalls: [{ id: 's3', name: 'step', input: { n: 3 } }] },
  { text: 'All three steps are done.' },
]

let workDir: string
let childScript: string
let servers: FakeModelServer[] = []
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-checkpoint-'))
  childScript = await bundleChildScript('durable-child', workDir)
})
afterEach(async () => {
  await Promise.all(servers.map(server => server.close()))
  servers = []
})
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true })
})

async function serve(script: FakeModelStep[]) {
  const server = await startFakeModelServer({ script })
  servers.push(server)
  return server
}

let sessions = 0
async function freshSession() {
  const dir = join(workDir, `store-${++sessions}`)
  const store = createFileStore({ dir })
  const session = await createSession({ store })
  return { dir, store, id: session.id }
}

/** Run the child worker; its last JSON line, and every line it printed. */
async function worker(mode: 'suspend' | 'resume' | 'crash', dir: string, id: string, server: FakeModelServer) {
  try {
    const { stdout } = await exec(process.execPath, [childScript, mode, dir, id, server.url])
    const lines = stdout.trim().split('\n')
    return { lines, result: JSON.parse(lines.at(-1)!) as { stopReason: string, suspended?: boolean, suspendReason?: string, text: string } }
  }
  catch (error) {
    const failed = error as { stdout: string, stderr: string, signal?: string }
    return { lines: failed.stdout.trim().split('\n'), result: undefined, signal: failed.signal, stderr: failed.stderr }
  }
}

describe('suspend and resume across processes', () => {
  it('one process suspends at a turn boundary; another resumes the run from its saved state and finishes it', async () => {
    const server = await serve(STEPS)
    const { dir, id } = await freshSession()
    const first = await worker('suspend', dir, id, server)
    expect(first.stderr).toBeUndefined()
    expect(first.result).toEqual({ stopReason: 'suspended', suspended: true, suspendReason: 'deploying a new version', text: 'Step one.', turns: 1 })
    expect(first.lines).toEqual(['step 1', expect.any(String)])

    const second = await worker('resume', dir, id, server)
    expect(second.result).toMatchObject({ stopReason: 'completed', text: 'All three steps are done.' })
    expect(second.lines.filter(line => line.startsWith('step '))).toEqual(['step 2', 'step 3'])
    // Each turn asked once, and the resumed request carried the first leg's work.
    expect(server.requests).toHaveLength(4)
    expect(server.requests[1].toolResults).toEqual(['step 1 done'])

    const session = await loadSession(id, { store: createFileStore({ dir }) })
    expect(session.runs.map(run => run.stopReason)).toEqual(['suspended', 'completed'])
    // The second leg continued the first's state: its turn count runs on.
    expect(session.runs[1].state?.turnCount).toBe(4)
  }, 60_000)

  it('suspend works without a durable runtime too: the run stops at the boundary after the call that asked, and resume() picks it up', async () => {
    const server = await serve(STEPS)
    const { store } = await freshSession()
    const session = await createSession({ store })
    const seen: number[] = []
    let agent!: ReturnType<typeof createAgent>
    const step = tool({ name: 'step', description: 'Do one step of the work', input: z.object({ n: z.number() }), execute: async ({ n }) => {
      seen.push(n)
      if (n === 2)
        expect(agent.suspend()).toBe(true)
      return `step ${n} done`
    } })
    agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: { step }, session })
    const suspended = await agent.run({ prompt: 'Do the three steps.' })
    expect(suspended).toMatchObject({ stopReason: 'suspended', suspended: true, turns: 2 })
    expect(suspended.suspendReason).toBeUndefined()
    expect(seen).toEqual([1, 2])
    const finished = await agent.resume()
    expect(finished).toMatchObject({ stopReason: 'completed', text: 'All three steps are done.', turns: 2 })
    expect(seen).toEqual([1, 2, 3])
    expect(server.requests).toHaveLength(4)
  })

  it('agent.resume() refuses a session whose last run finished, and an agent without a session', async () => {
    const server = await serve([{ text: 'done' }])
    const { store } = await freshSession()
    const session = await createSession({ store })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), session, durable: checkpointRuntime() })
    await expect(agent.resume()).rejects.toThrow(/no suspended, paused or unfinished run/)
    await agent.run({ prompt: 'hi' })
    await expect(agent.resume()).rejects.toThrow(/no suspended, paused or unfinished run/)
    const bare = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }) })
    await expect(bare.resume()).rejects.toThrow(/needs an agent with a session/)
    expect(bare.suspend()).toBe(false)
  })
})

describe('a crash on a checkpoint runtime', () => {
  it('keeps the model output the crash cut off as an aborted turn: in the transcript, out of the model context, the request sent again', async () => {
    const server = await serve([...STEPS.slice(0, 2), ...STEPS.slice(1)])
    const { dir, id } = await freshSession()
    const crashed = await worker('crash', dir, id, server)
    expect(crashed.signal).toBe('SIGKILL')
    expect(crashed.lines).toEqual(['step 1', 'step 2'])
    // The model's second turn was stored before its tool ran.
    const stored = await loadSession(id, { store: createFileStore({ dir }) })
    expect(stored.turns.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Step two.' }, { type: 'tool_call', id: 's2' }] })

    // The file store sees the dead worker's pid is gone and hands its lease over at once: a new worker resumes.
    const session = await loadSession(id, { store: createFileStore({ dir }) })
    const step = tool({ name: 'step', description: 'Do one step of the work', input: z.object({ n: z.number() }), execute: async ({ n }) => `step ${n} done` })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: { step }, session, durable: checkpointRuntime() })
    const stats = await agent.resume()
    expect(stats).toMatchObject({ stopReason: 'completed', text: 'All three steps are done.' })
    // The cut-off turn was asked again: its request does not carry it.
    expect(server.requests).toHaveLength(5)
    expect(JSON.stringify(server.requests[2].body.messages)).not.toContain('Step two.')
    expect(JSON.stringify(server.requests[3].body.messages)).toContain('Step two.')
    // The transcript keeps the cut-off output, marked aborted, and then the answer asked again.
    const twos = session.turns.filter(turn => turn.role === 'assistant' && JSON.stringify(turn.content).includes('Step two.'))
    expect(twos.map(turn => turn.aborted)).toEqual([true, undefined])
    expect(twos[0].content).toEqual([{ type: 'text', text: 'Step two.' }, expect.objectContaining({ type: 'tool_call', id: 's2' })])
  }, 60_000)
})

describe('the checkpoint lease', () => {
  function countingStore(store: SessionStore) {
    const counts = { renewals: 0 }
    const wrapped: SessionStore = {
      ...store,
      renewLease: (id: string, owner: string, ttlMs: number) => {
        counts.renewals += 1
        return store.renewLease!(id, owner, ttlMs)
      },
    }
    return { store: wrapped, counts }
  }

  it('is renewed every leaseRenewMs while the run lives, and a second writer gets SessionLeaseError', async () => {
    const server = await serve([{ toolCalls: [{ id: 'w1', name: 'wait', input: {} }] }, { text: 'done' }])
    const { dir, id } = await freshSession()
    const { store, counts } = countingStore(createFileStore({ dir }))
    let second: Promise<unknown> | undefined
    const wait = tool({ name: 'wait', description: 'Wait', input: z.object({}), execute: async () => {
      // While this run holds the lease, another handle on the same session tries to run.
      const other = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), session: await loadSession(id, { store: createFileStore({ dir }) }), durable: checkpointRuntime() })
      second = other.run({ prompt: 'me too' }).catch((error: unknown) => error)
      await new Promise(resolve => setTimeout(resolve, 450))
      return 'waited'
    } })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: { wait }, session: await loadSession(id, { store }), durable: checkpointRuntime({ leaseRenewMs: 100 }) })
    const stats = await agent.run({ prompt: 'wait' })
    expect(stats.stopReason).toBe('completed')
    expect(counts.renewals).toBeGreaterThanOrEqual(3)
    expect(await second).toBeInstanceOf(SessionLeaseError)
    expect(server.requests).toHaveLength(2)
  })

  it('with the default interval (60 s), a short run renews nothing; a bad interval is refused at once', async () => {
    const server = await serve([{ toolCalls: [{ id: 'w1', name: 'wait', input: {} }] }, { text: 'done' }])
    const { dir } = await freshSession()
    const { store, counts } = countingStore(createFileStore({ dir }))
    const wait = tool({ name: 'wait', description: 'Wait', input: z.object({}), execute: async () => {
      await new Promise(resolve => setTimeout(resolve, 250))
      return 'waited'
    } })
    const session = await loadSession((await createSession({ store })).id, { store })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: { wait }, session, durable: checkpointRuntime() })
    await agent.run({ prompt: 'wait' })
    expect(counts.renewals).toBe(0)
    expect(() => checkpointRuntime({ leaseRenewMs: 0 })).toThrow(TypeError)
    expect(() => checkpointRuntime({ leaseRenewMs: Number.NaN })).toThrow(TypeError)
  })

  it('takes the run\'s ids and times from its now and randomUUID', async () => {
    const server = await serve([{ text: 'done' }])
    const { store } = await freshSession()
    const session = await createSession({ store })
    let ids = 0
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), session, durable: checkpointRuntime({ now: () => 42_000, randomUUID: () => `id-${++ids}` }) })
    await agent.run({ prompt: 'hi' })
    expect(session.runs[0]).toMatchObject({ id: 'id-1', startedAt: 42_000, endedAt: 42_000 })
    expect(session.turns.map(turn => turn.createdAt)).toEqual([42_000, 42_000])
  })
})
