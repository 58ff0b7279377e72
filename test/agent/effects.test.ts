import type { ModelCallKind, ModelCallRequest, RunEffects, ToolCallRequest } from '../../src'
import type { FakeAnthropic, FakeResponse } from '../support/fake-anthropic'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, defaultRunEffects, definePolicy, tool } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { anthropic } from '../../src/providers/anthropic'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { runPolicyScript, scriptedProvider, testEffects } from '../../src/testing'
import { createSpawnTool } from '../../src/tools/spawn'
import { bundleChildScript } from '../support/child-bundle'
import { startFakeAnthropic } from '../support/fake-anthropic'

const run = promisify(execFile)

describe('testEffects: two runs of one script in two processes', () => {
  let workDir: string
  let childScript: string
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'zidane-effects-'))
    childScript = await bundleChildScript('effects-child', workDir)
  })
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true })
  })

  /** Run the child on a store of its own; its session (as the store gives it back) and what it printed. */
  async function runChild(name: string) {
    const dir = join(workDir, name)
    const { stdout } = await run(process.execPath, [childScript, dir, 'same-session'])
    const session = await loadSession('same-session', { store: createFileStore({ dir }) })
    // The store's own write times (`updatedAt`) are the store's, not the run's: everything the run recorded is compared.
    const recorded = JSON.stringify({ id: session.id, createdAt: session.createdAt, turns: session.turns, runs: session.runs })
    return { recorded, printed: stdout, result: JSON.parse(stdout) as { stats: { elapsed: number, turnUsage: { streamDurationMs: number, timeToFirstTokenMs: number }[] }, retryDelays: number[] } }
  }

  it('record byte-identical sessions, durations and retry delays included', async () => {
    const first = await runChild('first')
    const second = await runChild('second')
    expect(second.recorded).toBe(first.recorded)
    expect(second.printed).toBe(first.printed)

    // What makes this more than two empty records: time moved, the retry drew a delay, tools were timed.
    const { stats, retryDelays } = first.result
    expect(retryDelays).toHaveLength(1)
    expect(retryDelays[0]).toBeGreaterThan(0)
    expect(retryDelays[0]).toBeLessThan(20_000)
    expect(stats.elapsed).toBeGreaterThan(0)
    expect(stats.turnUsage[0].streamDurationMs).toBeGreaterThan(0)
    expect(stats.turnUsage[0].timeToFirstTokenMs).toBeGreaterThan(0)
    const turns = JSON.parse(first.recorded).turns as { id: string, createdAt: number, content: { type: string, durationMs?: number }[] }[]
    const results = turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_result'))
    expect(results).toHaveLength(3)
    // The compaction's side call was made and recorded, its time included.
    const summary = turns.flatMap(turn => turn.content).find(block => block.type === 'compact-summary') as { compactedAt: number } | undefined
    expect(summary?.compactedAt).toBeGreaterThan(1_764_633_600_000)
    for (const result of results)
      expect(result.durationMs).toBeGreaterThan(0)
    // Turn ids and timestamps come from the effects: counted ids, time from `start`.
    expect(turns[0].id).toMatch(/^00000000-0000-4000-8000-0{8}[0-9a-f]{4}$/)
    expect(turns[0].createdAt).toBeGreaterThanOrEqual(1_764_633_600_000)
  }, 60_000)
})

describe('testEffects', () => {
  it('moves time by `step` per read from `start`, counts ids, and draws the same numbers from the same seed', () => {
    const effects = testEffects({ start: 1000, step: 5, seed: 7 })
    expect([effects.now(), effects.now(), effects.now()]).toEqual([1000, 1005, 1010])
    expect([effects.id(), effects.id()]).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'])
    const draws = Array.from({ length: 200 }, testEffects({ seed: 7 }).random)
    expect(Array.from({ length: 200 }, testEffects({ seed: 7 }).random)).toEqual(draws)
    expect(Array.from({ length: 200 }, testEffects({ seed: 8 }).random)).not.toEqual(draws)
    for (const draw of draws) {
      expect(draw).toBeGreaterThanOrEqual(0)
      expect(draw).toBeLessThan(1)
    }
    // Spread out over [0, 1), not stuck in a corner.
    expect(Math.min(...draws)).toBeLessThan(0.1)
    expect(Math.max(...draws)).toBeGreaterThan(0.9)
  })

  it('stands still by default, and sleeps at once unless the signal has aborted', async () => {
    const effects = testEffects()
    expect([effects.now(), effects.now()]).toEqual([0, 0])
    await effects.sleep(60_000)
    await expect(effects.sleep(10, AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped')
  })
})

describe('a host\'s effects', () => {
  let fake: FakeAnthropic
  let dir: string
  beforeAll(async () => {
    fake = await startFakeAnthropic()
    dir = await mkdtemp(join(tmpdir(), 'zidane-effects-host-'))
  })
  afterAll(async () => {
    await fake.close()
    await rm(dir, { recursive: true, force: true })
  })

  const turn = (input_tokens: number, toolCall?: { id: string, name: string, input: Record<string, unknown> }, text?: string): FakeResponse =>
    ({ type: 'turn', turn: { ...(toolCall ? { toolCalls: [toolCall] } : {}), ...(text ? { text } : {}), usage: { input_tokens, output_tokens: 10 } } })
  const decisionAnswer: FakeResponse = { type: 'turn', turn: { toolCalls: [{ name: 'record_answers', input: { safe: { value: true, refused: false, reason: 'reads only' } } }], usage: { input_tokens: 50, output_tokens: 10 } } }

  it('see every model call (turns, a compaction summary, a decision), every tool execution and the policies\' I/O', async () => {
    await writeFile(join(dir, 'notes.txt'), 'the notes as they are now')
    fake.enqueue(
      turn(100, { id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } }),
      decisionAnswer,
      turn(100, { id: 'toolu_2', name: 'dump', input: { letter: 'b', size: 400 } }),
      turn(950, { id: 'toolu_3', name: 'dump', input: { letter: 'c', size: 10 } }),
      turn(100, undefined, 'SUMMARY'),
      turn(100, undefined, 'done'),
    )
    const seen: string[] = []
    const models: { kind: ModelCallKind, request: ModelCallRequest }[] = []
    const tools: ToolCallRequest[] = []
    const effects: RunEffects = {
      ...defaultRunEffects(),
      model: (kind, request, exec) => {
        models.push({ kind, request })
        seen.push(`model:${kind}`)
        return exec()
      },
      tool: (call, exec) => {
        tools.push(call)
        seen.push(`tool:${call.name}`)
        return exec()
      },
      step: (name, exec) => {
        seen.push(`step:${name}`)
        return exec()
      },
    }
    const readFile = tool({
      name: 'read_file',
      description: 'Read a file',
      input: z.object({ path: z.string() }),
      execute: async ({ path }, ctx) => new TextDecoder().decode(await ctx.execution.readFile(path)),
    })
    const dump = tool({
      name: 'dump',
      description: 'Print a block of text',
      input: z.object({ letter: z.string(), size: z.number() }),
      execute: ({ letter, size }) => letter.repeat(size),
    })
    const agent = createAgent({
      provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
      execution: createProcessContext({ cwd: dir }),
      tools: { read_file: readFile, dump },
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 }, persistThreshold: 200, persistDir: join(dir, 'persisted'), persistExcludeTools: ['read_file'] },
    })
    let asked = false
    agent.hooks.hook('tool:gate', async (ctx) => {
      if (asked)
        return
      asked = true
      await ctx.decide({ input: 'cat notes.txt', questions: { safe: { kind: 'predicate', question: 'Is the command safe to run?' } } })
    })
    let runId: string | undefined
    agent.hooks.hook('agent:start', (ctx) => {
      runId = ctx.runId
    })

    // Given to the run: the run's own effects win over the agent's (the defaults here).
    const stats = await agent.run({ prompt: 'go', effects })
    expect(stats.stopReason).toBe('completed')

    expect(seen).toEqual([
      'model:turn',
      'model:decision',
      'tool:read_file',
      'model:turn',
      'tool:dump',
      'step:persist-results:write',
      'model:turn',
      'tool:dump',
      'model:side-call',
      'step:compact-summary:restore-files',
      'model:turn',
    ])
    expect(models.every(({ request }) => request.provider === 'anthropic' && request.runId === runId && request.attempt === 1)).toBe(true)
    expect(models.find(({ kind }) => kind === 'decision')!.request).toMatchObject({ model: 'claude-sonnet-4-6', body: { schema: expect.any(Object) } })
    expect(models[0].request).toMatchObject({ model: 'claude-sonnet-4-6', body: { messages: [{ role: 'user' }] } })
    expect(tools.map(({ callId, name, input }) => ({ callId, name, input }))).toEqual([
      { callId: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } },
      { callId: 'toolu_2', name: 'dump', input: { letter: 'b', size: 400 } },
      { callId: 'toolu_3', name: 'dump', input: { letter: 'c', size: 10 } },
    ])
    // The step did write the file.
    expect(await readdir(join(dir, 'persisted'))).toHaveLength(1)
  })

  it('reach a subagent: its model calls go through the parent run\'s effects, and its turns take their ids', async () => {
    const models: { kind: ModelCallKind, provider: string }[] = []
    const effects: RunEffects = {
      ...testEffects(),
      model: (kind, request, exec) => {
        models.push({ kind, provider: request.provider })
        return exec()
      },
    }
    const childProvider = scriptedProvider([{ text: 'child answer' }], { name: 'kid' })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'spawn', input: { task: 'look around' } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { spawn: createSpawnTool({ child: { provider: childProvider } }) }, session: await createSession() })
    await agent.run({ prompt: 'go', effects })
    expect(models).toEqual([{ kind: 'turn', provider: 'scripted' }, { kind: 'turn', provider: 'kid' }, { kind: 'turn', provider: 'scripted' }])
    // Every turn of the session, the child's included, was named by the effects' counted ids.
    expect(agent.session!.turns.every(turn => turn.id.startsWith('00000000-0000-4000-8000-'))).toBe(true)
    expect(agent.session!.runs).toHaveLength(2)
  })

  it('of the agent see agent.decide outside a run', async () => {
    fake.enqueue(decisionAnswer)
    const models: { kind: ModelCallKind, request: ModelCallRequest }[] = []
    const agent = createAgent({
      provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-haiku-4-5' }),
      effects: {
        ...defaultRunEffects(),
        model: (kind, request, exec) => {
          models.push({ kind, request })
          return exec()
        },
      },
    })
    const outcome = await agent.decide({ input: 'ls', questions: { safe: { kind: 'predicate', question: 'Is the command safe to run?' } } })
    expect(outcome.ok).toBe(true)
    expect(models).toEqual([{ kind: 'decision', request: expect.objectContaining({ provider: 'anthropic', model: 'claude-haiku-4-5', id: outcome.decisionId, attempt: 1 }) }])
    expect(models[0].request.runId).toBeUndefined()
  })

  it('reach a policy under runPolicyScript, whose steps go through the effects it is given', async () => {
    const steps: string[] = []
    const writes: string[] = []
    const journaling = definePolicy<null>({
      name: 'journaling',
      result: async ({ run, call }) => {
        await run.effects.step('journaling:write', async () => {
          writes.push(call.name)
        })
        return undefined
      },
    })
    await runPolicyScript(journaling, {
      effects: { ...testEffects(), step: (name, exec) => {
        steps.push(name)
        return exec()
      } },
      steps: [{ phase: 'result', call: { name: 'read_file' }, result: 'text' }],
    })
    expect(steps).toEqual(['journaling:write'])
    expect(writes).toEqual(['read_file'])
  })

  it('reach tools as ctx.effects', async () => {
    const effects = testEffects({ start: 5_000, step: 1 })
    const seen: number[] = []
    const clockTool = tool({
      name: 'now',
      description: 'Tell the time',
      input: z.object({}),
      execute: (_input, ctx) => {
        seen.push(ctx.effects.now())
        return 'ok'
      },
    })
    const agent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'now', input: {} }] }, { text: 'done' }]), tools: { now: clockTool }, effects })
    await agent.run({ prompt: 'what time is it' })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeGreaterThan(5_000)
    expect(seen[0]).toBeLessThan(5_100)
  })
})
