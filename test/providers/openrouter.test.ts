import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isAnthropicRoute, openrouter, OPENROUTER_BASE_URL } from '../../src/providers/openrouter'
import { startFakeOpenAI } from '../support/fake-openai'
import { assistant, chatOptions, READ_TOOL, recordCallbacks, rejectionOf, text, user } from './openai-chat-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await fake.close()
})

const CLAUDE = 'anthropic/claude-sonnet-4.5'

function router() {
  return openrouter({ baseURL: fake.url, apiKey: 'or-key' })
}

describe('openrouter()', () => {
  it('describes itself', () => {
    const provider = openrouter()
    expect(provider.name).toBe('openrouter')
    expect(provider.meta).toEqual({ defaultModel: CLAUDE })
    expect(provider.capabilities).toMatchObject({ images: true, documents: true, thinking: true, promptCache: true })
    expect(OPENROUTER_BASE_URL).toBe('https://openrouter.ai/api/v1')
  })

  it('reads OPENROUTER_API_KEY at the first request, and never falls back to OpenAI\'s key', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai')
    vi.stubEnv('OPENROUTER_API_KEY', '')
    const missing = await rejectionOf(openrouter({ baseURL: fake.url }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(missing).toMatchObject({ kind: 'auth', retryable: false, provider: 'openrouter' })
    expect(missing.message).toContain('OPENROUTER_API_KEY')
    expect(fake.requests).toHaveLength(0)

    const provider = openrouter({ baseURL: fake.url })
    vi.stubEnv('OPENROUTER_API_KEY', 'or-env')
    await provider.stream(chatOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers.authorization).toBe('Bearer or-env')
  })

  it('asks for usage with cost, sends the level as reasoning.effort and the cap as max_tokens, and passes routing options', async () => {
    await router().stream(chatOptions({ model: 'openai/gpt-5.2', thinking: 'high', maxTokens: 800, modelOptions: { provider: { order: ['azure'] }, top_k: 5 } }), recordCallbacks().callbacks)
    expect(fake.requests[0].body).toMatchObject({
      model: 'openai/gpt-5.2',
      reasoning: { effort: 'high' },
      max_tokens: 800,
      provider: { order: ['azure'] },
      top_k: 5,
      stream_options: { include_usage: true },
      usage: { include: true },
    })
  })
})

describe('usage and cost', () => {
  it('puts the reported cost in TurnUsage.cost and takes cache reads and writes out of input', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok', usage: { prompt_tokens: 1000, cached_tokens: 600, cache_write_tokens: 300, completion_tokens: 50, reasoning_tokens: 10, cost: 0.001234 } } })
    const result = await router().stream(chatOptions({ model: CLAUDE }), recordCallbacks().callbacks)
    expect(result.usage).toEqual({
      input: 100,
      output: 50,
      cacheRead: 600,
      cacheCreation: 300,
      thinking: 10,
      cost: 0.001234,
      modelId: CLAUDE,
      provider: 'openrouter',
      finishReason: 'stop',
    })
  })
})

describe('reasoning details', () => {
  const streamed = { text: ['Weigh ', 'the options.'], signature: 'sig-xyz', encrypted: 'ENC==' }

  it('streams the reasoning once and keeps the details merged, tagged with the requested model', async () => {
    fake.enqueue({ type: 'turn', turn: { reasoningDetails: streamed, text: 'Answer.' } })
    const rec = recordCallbacks()
    const result = await router().stream(chatOptions({ model: CLAUDE, thinking: 'medium' }), rec.callbacks)

    expect(rec.thinking).toEqual(['Weigh ', 'the options.'])
    expect(result.content).toEqual([
      {
        type: 'provider_reasoning',
        producer: 'openrouter',
        model: CLAUDE,
        details: [
          { type: 'reasoning.text', text: 'Weigh the options.', signature: 'sig-xyz', format: 'anthropic-claude-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'ENC==', format: 'anthropic-claude-v1', index: 1 },
        ],
      },
      { type: 'text', text: 'Answer.' },
    ])
  })

  it('fails the turn, retryably and before recording it, when a detail nests past 100 levels', async () => {
    // Recorded, such a detail would overflow the stack of every later request that replays it.
    const nested = (depth: number): unknown => depth === 0 ? 'leaf' : [nested(depth - 1)]
    const chunks = (data: unknown) => [
      { id: 'c1', object: 'chat.completion.chunk', created: 1, model: CLAUDE, choices: [{ index: 0, delta: { role: 'assistant', reasoning_details: [{ type: 'reasoning.encrypted', data, index: 0 }] }, finish_reason: null }] },
      { id: 'c1', object: 'chat.completion.chunk', created: 1, model: CLAUDE, choices: [{ index: 0, delta: { content: 'Answer.' }, finish_reason: 'stop' }] },
    ]
    fake.enqueue({ type: 'chunks', chunks: chunks(nested(150)) })
    const error = await rejectionOf(router().stream(chatOptions({ model: CLAUDE }), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'openrouter' })
    expect(error.message).toContain('reasoning details nested more than 100 levels deep')

    fake.enqueue({ type: 'chunks', chunks: chunks(nested(90)) })
    const kept = await router().stream(chatOptions({ model: CLAUDE }), recordCallbacks().callbacks)
    expect(kept.content[0]).toMatchObject({ type: 'provider_reasoning', details: [{ data: nested(90) }] })
  })

  it('replays the details on the assistant message to the same model, and to no other', async () => {
    fake.enqueue({ type: 'turn', turn: { reasoningDetails: streamed, toolCalls: [{ id: 'toolu_01', name: 'read_file', input: { path: 'a' } }] } })
    const first = await router().stream(chatOptions({ model: CLAUDE, tools: [READ_TOOL] }), recordCallbacks().callbacks)
    const history = [user(text('read a')), assistant(...first.content), user({ type: 'tool_result', callId: 'toolu_01', output: 'A' })]

    await router().stream(chatOptions({ model: CLAUDE, messages: history }), recordCallbacks().callbacks)
    await router().stream(chatOptions({ model: 'openai/gpt-5.2', messages: history }), recordCallbacks().callbacks)

    const replayed = fake.requests[1].body.messages[2]
    expect(replayed.reasoning_details).toEqual((first.content[0] as { details: unknown[] }).details)
    expect(replayed.tool_calls[0].id).toBe('toolu_01')
    expect(fake.requests[2].body.messages[2]).not.toHaveProperty('reasoning_details')
  })
})

describe('cache breakpoints', () => {
  it('go on Anthropic routes, with the TTL and using part arrays, and nowhere else', async () => {
    const messages = [user(text('hi'))]
    await router().stream(chatOptions({ model: CLAUDE, messages, tools: [READ_TOOL], cacheTtl: '1h' }), recordCallbacks().callbacks)
    await router().stream(chatOptions({ model: 'google/gemini-3-pro', messages, tools: [READ_TOOL] }), recordCallbacks().callbacks)
    await router().stream(chatOptions({ model: CLAUDE, messages, cache: false }), recordCallbacks().callbacks)

    const mark = { type: 'ephemeral', ttl: '1h' }
    const [anthropicRoute, other, off] = fake.requests.map(request => request.body)
    expect(anthropicRoute.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are terse.', cache_control: mark }] },
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: mark }] },
    ])
    expect(anthropicRoute.tools[0].cache_control).toEqual(mark)
    expect(JSON.stringify(other)).not.toContain('cache_control')
    expect(JSON.stringify(off)).not.toContain('cache_control')
    expect(isAnthropicRoute('anthropic/claude-opus-4.5')).toBe(true)
    expect(isAnthropicRoute('openai/gpt-5.2')).toBe(false)
  })
})
