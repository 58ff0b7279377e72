import type { AgentStreamEvent, ToolContext, ToolProgressContext } from '../../src'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool, TOOL_PROGRESS_LIMITS } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools'

// ctx.progress through createAgent: what the `tool:progress` hook and
// agent.stream() receive, how a chatty tool is held back, and that nothing
// gets through once the call has ended.

const nextTick = () => new Promise(resolve => setImmediate(resolve))

/** A model that calls `download` once, then answers. */
function oneCall() {
  return scriptedProvider([
    { toolCalls: [{ id: 'c1', name: 'download', input: { files: 3 } }] },
    { text: 'Downloaded.' },
  ])
}

/** A `download` tool whose body is `body`. */
function download(body: (files: number, ctx: ToolContext) => Promise<string> | string) {
  return tool({
    name: 'download',
    description: 'Download files',
    input: z.object({ files: z.number() }),
    execute: ({ files }, ctx) => body(files, ctx),
  })
}

/** Reports one line per file, letting each report be delivered before the next. */
const steady = download(async (files, ctx) => {
  ctx.progress('Starting')
  await nextTick()
  for (let done = 1; done <= files; done++) {
    ctx.progress({ kind: 'files', text: `Downloaded ${done} of ${files}`, completed: done, total: files })
    await nextTick()
  }
  return `${files} files`
})

describe('tool progress on the tool:progress hook', () => {
  it('delivers each report in order, with the call it belongs to, before the call\'s tool:after', async () => {
    const seen: string[] = []
    const reports: ToolProgressContext[] = []
    const agent = createAgent({
      provider: oneCall(),
      tools: { download: steady },
      hooks: {
        'tool:progress': (ctx) => {
          reports.push(ctx)
          seen.push(`progress ${ctx.sequence}`)
        },
        'tool:after': ctx => void seen.push(`after ${ctx.name}`),
      },
    })
    await agent.run({ prompt: 'Get the files.' })
    expect(seen).toEqual(['progress 1', 'progress 2', 'progress 3', 'progress 4', 'after download'])
    expect(reports[0]).toMatchObject({ callId: 'c1', name: 'download', kind: 'message', text: 'Starting', sequence: 1, skipped: 0 })
    expect(reports.slice(1).map(({ kind, text, completed, total }) => ({ kind, text, completed, total }))).toEqual([
      { kind: 'files', text: 'Downloaded 1 of 3', completed: 1, total: 3 },
      { kind: 'files', text: 'Downloaded 2 of 3', completed: 2, total: 3 },
      { kind: 'files', text: 'Downloaded 3 of 3', completed: 3, total: 3 },
    ])
    expect(reports[0]!.runId).toBe(reports[3]!.runId)
  })

  it('merges reports made in a burst into the newest one, counting the rest as skipped', async () => {
    const reports: ToolProgressContext[] = []
    const agent = createAgent({
      provider: oneCall(),
      tools: {
        download: download(async (_files, ctx) => {
          for (let i = 1; i <= 10_000; i++)
            ctx.progress({ kind: 'bytes', completed: i, total: 10_000 })
          await nextTick()
          return 'done'
        }),
      },
      hooks: { 'tool:progress': ctx => void reports.push(ctx) },
    })
    await agent.run({ prompt: 'Get the files.' })
    expect(reports.map(({ completed, sequence, skipped }) => ({ completed, sequence, skipped }))).toEqual([
      { completed: 10_000, sequence: 1, skipped: 9_999 },
    ])
  })

  it(`delivers at most ${TOOL_PROGRESS_LIMITS.maxEvents} reports per call and cuts long text`, async () => {
    const reports: ToolProgressContext[] = []
    const agent = createAgent({
      provider: oneCall(),
      tools: {
        download: download(async (_files, ctx) => {
          for (let i = 1; i <= TOOL_PROGRESS_LIMITS.maxEvents + 200; i++) {
            ctx.progress(i === 1 ? 'x'.repeat(TOOL_PROGRESS_LIMITS.maxTextChars * 2) : `report ${i}`)
            await nextTick()
          }
          return 'done'
        }),
      },
      hooks: { 'tool:progress': ctx => void reports.push(ctx) },
    })
    const stats = await agent.run({ prompt: 'Get the files.' })
    expect(stats.stopReason).toBe('completed')
    expect(reports).toHaveLength(TOOL_PROGRESS_LIMITS.maxEvents)
    expect(reports.at(-1)!.sequence).toBe(TOOL_PROGRESS_LIMITS.maxEvents)
    expect(reports[0]!.text).toHaveLength(TOOL_PROGRESS_LIMITS.maxTextChars + 1)
  })

  it('ignores progress reported after the call ended, and never throws for a tool nobody listens to', async () => {
    let late: ToolContext['progress'] | undefined
    const reports: ToolProgressContext[] = []
    const agent = createAgent({
      provider: oneCall(),
      tools: {
        download: download((_files, ctx) => {
          late = ctx.progress
          return 'done'
        }),
      },
      hooks: { 'tool:progress': ctx => void reports.push(ctx) },
    })
    await agent.run({ prompt: 'Get the files.' })
    late!('a timer the tool forgot fires')
    await nextTick()
    expect(reports).toEqual([])

    const quiet = createAgent({ provider: oneCall(), tools: { download: steady } })
    expect((await quiet.run({ prompt: 'Get the files.' })).stopReason).toBe('completed')
  })
})

describe('tool progress on agent.stream()', () => {
  it('yields tool-progress events between the call and its result', async () => {
    const agent = createAgent({ provider: oneCall(), tools: { download: steady } })
    const events: AgentStreamEvent[] = []
    for await (const event of agent.stream({ prompt: 'Get the files.' }))
      events.push(event)
    const calls = events.filter(event => event.type === 'tool-call' || event.type === 'tool-progress' || event.type === 'tool-result')
    expect(calls.map(event => event.type)).toEqual(['tool-call', 'tool-progress', 'tool-progress', 'tool-progress', 'tool-progress', 'tool-result'])
    const last = calls[4]!
    expect(last).toEqual({
      type: 'tool-progress',
      runId: last.runId,
      depth: 0,
      turnId: (calls[0] as { turnId: string }).turnId,
      callId: 'c1',
      name: 'download',
      kind: 'files',
      text: 'Downloaded 3 of 3',
      completed: 3,
      total: 3,
      sequence: 4,
      skipped: 0,
    })
  })
})

describe('tool progress from a subagent', () => {
  it('reaches the parent as child:tool:progress and on the parent\'s stream with depth 1', async () => {
    const childProvider = scriptedProvider([
      { toolCalls: [{ id: 'k1', name: 'download', input: { files: 1 } }] },
      { text: 'child done' },
    ])
    const spawn = createSpawnTool({ child: { provider: childProvider, tools: { download: steady } } })
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'p1', name: 'spawn', input: { task: 'download it' } }] },
      { text: 'parent done' },
    ])
    const forwarded: { childId: string, text?: string }[] = []
    const agent = createAgent({ provider, tools: { spawn }, hooks: { 'child:tool:progress': ({ childId, text }) => void forwarded.push({ childId, text }) } })
    const events: AgentStreamEvent[] = []
    for await (const event of agent.stream({ prompt: 'Delegate.' }))
      events.push(event)
    expect(forwarded).toEqual([{ childId: 'child-1', text: 'Starting' }, { childId: 'child-1', text: 'Downloaded 1 of 1' }])
    const progress = events.filter(event => event.type === 'tool-progress')
    expect(progress.map(event => [event.depth, event.childId, event.callId, event.text])).toEqual([
      [1, 'child-1', 'k1', 'Starting'],
      [1, 'child-1', 'k1', 'Downloaded 1 of 1'],
    ])
  })
})
