import type { FakeOpenAI } from '../support/fake-openai'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { ClassifiedError } from '../../src/errors'
import { openai } from '../../src/providers/openai'
import { consumeChatStream } from '../../src/providers/openai-chat'
import { openaiCompat } from '../../src/providers/openai-compat'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'
import { groqCompoundStream, magistralStream, noFinishReasonStream, noisyGatewayStream } from './openai-chat-vendor-fixtures'

// Streams as particular Chat Completions servers send them, through the real
// `openai` client and a local server speaking SSE.

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

const compat = (extra: Partial<Parameters<typeof openaiCompat>[0]> = {}) => openaiCompat({ baseURL: fake.url, defaultModel: 'm', name: 'gateway', ...extra })

describe('usage outside the standard field', () => {
  it('reads Groq\'s x_groq.usage when no chunk carries usage', async () => {
    fake.enqueue({ type: 'chunks', chunks: groqCompoundStream() })
    const result = await compat().stream(chatOptions({ model: 'groq/compound' }), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'Paris is the capital.' }])
    expect(result.usage).toMatchObject({ input: 1834, output: 57, provider: 'gateway', finishReason: 'stop' })

    // When the standard field comes as well, it wins.
    fake.enqueue({ type: 'chunks', chunks: groqCompoundStream({ standardUsage: true }) })
    const both = await compat().stream(chatOptions(), recordCallbacks().callbacks)
    expect(both.usage).toMatchObject({ input: 1900, output: 60 })
  })

  it('reads the paths a dialect names, and none when it names none', async () => {
    const chunks = [
      { choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] },
      { choices: [], meta: { billing: { prompt_tokens: 7, completion_tokens: 2 } } },
    ]
    const named = await consumeChatStream(fromChunks(chunks), recordCallbacks().callbacks, { model: 'm', providerName: 'p', usageFields: ['meta.billing'] })
    expect(named.usage).toMatchObject({ input: 7, output: 2 })
    const unnamed = await consumeChatStream(fromChunks(chunks), recordCallbacks().callbacks, { model: 'm', providerName: 'p' })
    expect(unnamed.usage).toMatchObject({ input: 0, output: 0 })
  })
})

describe('reasoning as typed content parts (magistral)', () => {
  it('streams thinking parts as thinking and keeps them as this model\'s reasoning; text parts and strings are the answer', async () => {
    fake.enqueue({ type: 'chunks', chunks: magistralStream() })
    const rec = recordCallbacks()
    const result = await compat().stream(chatOptions({ model: 'magistral-medium-2509' }), rec.callbacks)

    expect(rec.thinking).toEqual(['The user greets me', ', so I should', ' greet back.'])
    expect(rec.texts).toEqual(['Hello', ', how can ', 'I help?'])
    expect(result.content).toEqual([
      { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'The user greets me, so I should greet back.', model: 'magistral-medium-2509' },
      { type: 'text', text: 'Hello, how can I help?' },
    ])
    expect(result.usage).toMatchObject({ input: 12, output: 84 })
    expect(rec.timeline.indexOf('text:Hello')).toBeGreaterThan(rec.timeline.indexOf('thinking: greet back.'))
  })

  it('takes thinking given as a plain string, refusal parts as text, and skips parts it does not know', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([
      { choices: [{ index: 0, delta: { content: [{ type: 'thinking', thinking: 'hmm' }, null, { type: 'reference', reference_ids: [1] }] } }] },
      { choices: [{ index: 0, delta: { content: [{ type: 'refusal', refusal: 'No.' }] }, finish_reason: 'stop' }] },
    ]), rec.callbacks, { model: 'm', providerName: 'p' })
    expect(rec.thinking).toEqual(['hmm'])
    expect(result.content).toEqual([
      { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'hmm', model: 'm' },
      { type: 'text', text: 'No.' },
    ])
  })
})

describe('how a stream ends', () => {
  it('a stream that reaches [DONE] without any finish_reason is a normal stop; the same body without [DONE] was cut off', async () => {
    fake.enqueue({ type: 'chunks', chunks: noFinishReasonStream() })
    const result = await compat().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'The answer is 42.' }])
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ input: 310, output: 9, finishReason: 'stop' })

    fake.enqueue({ type: 'chunks', chunks: noFinishReasonStream(), done: false })
    const error = await rejectionOf(compat().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'gateway' })
  })

  it('the same with tool calls is a tool-calls stop, and a whole agent run completes over such a server', async () => {
    fake.enqueue(
      { type: 'chunks', chunks: noFinishReasonStream({ toolCall: true }) },
      { type: 'chunks', chunks: noFinishReasonStream() },
    )
    const looked: string[] = []
    const lookup = tool({
      name: 'lookup',
      description: 'Look up a word',
      input: z.object({ word: z.string() }),
      execute: ({ word }) => {
        looked.push(word)
        return 'found'
      },
    })
    const agent = createAgent({ provider: compat(), tools: { lookup } })
    const stats = await agent.run({ prompt: 'Look up alpha.' })
    expect(looked).toEqual(['alpha'])
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('The answer is 42.')
    expect(stats.turnUsage?.[0]).toMatchObject({ finishReason: 'tool-calls', input: 310 })
    expect(fake.requests).toHaveLength(2)
  })

  it('text that spells the terminator is content, not the end of the stream', async () => {
    const chunks = [{ choices: [{ index: 0, delta: { content: 'data: [DONE]\n\n' } }] }, { choices: [{ index: 0, delta: { content: '[DONE]' } }] }]
    fake.enqueue({ type: 'chunks', chunks, done: false })
    const error = await rejectionOf(compat().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'network', provider: 'gateway' })

    fake.enqueue({ type: 'chunks', chunks })
    const result = await compat().stream(chatOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'data: [DONE]\n\n[DONE]' }])
  })

  it('a data line that is not JSON is a typed, retryable server error naming the provider', async () => {
    fake.enqueue({ type: 'sse', events: [{ data: { choices: [{ index: 0, delta: { content: 'Hi' } }] } }, { data: '<html>502 Bad Gateway</html>' }] })
    const error = await rejectionOf(compat().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'gateway' })
    expect(error.message).toContain('<html>502 Bad Gateway</html>')
  })

  it('a connection reset half-way is a retryable network error naming the provider and the URL', async () => {
    fake.enqueue({ type: 'chunks', chunks: noFinishReasonStream(), drop: true })
    const error = await rejectionOf(compat().stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'gateway', url: `${fake.url}/chat/completions` })
    expect(error.message).toContain('gateway')
    expect(error.message).toContain(`${fake.url}/chat/completions`)
  })
})

describe('chunks with extra, null and empty parts', () => {
  it('a gateway\'s noise (null choices and deltas, empty choices, vendor fields) changes nothing', async () => {
    fake.enqueue({ type: 'chunks', chunks: noisyGatewayStream() })
    const rec = recordCallbacks()
    const result = await openai({ baseURL: fake.url, apiKey: 'k' }).stream(chatOptions(), rec.callbacks)
    expect(rec.texts).toEqual(['Hi', ' there'])
    expect(result.content).toEqual([{ type: 'text', text: 'Hi there' }])
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ input: 21, output: 3 })
  })

  it('tool-call pieces that are null, arguments sent as an object, and every call at index 0 with its own id', async () => {
    const rec = recordCallbacks()
    const result = await consumeChatStream(fromChunks([
      null,
      { choices: [{ index: 0, delta: { tool_calls: null } }] },
      { choices: [{ index: 0, delta: { tool_calls: [null, { index: 0, id: 'call_a', function: { name: 'read', arguments: '{"path":' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', function: { arguments: '"a.txt"}' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_b', function: { name: 'read', arguments: { path: 'b.txt' } } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ]), rec.callbacks, { model: 'm', providerName: 'p' })
    expect(result.toolCalls).toEqual([
      { id: 'call_a', name: 'read', input: { path: 'a.txt' } },
      { id: 'call_b', name: 'read', input: { path: 'b.txt' } },
    ])
    expect(rec.toolStarts).toEqual([{ id: 'call_a', name: 'read' }, { id: 'call_b', name: 'read' }])
    expect(result.finishReason).toBe('tool-calls')
  })

  it('any well-formed stream with random extra fields, null deltas, empty and usage-only chunks yields the same text and calls', async () => {
    await fc.assert(fc.asyncProperty(streamCase(), async (sample) => {
      fake.enqueue({ type: 'chunks', chunks: sample.chunks })
      const rec = recordCallbacks()
      const result = await compat().stream(chatOptions(), rec.callbacks)
      expect(rec.texts.join('')).toBe(sample.text)
      expect(result.content.filter(block => block.type === 'text')).toEqual(sample.text ? [{ type: 'text', text: sample.text }] : [])
      expect(result.toolCalls).toEqual(sample.calls)
      expect(result.finishReason).toBe(sample.calls.length > 0 ? 'tool-calls' : 'stop')
      expect(result.usage).toMatchObject({ input: 5, output: 6 })
    }), { numRuns: 40 })
  })
})

async function* fromChunks(chunks: unknown[]): AsyncIterable<unknown> {
  yield* chunks
}

interface StreamCase {
  chunks: unknown[]
  text: string
  calls: { id: string, name: string, input: Record<string, unknown> }[]
}

/** Fields servers add that the reader must ignore, wherever they appear. */
const extraFields = fc.dictionary(
  fc.constantFrom('system_fingerprint', 'service_tier', 'obfuscation', 'x_groq', 'provider', 'logprobs', 'p', 'citations'),
  fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.record({ id: fc.string() })),
  { maxKeys: 3 },
)

/** Chunks that carry nothing: keep-alives and stray shapes, each followed or not by extra fields. */
const noiseChunk = fc.oneof(
  fc.constant({ choices: [] }),
  fc.constant({ choices: null }),
  fc.constant({ choices: [{ index: 0, delta: null, finish_reason: null }] }),
  fc.constant({ choices: [{ index: 0, delta: {}, finish_reason: null }] }),
  fc.constant({ choices: [{ index: 0, delta: { content: null, tool_calls: null, reasoning_content: null } }] }),
  fc.constant({ choices: [null] }),
)

/**
 * A text answer or tool calls, split at random into deltas, with noise chunks
 * and extra fields mixed in, a finish_reason or none, and usage on its own
 * chunk. Every variant ends with `[DONE]`, added by the fake server.
 */
function streamCase(): fc.Arbitrary<StreamCase> {
  const textPieces = fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 5 })
  const calls = fc.array(fc.record({ word: fc.string({ maxLength: 8 }) }), { maxLength: 2 })
  return fc.record({
    pieces: textPieces,
    calls,
    split: fc.integer({ min: 1, max: 4 }),
    withFinish: fc.boolean(),
    noise: fc.array(fc.tuple(fc.nat(20), noiseChunk), { maxLength: 5 }),
    extras: fc.array(extraFields, { minLength: 30, maxLength: 30 }),
  }).map(({ pieces, calls, split, withFinish, noise, extras }) => {
    const meaningful: Record<string, unknown>[] = [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }]
    for (const piece of pieces)
      meaningful.push({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })
    const expected: StreamCase['calls'] = []
    calls.forEach((input, n) => {
      const id = `call_${n}`
      expected.push({ id, name: 'lookup', input })
      const json = JSON.stringify(input)
      const size = Math.ceil(json.length / split)
      meaningful.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: n, id, type: 'function', function: { name: 'lookup', arguments: '' } }] } }] })
      for (let at = 0; at < json.length; at += size)
        meaningful.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: n, function: { arguments: json.slice(at, at + size) } }] } }] })
    })
    if (withFinish)
      meaningful.push({ choices: [{ index: 0, delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }] })
    meaningful.push({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 6 } })

    const chunks: unknown[] = meaningful.map((chunk, n) => ({ ...extras[n % extras.length], ...chunk }))
    for (const [position, chunk] of noise)
      chunks.splice(1 + (position % chunks.length), 0, { ...extras[position % extras.length], ...chunk })
    return { chunks, text: pieces.join(''), calls: expected }
  })
}
