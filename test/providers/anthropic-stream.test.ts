import type { FakeAnthropic } from '../support/fake-anthropic'
import type { SseEvent } from '../support/sse'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { invalidToolInput } from '../../src/providers'
import { anthropic, buildAnthropicRequest } from '../../src/providers/anthropic'
import { ToolJsonBuffer } from '../../src/providers/tool-json'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { anthropicEvents } from '../support/sse'
import { assistant, recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

let fake: FakeAnthropic

beforeEach(async () => {
  fake = await startFakeAnthropic()
})

afterEach(async () => {
  await fake.close()
})

function provider() {
  return anthropic({ baseURL: fake.url, apiKey: 'test-key' })
}

describe('streaming text and thinking', () => {
  it('forwards every text delta in order and assembles one text block', async () => {
    fake.enqueue({ type: 'turn', turn: { text: ['Hel', 'lo', ', wor', 'ld'] } })
    const rec = recordCallbacks()
    const result = await provider().stream(streamOptions(), rec.callbacks)

    expect(rec.texts).toEqual(['Hel', 'lo', ', wor', 'ld'])
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, world' }])
    expect(result.toolCalls).toEqual([])
    expect(result.finishReason).toBe('stop')
  })

  it('captures thinking with its signature, tagged as Anthropic-signed, before the text', async () => {
    fake.enqueue({ type: 'turn', turn: { thinking: { text: 'Let me think it over.', signature: 'sig-abc' }, text: 'Done.' } })
    const rec = recordCallbacks()
    const result = await provider().stream(streamOptions({ thinking: 'high' }), rec.callbacks)

    expect(rec.thinking.join('')).toBe('Let me think it over.')
    expect(rec.thinking.length).toBeGreaterThan(1)
    expect(result.content).toEqual([
      { type: 'thinking', text: 'Let me think it over.', signature: 'sig-abc', signatureProducer: 'anthropic' },
      { type: 'text', text: 'Done.' },
    ])
    expect(rec.timeline.indexOf('text:Done.')).toBeGreaterThan(rec.timeline.findIndex(entry => entry.startsWith('thinking:')))
  })

  it('keeps redacted thinking as an opaque block', async () => {
    fake.enqueue({ type: 'turn', turn: { redactedThinking: 'EncryptedBlob==', text: 'ok' } })
    const result = await provider().stream(streamOptions({ thinking: 'high' }), recordCallbacks().callbacks)
    expect(result.content[0]).toEqual({ type: 'redacted_thinking', data: 'EncryptedBlob==' })
  })

  it('keeps a signed thinking block whose text is omitted, so it can be replayed', async () => {
    fake.enqueue({ type: 'turn', turn: { thinking: { text: '', signature: 'sig-only' }, text: 'hi' } })
    const result = await provider().stream(streamOptions({ thinking: 'high' }), recordCallbacks().callbacks)
    expect(result.content[0]).toEqual({ type: 'thinking', text: '', signature: 'sig-only', signatureProducer: 'anthropic' })
  })
})

describe('tool calls', () => {
  it('announces each call when its block starts and parses arguments split across deltas', async () => {
    const weather = { city: 'Paris', units: 'metric', days: [1, 2, 3], nested: { deep: 'value with "quotes"' } }
    fake.enqueue({ type: 'turn', turn: {
      text: 'Checking.',
      toolCalls: [
        { id: 'toolu_1', name: 'get_weather', input: weather },
        { id: 'toolu_2', name: 'get_time', input: { zone: 'CET' } },
      ],
    } })
    const rec = recordCallbacks()
    const result = await provider().stream(streamOptions(), rec.callbacks)

    expect(rec.toolStarts).toEqual([{ id: 'toolu_1', name: 'get_weather' }, { id: 'toolu_2', name: 'get_time' }])
    expect(result.toolCalls).toEqual([
      { id: 'toolu_1', name: 'get_weather', input: weather },
      { id: 'toolu_2', name: 'get_time', input: { zone: 'CET' } },
    ])
    expect(result.content.map(block => block.type)).toEqual(['text', 'tool_call', 'tool_call'])
    expect(result.finishReason).toBe('tool-calls')
    // The announcement comes before any of the call's argument fragments.
    const start = rec.timeline.indexOf('tool:get_weather')
    expect(rec.timeline.slice(start + 1).filter(entry => entry === 'activity').length).toBeGreaterThanOrEqual(3)
  })

  it('gives a call without argument fragments an empty input', async () => {
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'list_files', input: {}, rawJson: '' }] } })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'list_files', input: {} }])
  })

  it('marks truncated argument JSON as invalid instead of guessing, and keeps the call paired', async () => {
    fake.enqueue({ type: 'turn', turn: {
      toolCalls: [{ id: 'toolu_1', name: 'write_file', input: null, rawJson: '{"path":"a.txt","content":"hel' }],
      stopReason: 'max_tokens',
    } })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)

    expect(result.finishReason).toBe('length')
    expect(result.toolCalls).toHaveLength(1)
    const call = result.toolCalls[0]
    expect(call.id).toBe('toolu_1')
    expect(call.input).not.toHaveProperty('path')
    const invalid = invalidToolInput(call.input)
    expect(invalid?.raw).toBe('{"path":"a.txt","content":"hel')
    expect(invalid?.error).toMatch(/not valid JSON/)
  })

  it('marks arguments that parse to something other than an object as invalid', async () => {
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'x', input: null, rawJson: '[1,2]' }] } })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    expect(invalidToolInput(result.toolCalls[0].input)).toEqual({ raw: '[1,2]', error: 'arguments are not a JSON object' })
    expect(invalidToolInput({ path: 'a.txt' })).toBeUndefined()
  })

  it('parses the collected fragments once, at the end, not on every delta', () => {
    const buffer = new ToolJsonBuffer()
    const parse = vi.spyOn(JSON, 'parse')
    try {
      for (const piece of ['{"a"', ':', '[1,', '2]', ',"b":', '"c"}'])
        buffer.push(piece)
      expect(parse).not.toHaveBeenCalled()
      expect(buffer.finish({})).toEqual({ a: [1, 2], b: 'c' })
      expect(parse).toHaveBeenCalledTimes(1)
    }
    finally {
      parse.mockRestore()
    }
  })
})

describe('server tools', () => {
  const searchResult = {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_1',
    caller: { type: 'direct' },
    content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Example', encrypted_content: 'enc', page_age: null }],
  }
  const events: SseEvent[] = [
    { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {}, caller: { type: 'direct' } } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"zidane"}' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: searchResult } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Found it.' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 2 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]

  it('keeps server tool calls and results as provider blocks, out of the client tool calls', async () => {
    fake.enqueue({ type: 'sse', events })
    const rec = recordCallbacks()
    const result = await provider().stream(streamOptions(), rec.callbacks)

    expect(result.content).toEqual([
      { type: 'server_tool_use', producer: 'anthropic', id: 'srvtoolu_1', name: 'web_search', input: { query: 'zidane' } },
      { type: 'server_tool_result', producer: 'anthropic', toolUseId: 'srvtoolu_1', toolName: 'web_search', content: searchResult },
      { type: 'text', text: 'Found it.' },
    ])
    expect(result.toolCalls).toEqual([])
    expect(rec.toolStarts).toEqual([])
    expect(rec.timeline).toContain('activity')
  })

  it('fails the turn, retryably and before recording it, when a server tool result nests past 100 levels', async () => {
    // Recorded, such a value would overflow the stack of every later request's serialization.
    const nested = (depth: number): unknown => depth === 0 ? 'leaf' : [nested(depth - 1)]
    const withContent = (content: unknown): SseEvent[] => events.map((event, i) => i === 5
      ? { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { ...searchResult, content } } }
      : event)
    fake.enqueue({ type: 'sse', events: withContent(nested(150)) })
    const error = await rejectionOf(provider().stream(streamOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'anthropic' })
    expect(error.message).toContain('a server tool result nested more than 100 levels deep')

    fake.enqueue({ type: 'sse', events: withContent(nested(90)) })
    const kept = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    expect(kept.content[1]).toMatchObject({ type: 'server_tool_result', content: { content: nested(90) } })
  })

  it('replays server tool blocks unchanged on the next request', async () => {
    fake.enqueue({ type: 'sse', events })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    const { body } = buildAnthropicRequest(streamOptions({ messages: [...streamOptions().messages, assistant(...result.content)], cache: false }))
    expect(body.messages[1].content).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'zidane' } },
      searchResult,
      { type: 'text', text: 'Found it.' },
    ])
  })
})

describe('finish reasons over the wire', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'pause'],
    ['something_new', 'other'],
  ])('%s → %s, on the result and on its usage', async (stopReason, expected) => {
    fake.enqueue({ type: 'turn', turn: { text: 'x', stopReason } })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    expect(result.finishReason).toBe(expected)
    expect(result.usage.finishReason).toBe(expected)
  })
})

describe('usage and cost', () => {
  it('reports tokens, the serving model and the list-price cost', async () => {
    fake.enqueue({ type: 'turn', turn: {
      text: 'hi',
      model: 'claude-sonnet-5-5',
      usage: { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 2000 },
    } })
    const result = await provider().stream(streamOptions(), recordCallbacks().callbacks)
    // Sonnet 5.5: $2 in, $10 out, $0.10 cache read, $2.50 5-minute cache write (per million).
    const expected = (1000 * 2 + 500 * 10 + 10_000 * 0.1 + 2000 * 2.5) / 1e6
    expect(result.usage).toEqual({
      input: 1000,
      output: 500,
      cacheRead: 10_000,
      cacheCreation: 2000,
      modelId: 'claude-sonnet-5-5',
      provider: 'anthropic',
      finishReason: 'stop',
      cost: expect.closeTo(expected, 12),
    })
  })

  it('prices a dated model id by its family', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi', model: 'claude-haiku-4-5-20251001', usage: { input_tokens: 1_000_000, output_tokens: 0 } } })
    const result = await provider().stream(streamOptions({ model: 'claude-haiku-4-5-20251001' }), recordCallbacks().callbacks)
    expect(result.usage.modelId).toBe('claude-haiku-4-5-20251001')
    expect(result.usage.cost).toBeCloseTo(1, 10)
  })

  it('leaves cost out for a model without a price', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi', usage: { input_tokens: 100, output_tokens: 10 } } })
    const result = await provider().stream(streamOptions({ model: 'claude-from-the-future' }), recordCallbacks().callbacks)
    expect(result.usage.modelId).toBe('claude-from-the-future')
    expect(result.usage.input).toBe(100)
    expect(result.usage).not.toHaveProperty('cost')
  })

  it('bills cache writes at the 1-hour rate when the run asked for 1-hour entries', async () => {
    const turn = { text: 'hi', model: 'claude-opus-4-8', usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000 } }
    fake.enqueue({ type: 'turn', turn }, { type: 'turn', turn })
    const oneHour = await provider().stream(streamOptions({ model: 'claude-opus-4-8', cacheTtl: '1h' }), recordCallbacks().callbacks)
    const fiveMinutes = await provider().stream(streamOptions({ model: 'claude-opus-4-8' }), recordCallbacks().callbacks)
    // Opus 4.8 input is $5: 1h writes 2x ($10), 5m writes 1.25x ($6.25).
    expect(oneHour.usage.cost).toBeCloseTo(10, 10)
    expect(fiveMinutes.usage.cost).toBeCloseTo(6.25, 10)
  })

  it('uses the per-TTL split when the API reports one, and output details for thinking tokens', async () => {
    const events = anthropicEvents({ text: 'hi', model: 'claude-opus-4-8' })
    const start = events[0].data as { message: { usage: Record<string, unknown> } }
    start.message.usage = {
      input_tokens: 0,
      output_tokens: 1,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 3_000_000,
      cache_creation: { ephemeral_5m_input_tokens: 2_000_000, ephemeral_1h_input_tokens: 1_000_000 },
    }
    const delta = events.find(event => event.event === 'message_delta')!.data as { usage: Record<string, unknown> }
    delta.usage = { output_tokens: 0, output_tokens_details: { thinking_tokens: 42 } }
    fake.enqueue({ type: 'sse', events })

    const result = await provider().stream(streamOptions({ model: 'claude-opus-4-8', cacheTtl: '1h' }), recordCallbacks().callbacks)
    expect(result.usage.cacheCreation).toBe(3_000_000)
    expect(result.usage.thinking).toBe(42)
    // 2M at $6.25 + 1M at $10, whatever TTL the run configured.
    expect(result.usage.cost).toBeCloseTo(22.5, 10)
  })
})

describe('incomplete streams', () => {
  it('fails with a retryable network error when the stream ends before message_stop', async () => {
    const events = anthropicEvents({ text: 'cut off' }).filter(event => event.event !== 'message_stop' && event.event !== 'message_delta')
    fake.enqueue({ type: 'sse', events })
    const rec = recordCallbacks()
    const error = await rejectionOf(provider().stream(streamOptions(), rec.callbacks))

    expect(rec.texts).toEqual(['cut off'])
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.kind).toBe('network')
    expect(error.retryable).toBe(true)
  })
})
