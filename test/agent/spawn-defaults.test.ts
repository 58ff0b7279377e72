import type { SpawnErrorContext, ToolContext } from '../../src'
import type { StreamOptions } from '../../src/providers'
import type { TestHttpServer } from '../mcp/support'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool, tool } from '../../src/tools'
import { startHttpMcpServer } from '../mcp/support'
import { startFakeAnthropic } from '../support/fake-anthropic'

const spawnCall = (input: Record<string, unknown>) => ({ toolCalls: [{ name: 'spawn', input }] })
const lastResult = (request: StreamOptions) => request.messages.at(-1)!.content[0] as { output: string, isError?: boolean }
const echoLast = { respond: (request: StreamOptions) => ({ text: `parent got: ${lastResult(request).output}` }) }
const toolNames = (request: StreamOptions) => request.tools.map(spec => spec.name)

/** A tool that records the behavior and depth of the run that called it. */
function probeTool() {
  const seen: { depth: number, extensions: unknown, maxTurns: unknown }[] = []
  const probe = tool({
    name: 'probe',
    description: 'Look around',
    input: z.object({}),
    execute: (_input, ctx: ToolContext) => {
      seen.push({ depth: ctx.depth, extensions: ctx.behavior.extensions, maxTurns: ctx.behavior.maxTurns })
      return 'looked'
    },
  })
  return { probe, seen }
}

describe('createSpawnTool() with no child config', () => {
  it('runs the child on the parent run\'s provider, model, thinking, behavior and tools', async () => {
    const { probe, seen } = probeTool()
    const spawn = createSpawnTool()
    // One script serves both: parent turn, child turns, parent turn.
    const provider = scriptedProvider([
      spawnCall({ task: 'inspect' }),
      { toolCalls: [{ name: 'probe', input: {} }] },
      { text: 'child saw it' },
      echoLast,
    ], { defaultModel: 'provider-default' })
    const agent = createAgent({
      provider,
      tools: { probe, spawn },
      behavior: { effortHint: false, maxTokens: 1234, cache: false, maxTurns: 9, extensions: { team: 'core' } },
    })
    const stats = await agent.run({ prompt: 'go', model: 'parent-model', thinking: 'high', behavior: { maxTokens: 4321, extensions: { trace: 'on' } } })

    expect(stats.text).toBe('parent got: child saw it')
    const [parentFirst, childFirst] = provider.requests
    expect(childFirst.messages[0].content[0]).toEqual({ type: 'text', text: 'inspect' })
    expect(childFirst).toMatchObject({ model: 'parent-model', thinking: 'high', effortHint: false, maxTokens: 4321, cache: false })
    expect(toolNames(childFirst)).toEqual(toolNames(parentFirst))
    expect(toolNames(childFirst)).toEqual(['probe', 'spawn'])
    // The child's tool saw the parent run's merged behavior (agent's, then the run's overrides).
    expect(seen).toEqual([{ depth: 1, extensions: { team: 'core', trace: 'on' }, maxTurns: 9 }])
    expect(stats.children![0]).toMatchObject({ id: 'child-1', status: 'completed', depth: 1 })
  })

  it('offers spawn to a child only while the child may still spawn', async () => {
    const { probe } = probeTool()
    const provider = scriptedProvider([spawnCall({ task: 'a' }), { text: 'leaf' }, echoLast])
    await createAgent({ provider, tools: { probe, spawn: createSpawnTool({ maxDepth: 1 }) } }).run({ prompt: 'go' })
    expect(toolNames(provider.requests[0])).toEqual(['probe', 'spawn'])
    expect(toolNames(provider.requests[1])).toEqual(['probe'])

    // maxDepth 2: the child keeps spawn, the grandchild (depth 2) does not get it.
    const deep = scriptedProvider([spawnCall({ task: 'a' }), spawnCall({ task: 'b' }), { text: 'leaf' }, echoLast, echoLast])
    const stats = await createAgent({ provider: deep, tools: { probe, spawn: createSpawnTool({ maxDepth: 2 }) } }).run({ prompt: 'go' })
    expect(deep.requests.map(toolNames)).toEqual([['probe', 'spawn'], ['probe', 'spawn'], ['probe'], ['probe', 'spawn'], ['probe', 'spawn']])
    expect(stats.text).toBe('parent got: parent got: leaf')
  })

  it('inherits the provider list (fallback included) and routes a call\'s model choice over it', async () => {
    const primary = scriptedProvider([
      spawnCall({ task: 'first' }),
      { error: { kind: 'invalid_request', message: 'primary refuses', retryable: false } },
      { toolCalls: [{ name: 'spawn', input: { task: 'second', model: 'deep' } }] },
      { text: 'done' },
    ], { name: 'primary' })
    const backup = scriptedProvider([{ text: 'from backup' }, { text: 'deep answer' }], { name: 'backup' })
    const spawn = createSpawnTool({ models: { deep: { provider: 'backup', model: 'backup-large' } } })
    const before: { model?: string, provider?: string }[] = []
    const agent = createAgent({ provider: [primary, backup], tools: { spawn }, hooks: { 'spawn:before': ({ model, provider }) => void before.push({ model, provider }) } })
    const stats = await agent.run({ prompt: 'go', model: 'shared-model' })

    expect(stats.text).toBe('done')
    // The first child failed on the primary and fell back to the backup, as its parent would.
    expect(primary.requests[1].messages[0].content[0]).toEqual({ type: 'text', text: 'first' })
    expect(backup.requests.map(request => request.model)).toEqual(['shared-model', 'backup-large'])
    expect(before).toEqual([{ model: 'shared-model', provider: 'primary' }, { model: 'backup-large', provider: 'backup' }])
    expect(lastResult(primary.requests[3]).output).toBe('deep answer')
  })

  it('lets child fields override: behavior merged key by key over the parent run\'s, own provider without the parent model', async () => {
    const { probe, seen } = probeTool()
    const childProvider = scriptedProvider([{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'ok' }], { defaultModel: 'kid-default' })
    const spawn = createSpawnTool({ child: { provider: childProvider, tools: { probe }, thinking: 'low', behavior: { maxTokens: 99, extensions: { trace: 'child' } } } })
    const provider = scriptedProvider([spawnCall({ task: 'x' }), echoLast])
    await createAgent({ provider, tools: { spawn }, behavior: { effortHint: false, maxTurns: 7, extensions: { team: 'core', trace: 'parent' } } })
      .run({ prompt: 'go', model: 'parent-model', thinking: 'high' })

    expect(childProvider.requests[0]).toMatchObject({ model: 'kid-default', thinking: 'low', maxTokens: 99, effortHint: false })
    expect(toolNames(childProvider.requests[0])).toEqual(['probe'])
    expect(seen).toEqual([{ depth: 1, extensions: { team: 'core', trace: 'child' }, maxTurns: 7 }])
  })
})

describe('inherited MCP tools', () => {
  let mcp: TestHttpServer
  beforeAll(async () => {
    mcp = await startHttpMcpServer()
  })
  afterAll(async () => {
    await mcp.close()
  })

  it('reach the child under their wire names and run through the parent\'s connection', async () => {
    const provider = scriptedProvider([
      spawnCall({ task: 'add 2 and 3' }),
      { toolCalls: [{ name: 'mcp_calc_add', input: { a: 2, b: 3 } }] },
      echoLast,
      echoLast,
    ])
    const calls: string[] = []
    const agent = createAgent({
      provider,
      tools: { spawn: createSpawnTool() },
      mcpServers: [{ name: 'calc', transport: 'streamable-http', url: mcp.url, enabledTools: ['add'] }],
      behavior: { surfaceMcpInstructions: false },
      hooks: { 'child:mcp:tool:after': ({ server, tool, childId }) => void calls.push(`${childId} ${server}/${tool}`) },
    })
    const stats = await agent.run({ prompt: 'go' })
    await agent.destroy()

    expect(toolNames(provider.requests[1])).toEqual(['spawn', 'mcp_calc_add'])
    expect(lastResult(provider.requests[2])).toMatchObject({ output: '5' })
    expect(calls).toEqual(['child-1 calc/add'])
    expect(stats.text).toBe('parent got: parent got: 5')
  })
})

describe('an inherited behavior on the Anthropic wire', () => {
  let fake: FakeAnthropic
  beforeAll(async () => {
    fake = await startFakeAnthropic()
  })
  afterAll(async () => {
    await fake.close()
  })

  it('strips the effort hint from the child\'s request when the parent run turns it off', async () => {
    const { probe } = probeTool()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'spawn', input: { task: 'look' } }] } },
      { type: 'turn', turn: { text: 'child done' } },
      { type: 'turn', turn: { text: 'all done' } },
    )
    const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-opus-4-6' })
    const agent = createAgent({ provider, tools: { probe, spawn: createSpawnTool({ maxDepth: 1 }) } })
    const stats = await agent.run({ prompt: 'go', thinking: 'high', behavior: { effortHint: false, maxTokens: 20_000 } })

    expect(stats.text).toBe('all done')
    const [parent, child] = fake.requests.map(request => request.body)
    expect(child.messages[0].content).toMatchObject([{ type: 'text', text: 'look' }])
    expect(parent.output_config).toBeUndefined()
    expect(child.output_config).toBeUndefined()
    expect(child.thinking).toEqual(parent.thinking)
    expect(child.max_tokens).toBe(20_000)
    expect(parent.tools.map((t: { name: string }) => t.name)).toEqual(['probe', 'spawn'])
    expect(child.tools.map((t: { name: string }) => t.name)).toEqual(['probe'])

    // Control: with the hint left on, the child sends the level's effort like its parent.
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_2', name: 'spawn', input: { task: 'look again' } }] } },
      { type: 'turn', turn: { text: 'child done' } },
      { type: 'turn', turn: { text: 'all done' } },
    )
    await agent.run({ prompt: 'again', thinking: 'high' })
    const [, hinted] = fake.requests.slice(3).map(request => request.body)
    expect(hinted.output_config).toEqual({ effort: 'high' })
  })
})

describe('a failing child', () => {
  it('is reported with status error, fires spawn:error, and the parent gets an error result and goes on', async () => {
    const { probe } = probeTool()
    const childProvider = scriptedProvider([
      { toolCalls: [{ name: 'probe', input: {} }], usage: { input: 70, output: 7 } },
      { error: { kind: 'auth', message: 'bad key', retryable: false } },
    ], { name: 'kid' })
    const spawn = createSpawnTool({ child: { provider: childProvider, tools: { probe } } })
    const provider = scriptedProvider([spawnCall({ task: 'try' }), echoLast])
    const errors: SpawnErrorContext[] = []
    const completed: string[] = []
    const agent = createAgent({
      provider,
      tools: { spawn },
      hooks: { 'spawn:error': ctx => void errors.push(ctx), 'spawn:complete': ({ id }) => void completed.push(id) },
    })
    const stats = await agent.run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    const result = lastResult(provider.requests[1])
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(/^Error: child-1 failed after 1 turn\(s\): .*bad key/)
    expect(stats.text).toContain('child-1 failed')
    expect(completed).toEqual([])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ id: 'child-1', task: 'try', depth: 1, model: 'scripted-model', provider: 'kid', stats: { status: 'error', id: 'child-1' } })
    expect((errors[0].error as Error).message).toContain('bad key')
    expect(stats.children).toHaveLength(1)
    expect(stats.children![0]).toMatchObject({ id: 'child-1', status: 'error', callId: 'call_1', depth: 1, stats: { turns: 1, totalIn: 70, totalOut: 7 } })
    // The failed child's tokens count in the parent's totals.
    expect(stats.totalIn).toBe(10 + 10 + 70)
  })

  it('inherits the parent run\'s retry: one attempt means the child fails at once', async () => {
    const provider = scriptedProvider([
      spawnCall({ task: 'try' }),
      { error: { kind: 'server', message: 'overloaded', retryable: true } },
      echoLast,
    ])
    const stats = await createAgent({ provider, tools: { spawn: createSpawnTool() }, behavior: { retry: { maxAttempts: 1 } } }).run({ prompt: 'go' })
    expect(provider.requests).toHaveLength(3)
    expect(stats.children![0].status).toBe('error')
    expect(stats.text).toContain('overloaded')
  })
})

describe('spawn tool state', () => {
  it('shows running children and calls waiting for a slot, and empties when they finish', async () => {
    const spawn = createSpawnTool({ maxConcurrent: 1 })
    const copy = { ...spawn }
    const snapshots: { running: string[], waiting: number }[] = []
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'spawn', input: { task: 'one' } }, { name: 'spawn', input: { task: 'two' } }] },
      { text: 'first' },
      { text: 'second' },
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      tools: { spawn },
      hooks: { 'child:stream:start': () => void snapshots.push({ running: copy.state.running.map(child => `${child.id}:${child.task}:${child.depth}`), waiting: copy.state.waiting }) },
    })
    await agent.run({ prompt: 'go' })
    expect(snapshots).toEqual([{ running: ['child-1:one:1'], waiting: 1 }, { running: ['child-2:two:1'], waiting: 0 }])
    expect(spawn.state.running).toEqual([])
    expect(spawn.state.waiting).toBe(0)
  })
})
