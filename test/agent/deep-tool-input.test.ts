import type { Provider } from '../../src/providers/types'
import type { ToolDef } from '../../src/tools/types'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { MAX_TOOL_INPUT_DEPTH } from '../../src/providers/tool-json'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'

// Arguments nested thousands of levels deep: refused before the tool runs, with an error result the model can
// read, and the call and its result recorded like any other (the session write, the next request) on every wire.

const DEPTH = 5_000
const deepText = `{"tree":${'['.repeat(DEPTH - 1)}${']'.repeat(DEPTH - 1)}}`

function deepValue(levels: number): Record<string, unknown> {
  let value: unknown = []
  for (let level = 2; level < levels; level++)
    value = [value]
  return { tree: value }
}

interface Probe {
  def: ToolDef
  calls: () => number
}

function probeTool(): Probe {
  let calls = 0
  return {
    def: {
      spec: { name: 'probe', description: 'Looks at a tree.', inputSchema: { type: 'object', properties: { tree: {} } } },
      execute: () => {
        calls++
        return 'looked'
      },
    },
    calls: () => calls,
  }
}

/**
 * A provider that hands the loop its calls as objects, the way a host's own provider may: first the calls, then
 * `done`. (The scripted provider of `zidane/testing` streams each input as JSON text first, which a value this
 * deep cannot be written as.)
 */
function objectProvider(calls: { id: string, name: string, input: Record<string, unknown> }[]): Provider {
  let turn = 0
  return {
    name: 'objects',
    meta: { defaultModel: 'object-model' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    stream: async () => {
      const usage = { input: 10, output: 5 }
      if (turn++ > 0)
        return { content: [{ type: 'text', text: 'done' }], toolCalls: [], usage, finishReason: 'stop' }
      return { content: calls.map(call => ({ type: 'tool_call' as const, ...call })), toolCalls: calls, usage, finishReason: 'tool-calls' }
    },
  }
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zidane-deep-input-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Run one prompt against `provider` with a file-store session; the stats, the probe and the session as reloaded. */
async function runDeep(provider: Provider, tools: Record<string, ToolDef>) {
  const store = createFileStore({ dir })
  const session = await createSession({ store })
  const agent = createAgent({ provider, tools, session })
  const stats = await agent.run({ prompt: 'Look at the tree.' })
  const stored = await loadSession(session.id, { store })
  const blocks = stored.turns.flatMap(turn => turn.content)
  const call = blocks.find(block => block.type === 'tool_call')
  const result = blocks.find(block => block.type === 'tool_result')
  return { stats, call, result }
}

function expectRefused(outcome: Awaited<ReturnType<typeof runDeep>>) {
  expect(outcome.stats.stopReason).toBe('completed')
  expect(outcome.call).toMatchObject({ type: 'tool_call', name: 'probe' })
  expect(outcome.result).toMatchObject({ type: 'tool_result', isError: true })
  const output = (outcome.result as { output: unknown }).output
  expect(output).toEqual(expect.stringContaining(`nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep`))
  expect((outcome.result as { callId: string }).callId).toBe((outcome.call as { id: string }).id)
}

describe('tool-call arguments nested past the depth cap', () => {
  let anthropicFake: FakeAnthropic | undefined
  let openaiFake: FakeOpenAI | undefined
  afterEach(async () => {
    await anthropicFake?.close()
    await openaiFake?.close()
    anthropicFake = undefined
    openaiFake = undefined
  })

  it('on the Anthropic wire: not run, answered with an error, recorded, and sent back on the next request', async () => {
    anthropicFake = await startFakeAnthropic()
    anthropicFake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_deep', name: 'probe', input: {}, rawJson: deepText }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const probe = probeTool()
    const outcome = await runDeep(anthropic({ apiKey: 'test-key', baseURL: anthropicFake.url, defaultModel: 'claude-sonnet-4-6' }), { probe: probe.def })
    expectRefused(outcome)
    expect(probe.calls()).toBe(0)
    const second = anthropicFake.requests[1].body as { messages: { content: { type: string, is_error?: boolean }[] }[] }
    expect(second.messages.flatMap(message => message.content).filter(block => block.type === 'tool_result')).toMatchObject([{ is_error: true }])
  })

  it('on the Chat Completions wire', async () => {
    openaiFake = await startFakeOpenAI()
    openaiFake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'call_deep', name: 'probe', input: {}, rawJson: deepText }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const probe = probeTool()
    const outcome = await runDeep(openai({ apiKey: 'test-key', baseURL: openaiFake.url, defaultModel: 'gpt-test' }), { probe: probe.def })
    expectRefused(outcome)
    expect(probe.calls()).toBe(0)
    expect(openaiFake.requests).toHaveLength(2)
  })

  it('on the Responses wire', async () => {
    openaiFake = await startFakeOpenAI()
    openaiFake.enqueue(
      { type: 'sse', events: responsesEvents({ toolCalls: [{ name: 'probe', callId: 'call_deep', rawJson: deepText }] }) },
      { type: 'sse', events: responsesEvents({ text: 'done' }, 'resp_fake_02') },
    )
    const probe = probeTool()
    const outcome = await runDeep(openai({ api: 'responses', apiKey: 'test-key', baseURL: openaiFake.url, defaultModel: 'gpt-test' }), { probe: probe.def })
    expectRefused(outcome)
    expect(probe.calls()).toBe(0)
    expect(openaiFake.requests).toHaveLength(2)
  })

  it('from a provider that hands the loop a ready-made object', async () => {
    const probe = probeTool()
    const outcome = await runDeep(objectProvider([{ id: 'call_deep', name: 'probe', input: deepValue(DEPTH) }]), { probe: probe.def })
    expectRefused(outcome)
    expect(probe.calls()).toBe(0)
  })

  it('accepts arguments exactly at the cap and runs the tool', async () => {
    const probe = probeTool()
    const outcome = await runDeep(objectProvider([{ id: 'call_ok', name: 'probe', input: deepValue(MAX_TOOL_INPUT_DEPTH) }]), { probe: probe.def })
    expect(outcome.result).toMatchObject({ type: 'tool_result', output: 'looked' })
    expect(probe.calls()).toBe(1)
  })

  it('a recursive zod schema never sees the over-deep value, and the process keeps no unhandled rejection', async () => {
    interface Tree { children?: Tree[] }
    const node: z.ZodType<Tree> = z.lazy(() => z.object({ children: z.array(node).optional() }))
    let ran = 0
    const walk = tool({ name: 'probe', description: 'Walks a tree.', input: z.object({ tree: node }), execute: () => {
      ran++
      return 'walked'
    } })
    let nested: Tree = {}
    for (let level = 0; level < DEPTH; level++)
      nested = { children: [nested] }
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const outcome = await runDeep(objectProvider([{ id: 'call_zod', name: 'probe', input: { tree: nested } }]), { probe: walk })
      expectRefused(outcome)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    finally {
      process.off('unhandledRejection', onUnhandled)
    }
    expect(ran).toBe(0)
    expect(unhandled).toEqual([])
  })
})
