import type { AgentOptions } from '../../src'
import type { FakeModelServer, FakeModelStep } from '../../src/testing'
import type { ReplayRuntimeOptions } from './memory-journal'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { checkpointRuntime, DurablePayloadTooLargeError } from '../../src/durable'
import { AgentBudgetExceededError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { createMemoryStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider, startFakeModelServer } from '../../src/testing'
import { createSpawnTool, edit, readFile as readFileTool, shell } from '../../src/tools'
import { memoryJournal, replayRuntime } from './memory-journal'

let servers: FakeModelServer[] = []
afterEach(async () => {
  await Promise.all(servers.map(server => server.close()))
  servers = []
})

async function serve(script: FakeModelStep[]) {
  const server = await startFakeModelServer({ script })
  servers.push(server)
  return server
}

/**
 * Run `options` on a replay runtime; with `crashAfter`, kill it there and
 * run it again on a new worker (new session handle, agent and runtime) over
 * the same journal. Returns the last run's outcome.
 */
async function runDurably(server: FakeModelServer, options: Omit<AgentOptions, 'provider' | 'session' | 'durable'>, prompt: string, runtime: ReplayRuntimeOptions = {}) {
  const store = createMemoryStore()
  await createSession({ id: 's', store, clock: { now: () => 1, randomUUID: () => 'unused' } })
  const journal = memoryJournal()
  const make = async (runtimeOptions: ReplayRuntimeOptions) => {
    const durable = replayRuntime(journal, runtimeOptions)
    const agent = createAgent({ ...options, provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), session: await loadSession('s', { store }), durable })
    return { agent, durable }
  }
  const first = await make(runtime)
  const running = first.agent.run({ prompt })
  running.catch(() => {})
  const outcome = await Promise.race([running.then(stats => ({ stats }), (error: unknown) => ({ error })), first.durable.crashed.then(() => 'crashed' as const)])
  if (outcome !== 'crashed')
    return { ...outcome, journal, store, crashed: false, second: undefined }
  const second = await make({ ...runtime, crashAfter: undefined })
  const result = await second.agent.run({ prompt }).then(stats => ({ stats }), (error: unknown) => ({ error }))
  return { ...result, journal, store, crashed: true, second: second.durable }
}

describe('maxEntryBytes', () => {
  it('an oversized tool result is journaled as a refusal: an error result, never a retry, and the tool is not run again on replay', async () => {
    let runs = 0
    const big = tool({ name: 'big', description: 'Big output', input: z.object({}), execute: async () => {
      runs += 1
      return 'x'.repeat(5000)
    } })
    const server = await serve([{ toolCalls: [{ id: 'b1', name: 'big', input: {} }] }, { text: 'done' }, { text: 'unused' }])
    const result = await runDurably(server, { tools: { big } }, 'go', { maxEntryBytes: 2000, crashAfter: 3 })
    expect(result.crashed).toBe(true)
    expect('stats' in result && result.stats.stopReason).toBe('completed')
    expect(runs).toBe(1)
    const step = result.journal.order.find(name => name.startsWith('tool:'))!
    expect(JSON.parse(result.journal.steps.get(step)!)).toEqual({ tooLarge: expect.any(Number) })
    const session = await loadSession('s', { store: result.store })
    const block = session.turns.flatMap(turn => turn.content).find(b => b.type === 'tool_result')
    expect(block).toMatchObject({ isError: true, output: expect.stringContaining('maxEntryBytes') })
    expect(server.requests).toHaveLength(2)
  })

  it('an oversized model result ends the run with DurablePayloadTooLargeError, on the first execution and on a replay, asking the model once', async () => {
    const server = await serve([{ text: 'y'.repeat(3000) }, { text: 'unused' }])
    const result = await runDurably(server, {}, 'go', { maxEntryBytes: 1000 })
    expect('error' in result && result.error).toBeInstanceOf(DurablePayloadTooLargeError)
    // A new worker replays the refusal instead of asking again.
    const again = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), session: await loadSession('s', { store: result.store }), durable: replayRuntime(result.journal, { maxEntryBytes: 1000 }) })
    await expect(again.run({ prompt: 'go' })).rejects.toBeInstanceOf(DurablePayloadTooLargeError)
    expect(server.requests).toHaveLength(1)
  })
})

describe('maxWallMs on the journaled clock', () => {
  it('trips at the same turn on every replay, although real time has barely moved', async () => {
    const ping = tool({ name: 'ping', description: 'Ping', input: z.object({}), execute: async () => 'pong' })
    const turns: FakeModelStep[] = Array.from({ length: 8 }, (_, i) => ({ toolCalls: [{ id: `p${i}`, name: 'ping', input: {} }] }))
    const options = { tools: { ping }, behavior: { maxWallMs: 15 * 60_000 } }
    // A minute per clock read: the budget is crossed after a few turns.
    const baselineServer = await serve(turns)
    const baseline = await runDurably(baselineServer, options, 'go', { tick: 60_000 })
    expect('error' in baseline && baseline.error).toBeInstanceOf(AgentBudgetExceededError)
    const tripped = baselineServer.requests.length
    expect(tripped).toBeGreaterThan(1)
    expect(tripped).toBeLessThan(8)
    for (const crashAfter of [2, 5]) {
      const server = await serve(turns)
      const replayed = await runDurably(server, options, 'go', { tick: 60_000, crashAfter })
      expect(replayed.crashed).toBe(true)
      expect('error' in replayed && replayed.error).toBeInstanceOf(AgentBudgetExceededError)
      expect((replayed as { error: AgentBudgetExceededError }).error.message).toBe((baseline as { error: AgentBudgetExceededError }).error.message)
      expect(server.requests).toHaveLength(tripped)
    }
  })
})

describe('disableBackgroundTasks on a durable runtime', () => {
  it('defaults to \'non-durable\' in replay mode: a process context\'s background mode is hidden; a checkpoint run keeps it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zidane-durable-bg-'))
    try {
      const behavior = { tasksDir: join(dir, 'tasks') }
      const hasBackground = (server: FakeModelServer) => {
        const tools = server.requests[0].body.tools as { name: string, input_schema: { properties: Record<string, unknown> } }[]
        return 'run_in_background' in tools.find(t => t.name === 'shell')!.input_schema.properties
      }
      const replayServer = await serve([{ text: 'ok' }])
      await runDurably(replayServer, { tools: { shell }, behavior, execution: createProcessContext({ cwd: dir }) }, 'go')
      expect(hasBackground(replayServer)).toBe(false)

      const checkpointServer = await serve([{ text: 'ok' }])
      const agent = createAgent({ provider: anthropic({ baseURL: checkpointServer.url, apiKey: 'fake' }), tools: { shell }, behavior, execution: createProcessContext({ cwd: dir }), durable: checkpointRuntime() })
      await agent.run({ prompt: 'go' })
      expect(hasBackground(checkpointServer)).toBe(true)

      // Asked for explicitly, it stays on in replay mode too.
      const explicitServer = await serve([{ text: 'ok' }])
      await runDurably(explicitServer, { tools: { shell }, behavior: { ...behavior, disableBackgroundTasks: false }, execution: createProcessContext({ cwd: dir }) }, 'go')
      expect(hasBackground(explicitServer)).toBe(true)
    }
    finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('read state on replay', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zidane-durable-read-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('is rebuilt from the journaled read: an edit after a replayed read passes requireReadBeforeEdit', async () => {
    await writeFile(join(dir, 'a.txt'), 'hello world\n')
    const script: FakeModelStep[] = [
      { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'a.txt' } }] },
      { toolCalls: [{ id: 'e1', name: 'edit', input: { path: 'a.txt', old_string: 'hello', new_string: 'howdy' } }] },
      { text: 'edited' },
    ]
    const server = await serve(script)
    // Killed after the read's entry: the new worker never ran read_file itself.
    const result = await runDurably(server, { tools: { read_file: readFileTool, edit }, behavior: { requireReadBeforeEdit: true }, execution: createProcessContext({ cwd: dir }) }, 'go', { crashAfter: 3 })
    expect(result.crashed).toBe(true)
    expect(result.second!.replayed.some(name => name.includes(':r1'))).toBe(true)
    const session = await loadSession('s', { store: result.store })
    const editResult = session.turns.flatMap(turn => turn.content).find(b => b.type === 'tool_result' && b.callId === 'e1')
    expect(editResult).toMatchObject({ callId: 'e1' })
    expect((editResult as { isError?: boolean }).isError).not.toBe(true)
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('howdy world\n')
  })
})

describe('a subagent on a replay runtime (runsNestedAgent)', () => {
  it('journals its own steps in the parent\'s journal under the spawn call\'s scope, and is not run again on replay', async () => {
    let childWork = 0
    const work = tool({ name: 'work', description: 'Work', input: z.object({}), execute: async () => {
      childWork += 1
      return 'worked'
    } })
    const spawn = createSpawnTool()
    const nestedFlags: Record<string, boolean> = {}
    const server = await serve([
      { toolCalls: [{ id: 's1', name: 'spawn', input: { task: 'do the work' } }] },
      { toolCalls: [{ id: 'w1', name: 'work', input: {} }] },
      { text: 'child done' },
      { text: 'parent done' },
    ])
    // Killed once the child's tool call is journaled, before the child's answer.
    const hooks = { 'tool:before': (ctx: { name: string, runsNestedAgent?: true }) => void (nestedFlags[ctx.name] = ctx.runsNestedAgent === true) }
    const result = await runDurably(server, { tools: { spawn, work }, hooks }, 'delegate', { crashAfter: 4 })
    expect(result.crashed).toBe(true)
    if ('error' in result)
      throw result.error
    expect('stats' in result && result.stats.text).toBe('parent done')
    expect(childWork).toBe(1)
    expect(server.requests).toHaveLength(4)
    const scoped = result.journal.order.filter(name => name.startsWith('call:s1/'))
    expect(scoped.some(name => name.startsWith('call:s1/model:'))).toBe(true)
    expect(scoped.some(name => name.startsWith('call:s1/tool:'))).toBe(true)
    // Hooks see which call runs a subagent.
    expect(nestedFlags).toEqual({ spawn: true })
    // The spawn call itself is no step: its result follows from the child's.
    expect(result.journal.order.some(name => name.startsWith('tool:') && name.endsWith(':s1'))).toBe(false)
  })
})

describe('tool values JSON has no plain form for', () => {
  it('a bigint, a Map and a Set give the same results as in a run without a durable runtime, on the first execution and on a replay', async () => {
    let runs = 0
    const values: Record<string, unknown> = {
      bigint: { balance: 12345678901234567890n },
      map: new Map<string, unknown>([['order', 'A-1'], ['items', new Set([1, 2])]]),
      set: new Set(['a', 'b']),
      top: 42n,
    }
    const value = tool({ name: 'value', description: 'A value', input: z.object({ kind: z.string() }), isConcurrencySafe: true, execute: async ({ kind }) => {
      runs += 1
      // Typed as text, but a JavaScript tool may return any data: the loop writes it as JSON (checkToolOutput).
      return values[kind] as string
    } })
    const script: FakeModelStep[] = [
      { toolCalls: Object.keys(values).map(kind => ({ id: `v-${kind}`, name: 'value', input: { kind } })) },
      { text: 'done' },
    ]
    const results = async (store: Parameters<typeof loadSession>[1]['store']) => {
      const blocks = (await loadSession('s', { store })).turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
      return blocks.map(block => ({ callId: block.callId, output: block.output, isError: block.isError === true }))
    }

    const plainServer = await serve(script)
    const plainStore = createMemoryStore()
    await createSession({ id: 's', store: plainStore })
    const plain = createAgent({ tools: { value }, provider: anthropic({ baseURL: plainServer.url, apiKey: 'fake' }), session: await loadSession('s', { store: plainStore }) })
    await plain.run({ prompt: 'go' })
    const expected = await results(plainStore)
    expect(expected.every(result => !result.isError)).toBe(true)
    expect(expected.find(result => result.callId === 'v-map')!.output).toBe('{"order":"A-1","items":[1,2]}')

    for (const crashAfter of [undefined, 3]) {
      runs = 0
      const server = await serve(script)
      const durable = await runDurably(server, { tools: { value } }, 'go', { crashAfter })
      expect('stats' in durable && durable.stats.stopReason).toBe('completed')
      expect(durable.crashed).toBe(crashAfter !== undefined)
      expect(await results(durable.store)).toEqual(expected)
      // Every call ran once: a replay takes the journaled value, not a second side effect.
      expect(runs).toBe(4)
    }
  })
})

describe('a retry\'s backoff on a replay', () => {
  it('is journaled as its deadline: a replay does not wait again for a backoff the first execution already waited', async () => {
    const backoffMs = 300
    const provider = scriptedProvider([
      { error: { kind: 'rate_limit', retryable: true, retryAfterMs: backoffMs } },
      { text: 'done after a retry' },
    ])
    const store = createMemoryStore()
    await createSession({ id: 's', store, clock: { now: () => 1, randomUUID: () => 'unused' } })
    const journal = memoryJournal()
    // The waits each execution asks a timer for, read off setTimeout: counted, not timed.
    const waitsOf = async () => {
      const waits: number[] = []
      const real = globalThis.setTimeout
      const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fire: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
        if ((ms ?? 0) >= backoffMs / 3)
          waits.push(ms ?? 0)
        return real(() => fire(...rest), ms)
      }) as typeof setTimeout)
      try {
        const agent = createAgent({ provider, session: await loadSession('s', { store }), durable: replayRuntime(journal), behavior: { retry: { maxAttempts: 2, maxDelayMs: 10_000 } } })
        const stats = await agent.run({ prompt: 'go' })
        return { stats, waits }
      }
      finally {
        spy.mockRestore()
      }
    }
    const first = await waitsOf()
    expect(first.stats.text).toBe('done after a retry')
    expect(first.waits).toContain(backoffMs)
    // A worker that died after the run, before its engine took the result: the whole run is replayed from the journal.
    const replay = await waitsOf()
    expect(replay.stats.text).toBe('done after a retry')
    expect(provider.requests).toHaveLength(2)
    // The deadline has passed: nothing left to wait (before, the replay waited the whole backoff again).
    expect(replay.waits).toEqual([])
  })
})
