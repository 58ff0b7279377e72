import type { Provider } from '../../src/providers/types'
import type { Session } from '../../src/session'
import type { FakeResponse } from '../support/fake-anthropic'
import type { FakeOpenAIResponse } from '../support/fake-openai'
import type { CheckedScript } from '../support/strict-wire'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { loneSurrogateAt, strictAnthropic, strictOpenAI } from '../support/strict-wire'

// Broken UTF-16 (half of a surrogate pair) in a prompt, a tool output and an
// MCP-style structured result. The fake servers answer 400, as the real APIs
// do, to a body with an unpaired surrogate escape; the run must complete, and
// the next run on the same session too.

const HALF_EMOJI = '😀'.slice(0, 1) // '\uD83D'
const STRAY_LOW = '\uDE00'

const cut = tool({
  name: 'cut',
  description: `Returns text cut in the middle of a pair ${STRAY_LOW}`,
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `${text} ${HALF_EMOJI}`,
})

const mcpLike = tool({
  name: 'mcp_like',
  description: 'Returns structured content as an MCP server does',
  input: z.object({}),
  execute: () => [{ type: 'text' as const, text: `broken ${STRAY_LOW} encoder` }],
})

const tools = { cut, mcp_like: mcpLike }
const prompt = `Look at this: ${HALF_EMOJI}`

interface Target {
  name: string
  start: () => Promise<{ provider: Provider, script: CheckedScript<any>, close: () => Promise<void>, bodies: () => unknown[] }>
  /** A turn calling both tools (the `cut` call with a broken surrogate in its input), then a text answer. */
  toolTurn: () => unknown[]
  text: (text: string) => unknown
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map(close => close()))
})

const TARGETS: Target[] = [
  {
    name: 'anthropic',
    start: async () => {
      const script = strictAnthropic()
      const fake = await startFakeAnthropic({ fallback: script.fallback })
      return { provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }), script, close: fake.close, bodies: () => fake.requests.map(r => r.body) }
    },
    toolTurn: (): FakeResponse[] => [{ type: 'turn', turn: { thinking: { text: `hmm ${HALF_EMOJI}`, signature: 'SIG' }, toolCalls: [{ id: 'toolu_1', name: 'cut', input: { text: `in ${STRAY_LOW}` } }, { id: 'toolu_2', name: 'mcp_like', input: {} }] } }],
    text: (text): FakeResponse => ({ type: 'turn', turn: { text } }),
  },
  {
    name: 'openai chat completions',
    start: async () => {
      const script = strictOpenAI()
      const fake = await startFakeOpenAI({ fallback: script.fallback })
      return { provider: openai({ apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2', api: 'chat' }), script, close: fake.close, bodies: () => fake.requests.map(r => r.body) }
    },
    toolTurn: (): FakeOpenAIResponse[] => [{ type: 'turn', turn: { toolCalls: [{ id: 'call_1', name: 'cut', input: { text: `in ${STRAY_LOW}` } }, { id: 'call_2', name: 'mcp_like', input: {} }] } }],
    text: (text): FakeOpenAIResponse => ({ type: 'turn', turn: { text } }),
  },
  {
    name: 'openai-compatible server',
    start: async () => {
      const script = strictOpenAI()
      const fake = await startFakeOpenAI({ fallback: script.fallback })
      return { provider: openaiCompat({ baseURL: fake.url, defaultModel: 'served' }), script, close: fake.close, bodies: () => fake.requests.map(r => r.body) }
    },
    toolTurn: (): FakeOpenAIResponse[] => [{ type: 'turn', turn: { toolCalls: [{ id: 'call_1', name: 'cut', input: { text: `in ${STRAY_LOW}` } }, { id: 'call_2', name: 'mcp_like', input: {} }] } }],
    text: (text): FakeOpenAIResponse => ({ type: 'turn', turn: { text } }),
  },
  {
    name: 'openai responses',
    start: async () => {
      const script = strictOpenAI()
      const fake = await startFakeOpenAI({ fallback: script.fallback })
      return { provider: openai({ apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2', api: 'responses' }), script, close: fake.close, bodies: () => fake.requests.map(r => r.body) }
    },
    toolTurn: (): FakeOpenAIResponse[] => [{ type: 'sse', events: responsesEvents({ model: 'gpt-5.2', toolCalls: [{ callId: 'call_1', name: 'cut', input: { text: `in ${STRAY_LOW}` } }, { callId: 'call_2', name: 'mcp_like', input: {} }] }) as never }],
    text: (text): FakeOpenAIResponse => ({ type: 'sse', events: responsesEvents({ model: 'gpt-5.2', text }) as never }),
  },
]

async function runTwice(target: Target, session: Session) {
  const server = await target.start()
  closers.push(server.close)
  const agent = createAgent({ provider: server.provider, tools, session, system: `You help ${HALF_EMOJI}` })
  server.script.enqueue(...target.toolTurn(), target.text('first answer'), target.text('second answer'))
  const first = await agent.run({ prompt })
  const second = await agent.run({ prompt: `and ${STRAY_LOW} again` })
  return { first, second, server }
}

describe.each(TARGETS)('lone surrogates on $name', (target) => {
  it('never reach the wire: the run completes and the session stays usable', async () => {
    const session = await createSession()
    const { first, second, server } = await runTwice(target, session)
    expect(server.script.refusals).toEqual([])
    expect(first.text).toBe('first answer')
    expect(second.text).toBe('second answer')
    const bodies = server.bodies()
    expect(bodies).toHaveLength(3)
    for (const body of bodies)
      expect(loneSurrogateAt(body)).toBeUndefined()
    // The text arrived, with U+FFFD where the broken halves were.
    const last = JSON.stringify(bodies[2])
    expect(last).toContain('Look at this: \uFFFD')
    expect(last).toContain('broken \uFFFD encoder')
    expect(last).toContain('in \uFFFD')
    // The session keeps what it recorded.
    const recorded = JSON.stringify(session.turns)
    expect(recorded).toContain(JSON.stringify(HALF_EMOJI).slice(1, -1))
  })

  it('a session that already holds lone surrogates works', async () => {
    const session = await createSession()
    await session.appendTurns([
      { id: 't1', role: 'user', createdAt: 1, content: [{ type: 'text', text: `old ${HALF_EMOJI}` }] },
      { id: 't2', role: 'assistant', createdAt: 2, content: [{ type: 'text', text: `reply ${STRAY_LOW}` }, { type: 'tool_call', id: `old_${HALF_EMOJI}`, name: 'cut', input: { [`k${STRAY_LOW}`]: [`v${HALF_EMOJI}`] } }] },
      { id: 't3', role: 'user', createdAt: 3, content: [{ type: 'tool_result', callId: `old_${HALF_EMOJI}`, output: [{ type: 'text', text: `result ${STRAY_LOW}` }] }] },
      { id: 't4', role: 'assistant', createdAt: 4, content: [{ type: 'text', text: 'ok' }] },
    ])
    const { first, second, server } = await runTwice(target, session)
    expect(server.script.refusals).toEqual([])
    expect([first.text, second.text]).toEqual(['first answer', 'second answer'])
    for (const body of server.bodies())
      expect(loneSurrogateAt(body)).toBeUndefined()
  })
})
