import type { AgentBehavior, BlockOf, SessionTurn } from '../../src'
import type { FakeAnthropic, FakeResponse } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, shouldAutoCompact, tool } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { AgentContextExceededError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { openrouter } from '../../src/providers/openrouter'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'

// Compaction through the public API, against the fake servers: what was sent,
// what the session stored, and which hooks fired.

const MODEL = 'claude-sonnet-4-6'

/** A tool whose output is `size` bytes of one letter, so the bytes on the wire are easy to count. */
function dumpTool() {
  return tool({
    name: 'dump',
    description: 'Print a block of text',
    input: z.object({ letter: z.string(), size: z.number() }),
    execute: ({ letter, size }) => letter.repeat(size),
  })
}

function call(id: string, letter: string, size = 2000): FakeResponse {
  return { type: 'turn', turn: { toolCalls: [{ id, name: 'dump', input: { letter, size } }], usage: { input_tokens: 100, output_tokens: 10 } } }
}

function answer(text: string, input = 100): FakeResponse {
  return { type: 'turn', turn: { text, usage: { input_tokens: input, output_tokens: 10 } } }
}

/** The text of every tool_result block of one Anthropic request, in order. */
function toolResultTexts(body: any): string[] {
  const texts: string[] = []
  for (const message of body.messages) {
    if (!Array.isArray(message.content))
      continue
    for (const block of message.content) {
      if (block.type !== 'tool_result')
        continue
      texts.push(typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text ?? '').join(''))
    }
  }
  return texts
}

function summaries(turns: readonly SessionTurn[]): BlockOf<'compact-summary'>[] {
  return turns.flatMap(turn => turn.content.filter((block): block is BlockOf<'compact-summary'> => block.type === 'compact-summary'))
}

describe('against the fake Anthropic server', () => {
  let fake: FakeAnthropic
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })
  const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL })

  it('tail compaction stubs older tool outputs on the wire and leaves the session as recorded', async () => {
    fake.enqueue(call('toolu_1', 'a'), call('toolu_2', 'b'), call('toolu_3', 'c'), answer('done'))
    const session = await createSession()
    const agent = createAgent({ provider: provider(), session, tools: { dump: dumpTool() }, behavior: { compactStrategy: 'tail', compactThreshold: 3000, compactKeepTurns: 2 } })
    await agent.run({ prompt: 'go' })

    const sent = fake.requests.map(request => toolResultTexts(request.body))
    expect(sent[0]).toEqual([])
    expect(sent[1]).toEqual(['a'.repeat(2000)])
    // 4000 bytes kept passes 3000: the older output becomes the stub, the newest stays.
    expect(sent[2][0]).toMatch(/^\[tool output compacted: 2000 bytes/)
    expect(sent[2][1]).toBe('b'.repeat(2000))
    expect(sent[3][0]).toBe(sent[2][0])
    expect(sent[3][1]).toMatch(/^\[tool output compacted: 2000 bytes/)
    expect(sent[3][2]).toBe('c'.repeat(2000))
    const stored = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result').map(block => block.output)
    expect(stored).toEqual(['a'.repeat(2000), 'b'.repeat(2000), 'c'.repeat(2000)])
  })

  it('a CompactFunction replaces the built-in elision and sees the messages after context:transform', async () => {
    fake.enqueue(call('toolu_1', 'a', 50), answer('done'))
    const seen: string[] = []
    const agent = createAgent({
      provider: provider(),
      tools: { dump: dumpTool() },
      behavior: {
        compactStrategy: async (messages) => {
          seen.push(JSON.stringify(messages.at(-1)?.content.map(block => block.type)))
          return messages.map(message => message.role === 'user' && message.content.some(block => block.type === 'tool_result')
            ? { ...message, content: message.content.map(block => block.type === 'tool_result' ? { ...block, output: 'custom' } : block) }
            : message)
        },
      },
    })
    agent.hooks.hook('context:transform', (ctx) => {
      ctx.messages = [...ctx.messages, { role: 'user', content: [{ type: 'text', text: 'host note' }] }]
    })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual(['["text"]', '["text"]'])
    expect(toolResultTexts(fake.requests[1].body)).toEqual(['custom'])
  })

  it('auto-compaction summarizes with a call that extends the cached request, stores a compact-summary and sends the summary view', async () => {
    fake.enqueue(
      call('toolu_1', 'a', 100),
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_2', name: 'dump', input: { letter: 'b', size: 100 } }], usage: { input_tokens: 100, cache_read_input_tokens: 800, output_tokens: 10 } } },
      answer('SUMMARY: dumped a and b.'),
      answer('done'),
    )
    const session = await createSession()
    const events: string[] = []
    const agent = createAgent({ provider: provider(), session, tools: { dump: dumpTool() }, behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } } })
    agent.hooks.hook('compact:start', ctx => void events.push(`start ${ctx.trigger} ${ctx.inputTokens} ${ctx.replacesTurnIds.length}`))
    agent.hooks.hook('compact:end', ctx => void events.push(`end ${ctx.summary}`))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(events).toEqual(['start threshold 900 3', 'end SUMMARY: dumped a and b.'])

    const [, second, summaryCall, next] = fake.requests.map(request => request.body)
    // The summary call is the next request's conversation plus one final instruction: its messages
    // extend the second request's (cache breakpoints aside), so the cached prefix is read.
    const strip = (value: unknown) => JSON.parse(JSON.stringify(value, (key, v) => key === 'cache_control' ? undefined : v))
    expect(strip(summaryCall.messages.slice(0, second.messages.length - 1))).toEqual(strip(second.messages.slice(0, -1)))
    expect(summaryCall.system).toEqual(second.system)
    expect(summaryCall.tools).toEqual(second.tools)
    expect(JSON.stringify(summaryCall.messages.at(-1))).toContain('about to be compacted')

    // The next request starts from the summary, then the kept tail (from the second call on).
    expect(JSON.stringify(next.messages[0])).toContain('SUMMARY: dumped a and b.')
    expect(JSON.stringify(next.messages)).not.toContain('a'.repeat(100))
    expect(JSON.stringify(next.messages)).toContain('b'.repeat(100))

    // The session keeps every turn as recorded, plus the summary block.
    const [block] = summaries(session.turns)
    expect(block).toMatchObject({ type: 'compact-summary', summary: 'SUMMARY: dumped a and b.', model: MODEL, usage: { input: 100 } })
    expect(block.replacesTurnIds).toEqual(session.turns.slice(0, 3).map(turn => turn.id))
    expect(session.turns.flatMap(turn => turn.content).filter(b => b.type === 'tool_result').map(b => b.output)).toEqual(['a'.repeat(100), 'b'.repeat(100)])
  })

  it('auto-compaction puts back the current text of the files the summarized turns worked on', async () => {
    const files = new Map([['notes.txt', 'notes as they were']])
    const readTool = tool({ name: 'read_file', description: 'Read', input: z.object({ path: z.string() }), execute: ({ path }) => files.get(path) ?? '' })
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } }], usage: { input_tokens: 100 } } },
      call('toolu_2', 'b', 10),
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_3', name: 'dump', input: { letter: 'c', size: 10 } }], usage: { input_tokens: 950 } } },
      answer('SUMMARY'),
      answer('done'),
    )
    const dir = await mkdtemp(join(tmpdir(), 'zidane-compact-'))
    await writeFile(join(dir, 'notes.txt'), 'notes as they are now')
    const restored: string[][] = []
    const agent = createAgent({
      provider: provider(),
      execution: createProcessContext({ cwd: dir }),
      tools: { read_file: readTool, dump: dumpTool() },
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 } },
    })
    agent.hooks.hook('compact:end', ctx => void restored.push([...ctx.restoredFiles]))
    await agent.run({ prompt: 'go' })
    await rm(dir, { recursive: true, force: true })
    expect(restored).toEqual([['notes.txt']])
    expect(JSON.stringify(fake.requests[4].body.messages[0])).toContain('notes as they are now')
  })

  it('recovers from a context_exceeded 400 by compacting and retrying the turn once', async () => {
    fake.enqueue(
      call('toolu_1', 'a', 100),
      call('toolu_2', 'b', 100),
      { type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215034 tokens > 200000 maximum' }, request_id: 'req_011CXfake' } },
      answer('SUMMARY of a'),
      answer('done'),
    )
    const session = await createSession()
    const events: string[] = []
    const agent = createAgent({ provider: provider(), session, tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    agent.hooks.hook('compact:start', ctx => void events.push(`start ${ctx.trigger}`))
    agent.hooks.hook('compact:end', ctx => void events.push(`end ${ctx.summary}`))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(events).toEqual(['start context-exceeded', 'end SUMMARY of a'])
    const summaryCall = fake.requests[3].body
    // The summary of an overflow is built from the older turns alone, their outputs stubbed.
    expect(JSON.stringify(summaryCall.messages)).not.toContain('a'.repeat(100))
    const retry = fake.requests[4].body
    expect(JSON.stringify(retry.messages[0])).toContain('SUMMARY of a')
    expect(JSON.stringify(retry.messages)).toContain('b'.repeat(100))
    expect(summaries(session.turns)).toHaveLength(1)
  })

  it('ends with AgentContextExceededError when there is nothing older to summarize, or the retry overflows too', async () => {
    const overflow: FakeResponse = { type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215034 tokens > 200000 maximum' } } }
    fake.enqueue(overflow)
    await expect(createAgent({ provider: provider() }).run({ prompt: 'hi' })).rejects.toBeInstanceOf(AgentContextExceededError)
    expect(fake.requests).toHaveLength(1)

    fake.enqueue(call('toolu_1', 'a', 10), call('toolu_2', 'b', 10), overflow, answer('SUMMARY'), overflow)
    const agent = createAgent({ provider: provider(), tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentContextExceededError)
    expect(fake.requests).toHaveLength(6)
  })
})

describe('recovery against the real overflow bodies of OpenAI Chat, Responses and OpenRouter', () => {
  let fake: FakeOpenAI
  beforeEach(async () => {
    fake = await startFakeOpenAI()
  })
  afterEach(async () => {
    await fake.close()
  })

  const chatCall = (id: string, letter: string) => ({ type: 'turn' as const, turn: { toolCalls: [{ id, name: 'dump', input: { letter, size: 50 } }] } })
  const chatText = (text: string) => ({ type: 'turn' as const, turn: { text } })

  it.each([
    ['OpenAI Chat', () => openai({ apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2' }), { error: { message: 'This model\'s maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }],
    ['OpenRouter', () => openrouter({ apiKey: 'k', baseURL: fake.url }), { error: { message: 'This endpoint\'s maximum context length is 200000 tokens. However, you requested about 251234 tokens (251000 of text input, 234 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.', code: 400, metadata: { provider_name: null } } }],
  ])('%s', async (_name, make, body) => {
    fake.enqueue(chatCall('call_1', 'a'), chatCall('call_2', 'b'), { type: 'error', status: 400, body }, chatText('SUMMARY'), chatText('done'))
    const agent = createAgent({ provider: make(), tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(JSON.stringify(fake.requests[4].body.messages)).toContain('SUMMARY')
    expect(JSON.stringify(fake.requests[4].body.messages)).not.toContain('a'.repeat(50))
  })

  it('openAI Responses', async () => {
    const responsesCall = (callId: string, letter: string) => ({ type: 'sse' as const, events: responsesEvents({ toolCalls: [{ name: 'dump', input: { letter, size: 50 }, callId }] }) })
    const responsesText = (text: string) => ({ type: 'sse' as const, events: responsesEvents({ text }) })
    const body = { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } }
    fake.enqueue(responsesCall('call_1', 'a'), responsesCall('call_2', 'b'), { type: 'error', status: 400, body }, responsesText('SUMMARY'), responsesText('done'))
    const agent = createAgent({ provider: openai({ apiKey: 'k', baseURL: fake.url, api: 'responses', defaultModel: 'gpt-5.2' }), tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(JSON.stringify(fake.requests[4].body.input)).toContain('SUMMARY')
    expect(JSON.stringify(fake.requests[4].body.input)).not.toContain('a'.repeat(50))
  })
})

describe('shouldAutoCompact', () => {
  const usage = { input: 100, cacheRead: 700, cacheCreation: 50 }
  it.each<[AgentBehavior['autoCompact'], number | undefined, boolean]>([
    [true, 1000, true],
    [true, 2000, false],
    [{ threshold: 0.9 }, 1000, false],
    [{ threshold: 0.5 }, 1000, true],
    [undefined, 1000, false],
    [false, 1000, false],
    [true, undefined, false],
  ])('%j with window %s: %s', (config, window, expected) => {
    expect(shouldAutoCompact(usage, window, config)).toBe(expected)
  })
})
