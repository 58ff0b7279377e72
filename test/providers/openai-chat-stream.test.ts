import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { invalidToolInput } from '../../src/providers'
import { openai } from '../../src/providers/openai'
import { consumeChatStream, ReasoningDetailsCollector } from '../../src/providers/openai-chat'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatChunks } from '../support/openai-chunks'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

function provider() {
  return openai({ baseURL: fake.url, apiKey: 'test-key' })
}

async function* fromChunks(chunks: unknown[]): AsyncIterable<unknown> {
  yield* chunks
}

/** A chunk with one choice carrying `delta` (and optionally a finish reason). */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finishReason }] }
}

const context = { model: 'gpt-5.2', providerName: 'openai' }

describe('streaming text and reasoning', () => {
  it('forwards every text delta in order and assembles one text block', async () => {
    fake.enqueue({ type: 'turn', turn: { text: ['Hel', 'lo', ', wor', 'ld'] } })
    const rec = recordCallbacks()
    const result = await provider().stream(chatOptions(), rec.callbacks)

    expect(rec.texts).toEqual(['Hel', 'lo', ', wor', 'ld'])
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, world' }])
    expect(result.toolCalls).toEqual([])
    expect(result.finishReason).toBe('stop')
  })

  it.each(['reasoning_content', 'reasoning'] as const)('streams reasoning sent in %s and keeps it as this model\'s reasoning, before the text', async (field) => {
    fake.enqueue({ type: 'turn', turn: { reasoning: ['Let me ', 'think.'], reasoningField: field, text: 'Done.' } })
    const rec = recordCallbacks()
    const result = await provider().stream(chatOptions({ model: 'gpt-oss-120b' }), rec.callbacks)

    expect(rec.thinking).toEqual(['Let me ', 'think.'])
    expect(result.content).toEqual([
      { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'Let me think.', model: 'gpt-oss-120b' },
      { type: 'text', text: 'Done.' },
    ])
    expect(rec.timeline.indexOf('text:Done.')).toBeGreaterThan(rec.timeline.indexOf('thinking:think.'))
  })

  it('forwards reasoning once when a server fills both reasoning fields', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([
      chunk({ reasoning_content: 'same', reasoning: 'same' }),
      chunk({ content: 'ok' }, 'stop'),
    ]), rec.callbacks, context)
    expect(rec.thinking).toEqual(['same'])
    expect(result.content[0]).toMatchObject({ reasoningText: 'same' })
  })

  it('shows a refusal as text', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([chunk({ refusal: 'I cannot help with that.' }, 'stop')]), rec.callbacks, context)
    expect(rec.texts).toEqual(['I cannot help with that.'])
    expect(result.content).toEqual([{ type: 'text', text: 'I cannot help with that.' }])
  })
})

describe('tool calls', () => {
  it('announces each call at its first piece and parses arguments split across chunks', async () => {
    const weather = { city: 'Paris', units: 'metric', days: [1, 2, 3], nested: { deep: 'value with "quotes"' } }
    fake.enqueue({ type: 'turn', turn: {
      text: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', input: weather }, { id: 'call_2', name: 'get_time', input: { zone: 'CET' } }],
    } })
    const rec = recordCallbacks()
    const result = await provider().stream(chatOptions(), rec.callbacks)

    expect(rec.toolStarts).toEqual([{ id: 'call_1', name: 'get_weather' }, { id: 'call_2', name: 'get_time' }])
    expect(result.toolCalls).toEqual([
      { id: 'call_1', name: 'get_weather', input: weather },
      { id: 'call_2', name: 'get_time', input: { zone: 'CET' } },
    ])
    expect(result.content.map(block => block.type)).toEqual(['text', 'tool_call', 'tool_call'])
    expect(result.finishReason).toBe('tool-calls')
    // Every argument fragment is a sign of life, and they all come after the call was announced.
    const start = rec.timeline.indexOf('tool:get_weather')
    expect(rec.timeline.slice(start + 1, rec.timeline.indexOf('tool:get_time')).filter(entry => entry === 'activity').length).toBe(3)
  })

  it('gives a call without argument fragments an empty input', async () => {
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: 'call_1', name: 'list_files', input: {}, rawJson: '' }] } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'list_files', input: {} }])
  })

  it('marks truncated argument JSON as invalid instead of guessing, and keeps the call paired', async () => {
    fake.enqueue({ type: 'turn', turn: {
      toolCalls: [{ id: 'call_1', name: 'write_file', input: null, rawJson: '{"path":"a.txt","content":"hel' }],
      finishReason: 'length',
    } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)

    expect(result.finishReason).toBe('length')
    expect(result.toolCalls.map(call => call.id)).toEqual(['call_1'])
    expect(invalidToolInput(result.toolCalls[0].input)).toMatchObject({ raw: '{"path":"a.txt","content":"hel' })
  })

  it('parses each call\'s arguments once, at the end, not on every fragment', async () => {
    const fragments = ['{"a"', ':', '[1,', '2]', ',"b":', '"c"}']
    const chunks = [
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'x', arguments: '' } }] }),
      ...fragments.map(arguments_ => chunk({ tool_calls: [{ index: 0, function: { arguments: arguments_ } }] })),
      chunk({}, 'tool_calls'),
    ]
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const result = await consumeChatStream(fromChunks(chunks), recordCallbacks().callbacks, context)
      expect(result.toolCalls[0].input).toEqual({ a: [1, 2], b: 'c' })
      expect(parse).toHaveBeenCalledTimes(1)
    }
    finally {
      parse.mockRestore()
    }
  })

  it('separates whole calls sent without an index, as Gemini\'s endpoint does', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([
      chunk({ tool_calls: [{ id: 'a', type: 'function', function: { name: 'one', arguments: '{"n":1}' } }] }),
      chunk({ tool_calls: [{ id: 'b', type: 'function', function: { name: 'two', arguments: '{"n":2}' } }] }),
      chunk({}, 'tool_calls'),
    ]), rec.callbacks, context)
    expect(result.toolCalls).toEqual([{ id: 'a', name: 'one', input: { n: 1 } }, { id: 'b', name: 'two', input: { n: 2 } }])
    expect(rec.toolStarts.map(call => call.name)).toEqual(['one', 'two'])
  })

  it('gives calls from a server that sends no ids fresh, distinct ids, the same ones it announced', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([
      chunk({ tool_calls: [{ index: 0, function: { name: 'one', arguments: '{}' } }, { index: 1, function: { name: 'two', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]), rec.callbacks, context)
    const ids = result.toolCalls.map(call => call.id)
    expect(ids.every(id => /^call_\w+$/.test(id))).toBe(true)
    expect(new Set(ids).size).toBe(2)
    expect(rec.toolStarts.map(call => call.id)).toEqual(ids)
  })

  it('reports tool-calls when a server says stop after emitting calls', async () => {
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: 'call_1', name: 'x', input: {} }], finishReason: 'stop' } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.finishReason).toBe('tool-calls')
  })
})

describe('finish reasons over the wire', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['function_call', 'tool-calls'],
    ['something_new', 'other'],
  ])('%s → %s, on the result and on its usage', async (finishReason, expected) => {
    fake.enqueue({ type: 'turn', turn: { text: 'x', finishReason } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.finishReason).toBe(expected)
    expect(result.usage.finishReason).toBe(expected)
  })

  it('a stream that ends without any finish_reason was cut off: a retryable network error', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'half', finishReason: null, usage: null, done: false } })
    const error = await rejectionOf(provider().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'openai' })
  })
})

describe('a finish reason of error', () => {
  it('fails the turn with a retryable server error instead of returning the partial answer', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'partial', finishReason: 'error' } })
    const error = await rejectionOf(provider().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'openai' })
  })
})

describe('usage', () => {
  it('takes cached tokens out of input, keeps reasoning tokens, and names the requested model', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok', model: 'gpt-5.2-2026-01-01', usage: { prompt_tokens: 100, cached_tokens: 30, completion_tokens: 40, reasoning_tokens: 25 } } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.usage).toEqual({
      input: 70,
      output: 40,
      cacheRead: 30,
      cacheCreation: 0,
      thinking: 25,
      modelId: 'gpt-5.2',
      provider: 'openai',
      finishReason: 'stop',
    })
  })

  it('reports zeros, not a failure, when the server sends no usage', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok', usage: null } })
    const result = await provider().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.usage).toMatchObject({ input: 0, output: 0, cacheRead: 0 })
    expect(result.usage.cost).toBeUndefined()
  })

  it('reads DeepSeek\'s cache-hit field when the standard one is absent', async () => {
    const result = await consumeChatStream(fromChunks([
      chunk({ content: 'ok' }, 'stop'),
      { id: 'c', choices: [], usage: { prompt_tokens: 50, completion_tokens: 5, prompt_cache_hit_tokens: 20 } },
    ]), recordCallbacks().callbacks, context)
    expect(result.usage).toMatchObject({ input: 30, cacheRead: 20 })
  })

  it('the scripted chunks the tests rely on carry usage only on the last, choice-less chunk', () => {
    const chunks = chatChunks({ text: 'x' }) as Array<{ choices: unknown[], usage?: unknown }>
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10 } })
    expect(chunks.slice(0, -1).every(entry => entry.usage === undefined)).toBe(true)
  })
})

describe('reasoning details', () => {
  it('appends text and summary fragments per index, and never lets a later empty placeholder erase a value', () => {
    const collector = new ReasoningDetailsCollector()
    expect(collector.push([{ type: 'reasoning.text', text: '', signature: '', index: 0 }])).toEqual([])
    expect(collector.push([{ type: 'reasoning.text', text: 'Think', index: 0 }, { type: 'reasoning.summary', summary: 'Sum', index: 1 }])).toEqual(['Think', 'Sum'])
    collector.push([{ type: 'reasoning.text', text: 'ing', signature: 'sig', index: 0 }])
    collector.push([{ type: 'reasoning.text', text: '', signature: '', index: 0 }, { summary: 'mary', index: 1 }])
    collector.push([{ type: 'reasoning.encrypted', data: 'ENC' }])
    expect(collector.finish()).toEqual([
      { type: 'reasoning.text', text: 'Thinking', signature: 'sig', index: 0 },
      { type: 'reasoning.summary', summary: 'Summary', index: 1 },
      { type: 'reasoning.encrypted', data: 'ENC' },
    ])
  })

  it('forwards detail text as thinking when a delta carries no plain reasoning, and encrypted details as activity', async () => {
    const rec = recordCallbacks()
    await consumeChatStream(fromChunks([
      chunk({ reasoning_details: [{ type: 'reasoning.summary', summary: 'Plan.', index: 0 }] }),
      chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'X', index: 1 }] }),
      chunk({ content: 'ok' }, 'stop'),
    ]), rec.callbacks, context)
    expect(rec.thinking).toEqual(['Plan.'])
    expect(rec.timeline.slice(0, 2)).toEqual(['thinking:Plan.', 'activity'])
  })
})
