/**
 * A tool result's metadata is the host's side channel: a `tool:transform` or
 * `mcp:tool:transform` hook attaches what it likes, often data from a tool,
 * an MCP server or a web page. The session stores it as JSON inside the turn
 * (turn → content → tool_result → metadata), and a store refuses to write a
 * turn nested past `MAX_RECORD_DEPTH` (1,000 levels), as every load refuses
 * it. Before, metadata nested 2,000 levels deep, cyclic, or holding a BigInt
 * failed the write of that turn's results: `agent.run` rejected and the
 * model's call was left without a stored result. Now such metadata is
 * replaced by `{ __droppedMetadata: note }` and the run goes on; metadata the
 * store can write (up to 997 levels: 1,000 for the turn) is kept as it is.
 */

import type { ToolResultBlock } from '../../src/core/content'
import type { ToolDef } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { tempDirForFile } from '../session/temp-dir'

const freshDir = tempDirForFile('tool-metadata-storable')

const KEY = '__droppedMetadata'

/** `levels` arrays one inside another around a string: a value `levels` deep. Built without recursion. */
function nest(levels: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

function resultsOf(turns: readonly { content: readonly unknown[] }[]): ToolResultBlock[] {
  return turns.flatMap(turn => (turn.content as { type: string }[]).filter((block): block is ToolResultBlock => block.type === 'tool_result'))
}

type Hooks = NonNullable<Parameters<typeof createAgent>[0]['hooks']>

interface Outcome {
  /** The result as stored, read back by a strict load from a fresh store on the same directory. */
  stored: ToolResultBlock
  /** What `tool:after` was shown. */
  after: unknown
  /** The result as the loop handed it to the provider on the next request. */
  sent: ToolResultBlock
}

/**
 * One call of `tool` on a file-backed session, with `hooks` (plus a
 * `tool:after` recorder): the run must complete, and the session reload
 * strictly (`onCorrupt` is `'throw'` by default) with the call paired with
 * its result, then take another run.
 */
async function runOnce(probe: ToolDef, hooks: Hooks): Promise<Outcome> {
  const dir = freshDir()
  const session = await createSession({ store: createFileStore({ dir }) })
  const provider = scriptedProvider([{ toolCalls: [{ id: 'call_1', name: probe.spec.name, input: {} }] }, { text: 'done' }])
  const seen: unknown[] = []
  const agent = createAgent({
    provider,
    session,
    tools: { [probe.spec.name]: probe },
    hooks: Object.assign({}, hooks, { 'tool:after': (ctx: { metadata?: unknown }) => void seen.push(ctx.metadata) }),
  })
  const stats = await agent.run({ prompt: 'go' })
  expect(stats.stopReason).toBe('completed')
  const [sent] = resultsOf(provider.requests[1].messages)
  expect(sent).toMatchObject({ callId: 'call_1', output: 'probed' })

  const reloaded = await loadSession(session.id, { store: createFileStore({ dir }) })
  expect(reloaded.skipped).toEqual([])
  expect(reloaded.turns.map(turn => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  const call = reloaded.turns[1].content.find(block => block.type === 'tool_call')
  const results = resultsOf(reloaded.turns)
  expect(results).toHaveLength(1)
  expect(call).toMatchObject({ type: 'tool_call', id: 'call_1' })
  expect(results[0]).toMatchObject({ callId: 'call_1', output: 'probed' })

  const replay = scriptedProvider([{ text: 'again' }])
  expect((await createAgent({ provider: replay, session: reloaded }).run({ prompt: 'again' })).stopReason).toBe('completed')
  expect(resultsOf(replay.requests[0].messages).map(block => block.callId)).toEqual(['call_1'])
  return { stored: results[0], after: seen[0], sent }
}

const probe = tool({ name: 'probe', description: 'Probe', input: z.object({}), execute: () => 'probed' })

/** What every dropped case shows: the note alone, on the stored result and on `tool:after`. */
function expectDropped(outcome: Outcome, saying: RegExp): void {
  expect(Object.keys(outcome.stored.metadata ?? {})).toEqual([KEY])
  expect(outcome.stored.metadata![KEY]).toMatch(saying)
  expect(outcome.after).toEqual(outcome.stored.metadata)
  // The loop hands the same result on to the next request (the wire leaves metadata out: tool-result-metadata.test.ts).
  expect(outcome.sent.metadata).toEqual(outcome.stored.metadata)
}

const TOO_DEEP = /nests more than 997 levels.*1,000/

describe('tool result metadata the session cannot store is replaced by a note, and the run goes on', () => {
  it('a host tool\'s data 2,000 levels deep, attached to its result by the host\'s hook', async () => {
    // A tool cannot return metadata itself: the host keeps what its tool produced and attaches it in `tool:transform`.
    const reports = new Map<string, unknown>()
    const fetchTrace = tool({
      name: 'fetch_trace',
      description: 'Fetch a trace',
      input: z.object({}),
      execute: (_input, ctx) => {
        reports.set(ctx.callId, { trace: nest(2000) })
        return 'probed'
      },
    })
    const outcome = await runOnce(fetchTrace, { 'tool:transform': (ctx) => {
      ctx.metadata.report = reports.get(ctx.callId)
    } })
    expectDropped(outcome, TOO_DEEP)
  })

  it('a tool:transform hook assigning metadata 2,000 levels deep', async () => {
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata = { report: nest(2000) }
    } })
    expectDropped(outcome, TOO_DEEP)
  })

  it('an mcp:tool:transform hook adding metadata 2,000 levels deep to an MCP tool\'s result', async () => {
    const mcpProbe: ToolDef = { spec: { name: 'web__fetch', description: 'Fetch', inputSchema: { type: 'object' } }, execute: () => 'probed', mcp: { server: 'web', tool: 'fetch' } }
    const outcome = await runOnce(mcpProbe, { 'mcp:tool:transform': (ctx) => {
      ctx.metadata.page = nest(2000)
    } })
    expectDropped(outcome, TOO_DEEP)
  })

  it('cyclic metadata: the note names the cycle and where it is', async () => {
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      const node: Record<string, unknown> = { name: 'node' }
      node.parent = { children: [node] }
      ctx.metadata.tree = node
    } })
    expectDropped(outcome, /a cycle at metadata\.tree\.parent\.children\[0\]/)
  })

  it('metadata holding a BigInt', async () => {
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata.bytes = 12n
    } })
    expectDropped(outcome, /a BigInt at metadata\.bytes/)
  })

  it('metadata whose toJSON throws', async () => {
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata.handle = { toJSON: () => {
        throw new Error('closed handle')
      } }
    } })
    expectDropped(outcome, /the toJSON of metadata\.handle threw \(closed handle\)/)
  })
})

describe('tool result metadata the session can store is kept as it is', () => {
  it('997 levels deep (the turn holding it exactly 1,000): stored and reloaded unchanged; tool:after gets the hook\'s own object', async () => {
    const metadata = { report: nest(996) }
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata = metadata
    } })
    expect(outcome.stored.metadata).toEqual(metadata)
    expect(outcome.after).toBe(metadata)
  })

  it('one level more (998) is dropped: the limit is that of the stored turn', async () => {
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata = { report: nest(997) }
    } })
    expectDropped(outcome, TOO_DEEP)
  })

  it('a value shared twice and a toJSON that flattens a cyclic value are written as JSON writes them', async () => {
    const shared = { id: 7 }
    const cyclic: Record<string, unknown> = { toJSON: () => 'flattened' }
    cyclic.self = cyclic
    const outcome = await runOnce(probe, { 'tool:transform': (ctx) => {
      ctx.metadata.a = shared
      ctx.metadata.b = [shared, shared]
      ctx.metadata.c = cyclic
    } })
    expect(outcome.stored.metadata).toEqual({ a: { id: 7 }, b: [{ id: 7 }, { id: 7 }], c: 'flattened' })
  })
})

describe('the metadata of a turn\'s results shares the turn\'s budget', () => {
  it('metadata is kept in call order while it fits in what the results left; later metadata becomes a note, every result kept', async () => {
    // 30 Mi characters each: two fit in the turn's 64 Mi, the third does not.
    const page = 'x'.repeat(30 * 1024 * 1024)
    const dir = freshDir()
    const session = await createSession({ store: createFileStore({ dir }) })
    const calls = ['a', 'b', 'c'].map(id => ({ id, name: 'probe', input: {} }))
    const provider = scriptedProvider([{ toolCalls: calls }, { text: 'done' }])
    const agent = createAgent({ provider, session, tools: { probe }, hooks: { 'tool:transform': (ctx) => {
      ctx.metadata.page = page
    } } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const reloaded = await loadSession(session.id, { store: createFileStore({ dir }) })
    const results = resultsOf(reloaded.turns)
    expect(results.map(result => [result.callId, result.output])).toEqual([['a', 'probed'], ['b', 'probed'], ['c', 'probed']])
    expect(results.slice(0, 2).map(result => result.metadata?.page === page)).toEqual([true, true])
    expect(results[2].metadata).toEqual({ [KEY]: expect.stringMatching(/^\[Dropped: this turn's tool results, the arguments of its nested calls and its results' metadata came to more than 67108864 characters/) })
    // The next request carries the same results.
    expect(resultsOf(provider.requests[1].messages).map(result => Object.keys(result.metadata ?? {}))).toEqual([['page'], ['page'], [KEY]])
  }, 60_000)
})
