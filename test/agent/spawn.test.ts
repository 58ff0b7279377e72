import type { ToolDef } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent, flattenTurns, statsByModel } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools/spawn'

const spawnCall = (input: Record<string, unknown>) => ({ toolCalls: [{ name: 'spawn', input }] })
const lastResult = (messages: { content: unknown[] }[]) => (messages.at(-1)!.content[0] as { output: string, isError?: boolean })
const echoLast = { respond: (req: { messages: { content: unknown[] }[] }) => ({ text: `parent got: ${lastResult(req.messages).output}` }) }

describe('spawn', () => {
  it('runs a child, returns its answer, folds its stats, and reports it on hooks', async () => {
    const childProvider = scriptedProvider([{ text: 'child answer', usage: { input: 100, output: 50 } }], { name: 'kid', defaultModel: 'kid-model' })
    const spawn = createSpawnTool({ child: { provider: childProvider } })
    const events: string[] = []
    const childCtx: Record<string, unknown>[] = []
    const provider = scriptedProvider([spawnCall({ task: 'summarize the repo' }), echoLast], { defaultModel: 'parent-model' })
    const agent = createAgent({
      provider,
      tools: { spawn },
      hooks: {
        'spawn:before': ({ id, task, callId }) => void events.push(`before:${id}:${task}:${callId}`),
        'spawn:complete': ({ id, stats }) => void events.push(`complete:${id}:${stats.status}`),
        'child:agent:start': ctx => void childCtx.push(ctx as never),
      },
    })
    const stats = await agent.run({ prompt: 'go' })

    expect(stats.text).toBe('parent got: child answer')
    expect(events).toEqual(['before:child-1:summarize the repo:call_1', 'complete:child-1:completed'])
    expect(childCtx[0]).toMatchObject({ childId: 'child-1', depth: 1, parentCallId: 'call_1', parentRunId: expect.any(String) })
    expect(stats.children).toHaveLength(1)
    expect(stats.children![0]).toMatchObject({ id: 'child-1', depth: 1, status: 'completed', callId: 'call_1', task: 'summarize the repo' })
    expect(stats.turns).toBe(2)
    expect(stats.totalIn).toBe(10 + 10 + 100)
    expect(childProvider.requests[0].messages[0].content[0]).toEqual({ type: 'text', text: 'summarize the repo' })
  })

  it('builds a tree three deep whose totals add up', async () => {
    const grandchildProvider = scriptedProvider([{ text: 'leaf', usage: { input: 1000, output: 1 } }], { defaultModel: 'leaf-model' })
    const childProvider = scriptedProvider([spawnCall({ task: 'go deeper' }), echoLast], { defaultModel: 'mid-model' })
    const deep = createSpawnTool({ child: { provider: grandchildProvider }, maxDepth: 2 })
    const spawn = createSpawnTool({ child: { provider: childProvider, tools: { spawn: deep } }, maxDepth: 2 })
    const nested: { id: unknown, depth: unknown }[] = []
    const provider = scriptedProvider([spawnCall({ task: 'delegate' }), echoLast], { defaultModel: 'top-model' })
    const agent = createAgent({ provider, tools: { spawn }, hooks: { 'child:spawn:before': ({ id, depth }) => void nested.push({ id, depth }) } })
    const stats = await agent.run({ prompt: 'go' })

    expect(stats.text).toBe('parent got: parent got: leaf')
    expect(nested).toEqual([{ id: 'child-1', depth: 2 }])
    const all = flattenTurns(stats)
    expect(all).toHaveLength(2 + 2 + 1)
    expect(stats.totalIn).toBe(all.reduce((sum, turn) => sum + turn.input, 0))
    expect(stats.totalIn).toBe(10 * 4 + 1000)
    const byModel = statsByModel(stats)
    expect(byModel.get('leaf-model')).toMatchObject({ input: 1000, turns: 1 })
    expect(byModel.get('mid-model')?.turns).toBe(2)
    expect(stats.children![0].stats.children![0]).toMatchObject({ depth: 2, status: 'completed' })
  })

  it('refuses to go deeper than maxDepth', async () => {
    const grandchildProvider = scriptedProvider([{ text: 'should not run' }])
    const childProvider = scriptedProvider([spawnCall({ task: 'deeper' }), echoLast])
    const inner = createSpawnTool({ child: { provider: grandchildProvider }, maxDepth: 1 })
    const spawn = createSpawnTool({ child: { provider: childProvider, tools: { spawn: inner } }, maxDepth: 1 })
    const stats = await createAgent({ provider: scriptedProvider([spawnCall({ task: 'x' }), echoLast]), tools: { spawn } }).run({ prompt: 'go' })
    expect(grandchildProvider.requests).toHaveLength(0)
    expect(stats.text).toContain('exceed maxDepth 1')
  })

  it('caps children running at once and routes named models', async () => {
    let inFlight = 0
    let peak = 0
    const busyChild: ScriptedTurn = {
      respond: (req) => {
        inFlight += 1
        peak = Math.max(peak, inFlight)
        return { text: `done on ${req.model}`, delayMs: 20 }
      },
    }
    const childProvider = scriptedProvider([busyChild, busyChild, busyChild])
    // Count a child as finished when its run ends.
    const spawn = createSpawnTool({ child: { provider: childProvider }, maxConcurrent: 1, models: { fast: 'tiny-model' } })
    const provider = scriptedProvider([
      { toolCalls: [1, 2, 3].map(n => ({ name: 'spawn', input: { task: `t${n}`, model: 'fast' } })) },
      { text: 'all done' },
    ])
    const agent = createAgent({ provider, tools: { spawn }, hooks: { 'spawn:complete': () => void (inFlight -= 1) } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.children?.map(child => child.id).sort()).toEqual(['child-1', 'child-2', 'child-3'])
    expect(peak).toBe(1)
    expect(childProvider.requests.map(r => r.model)).toEqual(['tiny-model', 'tiny-model', 'tiny-model'])

    const strict = createSpawnTool({ child: { provider: scriptedProvider([]) }, models: { fast: 'tiny-model' } })
    const refused = await createAgent({ provider: scriptedProvider([spawnCall({ task: 't', model: 'huge' }), echoLast]), tools: { spawn: strict } }).run({ prompt: 'go' })
    expect(refused.text).toContain('Unknown model choice "huge"')
  })

  it('resumes an earlier child from the session by its label', async () => {
    const session = await createSession()
    const childProvider = scriptedProvider([{ text: 'first pass' }, { text: 'second pass' }])
    const spawn = createSpawnTool({ child: { provider: childProvider } })
    const agent = createAgent({ provider: scriptedProvider([spawnCall({ task: 'draft' }), echoLast, spawnCall({ task: 'polish it', resume: 'child-1' }), echoLast]), tools: { spawn }, session })
    await agent.run({ prompt: 'one' })
    const stats = await agent.run({ prompt: 'two' })

    expect(stats.text).toBe('parent got: second pass')
    const resumedRequest = childProvider.requests[1].messages.map(m => (m.content[0] as { text: string }).text)
    expect(resumedRequest).toEqual(['draft', 'first pass', 'polish it'])
    const childRuns = session.runs.filter(run => run.label === 'child-1')
    expect(childRuns).toHaveLength(2)
    expect(childRuns[1].resumedFromRunId).toBe(childRuns[0].id)
    expect(childRuns.every(run => run.parentCallId !== undefined && run.parentRunId !== undefined)).toBe(true)
  })

  it('times a child out, and a parent abort stops its children', async () => {
    const slow = scriptedProvider([{ text: 'too late', delayMs: 500 }])
    const spawn = createSpawnTool({ child: { provider: slow }, timeoutMs: 30 })
    const stats = await createAgent({ provider: scriptedProvider([spawnCall({ task: 'slow' }), echoLast]), tools: { spawn } }).run({ prompt: 'go' })
    expect(stats.children![0].status).toBe('timeout')
    expect(stats.text).toContain('child-1 timed out')

    const slower = scriptedProvider([{ text: 'never', delayMs: 2000 }])
    const spawn2: ToolDef = createSpawnTool({ child: { provider: slower } })
    const parent = createAgent({ provider: scriptedProvider([spawnCall({ task: 'slow' })]), tools: { spawn: spawn2 }, hooks: { 'child:stream:start': () => void setTimeout(() => parent.abort(), 5) } })
    const aborted = await parent.run({ prompt: 'go' })
    expect(aborted.stopReason).toBe('aborted')
  })
})
