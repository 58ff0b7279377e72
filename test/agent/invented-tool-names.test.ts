/**
 * Models invent tool names: `multi_tool_use.parallel` (GPT's internal
 * parallel wrapper, leaked), `functions.search`, a name with a space or none.
 * The loop answers such a call with an error result, but the call stays in
 * the conversation, and OpenAI's APIs refuse any later request carrying a
 * name outside `^[a-zA-Z0-9_-]+$` with a 400 no retry cures. Before, the
 * name went back as it came, on every wire: one invented name ended the
 * session. Now it goes out as its readable part and a hash of the whole, the
 * same on every request; the session keeps what the model wrote.
 */

import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { createSession } from '../../src/session'
import { replayableToolName } from '../../src/tools/registry'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { echoTool } from '../support/helpers'
import { responsesEvents } from '../support/openai-responses-sse'

const INVENTED = ['multi_tool_use.parallel', 'functions.search', 'read file', 'n'.repeat(100_000), '', 'outil_é']
const API_NAME = /^[\w-]{1,64}$/

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** Names of the calls a request sends back, as its wire writes them. */
type NamesOf = (body: Record<string, any>) => string[]

interface Wire {
  name: string
  start: () => Promise<{ url: string, close: () => Promise<void>, enqueue: (...turns: object[]) => void, bodies: () => Record<string, any>[] }>
  provider: (url: string) => Parameters<typeof createAgent>[0]['provider']
  /** A scripted turn calling `name` (id `c1`), and one answering with text. */
  callTurn: (name: string) => object
  textTurn: () => object
  namesOf: NamesOf
}

const blocks = (body: Record<string, any>) => (body.messages ?? []).flatMap((message: any) => Array.isArray(message.content) ? message.content : [])

const WIRES: Wire[] = [
  {
    name: 'anthropic',
    start: async () => {
      const fake: FakeAnthropic = await startFakeAnthropic()
      return { url: fake.url, close: () => fake.close(), enqueue: (...turns) => fake.enqueue(...turns as never[]), bodies: () => fake.requests.map(request => request.body as Record<string, any>) }
    },
    provider: url => anthropic({ apiKey: 'k', baseURL: url, defaultModel: 'claude-sonnet-4-5' }),
    callTurn: name => ({ type: 'turn', turn: { toolCalls: [{ id: 'toolu_c1', name, input: { a: 1 } }] } }),
    textTurn: () => ({ type: 'turn', turn: { text: 'ok' } }),
    namesOf: body => blocks(body).filter((block: any) => block.type === 'tool_use').map((block: any) => block.name),
  },
  {
    name: 'chat completions',
    start: async () => {
      const fake: FakeOpenAI = await startFakeOpenAI()
      return { url: fake.url, close: () => fake.close(), enqueue: (...turns) => fake.enqueue(...turns as never[]), bodies: () => fake.requests.map(request => request.body as Record<string, any>) }
    },
    provider: url => openai({ apiKey: 'k', baseURL: url, defaultModel: 'gpt-5.2' }),
    callTurn: name => ({ type: 'turn', turn: { toolCalls: [{ id: 'call_c1', name, input: { a: 1 } }] } }),
    textTurn: () => ({ type: 'turn', turn: { text: 'ok' } }),
    namesOf: body => (body.messages ?? []).flatMap((message: any) => message.tool_calls ?? []).map((call: any) => call.function.name),
  },
  {
    name: 'responses',
    start: async () => {
      const fake: FakeOpenAI = await startFakeOpenAI()
      return { url: fake.url, close: () => fake.close(), enqueue: (...turns) => fake.enqueue(...turns as never[]), bodies: () => fake.requests.map(request => request.body as Record<string, any>) }
    },
    provider: url => openai({ api: 'responses', apiKey: 'k', baseURL: url, defaultModel: 'gpt-5.2' }),
    callTurn: name => ({ type: 'sse', events: responsesEvents({ toolCalls: [{ name, input: { a: 1 }, callId: 'call_c1' }] }) }),
    textTurn: () => ({ type: 'sse', events: responsesEvents({ text: 'ok' }) }),
    namesOf: body => (body.input ?? []).filter((item: any) => item.type === 'function_call').map((item: any) => item.name),
  },
]

describe.each(WIRES)('an invented tool name on the $name wire', (wire) => {
  it.each(INVENTED.map(name => [name.length > 40 ? `${name.slice(0, 10)}… (${name.length} characters)` : JSON.stringify(name), name]))('%s goes back in a form the API takes, the same on each request; the session keeps it', async (_label, invented) => {
    const server = await wire.start()
    closers.push(server.close)
    server.enqueue(wire.callTurn(invented), wire.textTurn(), wire.textTurn())
    const session = await createSession()
    const agent = createAgent({ provider: wire.provider(server.url), session, tools: { echo: echoTool('echo') } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    expect((await agent.run({ prompt: 'again' })).stopReason).toBe('completed')
    const [, second, third] = server.bodies()
    const sent = wire.namesOf(second)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatch(API_NAME)
    expect(sent[0]).toBe(replayableToolName(invented))
    expect(wire.namesOf(third)).toEqual(sent)
    // The session keeps the name the model wrote, and the call its error result.
    const call = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_call')
    expect(call).toMatchObject({ name: invented })
    const result = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result')
    expect(result).toMatchObject({ isError: true })
    // The refusal names the tool as the model wrote it, with at most 200 of its characters.
    const output = String((result as { output: unknown }).output)
    expect(output.length).toBeLessThan(400)
    expect(output).toContain(`there is no tool named "${invented.slice(0, 200)}`)
  })
})

describe('replayableToolName', () => {
  it('keeps every name an API takes, and a registered tool is never renamed', () => {
    for (const name of ['read_file', 'mcp__github__create_issue', 'a', 'x'.repeat(64), 'Tool-2'])
      expect(replayableToolName(name)).toBe(name)
  })

  it('gives distinct invented names distinct wire names, each within the pattern', () => {
    const names = ['a.b', 'a b', 'a/b', 'a.b.c', 'x'.repeat(65), 'x'.repeat(66), '\uD800', '\uD801']
    const wireNames = names.map(replayableToolName)
    expect(new Set(wireNames).size).toBe(names.length)
    for (const name of wireNames)
      expect(name).toMatch(API_NAME)
  })
})
