import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { cerebras, CEREBRAS_BASE_URL } from '../../src/providers/cerebras'
import { startFakeOpenAI } from '../support/fake-openai'
import { assistant, chatOptions, PNG, recordCallbacks, rejectionOf, text, user } from './openai-chat-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await fake.close()
})

function provider(extra: Parameters<typeof cerebras>[0] = {}) {
  return cerebras({ baseURL: fake.url, apiKey: 'csk-test', ...extra })
}

describe('cerebras()', () => {
  it('describes itself as a text-only provider by default', () => {
    const plain = cerebras()
    expect(plain.name).toBe('cerebras')
    expect(plain.meta).toEqual({ defaultModel: 'gpt-oss-120b' })
    expect(plain.capabilities).toEqual({ images: false, documents: false, toolResultMedia: false, thinking: true, promptCache: false })
    expect(cerebras({ images: true }).capabilities.images).toBe(true)
    expect(CEREBRAS_BASE_URL).toBe('https://api.cerebras.ai/v1')
  })

  it('reads CEREBRAS_API_KEY at the first request; without it the turn fails with auth and sends nothing', async () => {
    vi.stubEnv('CEREBRAS_API_KEY', '')
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai')
    expect(await rejectionOf(cerebras({ baseURL: fake.url }).stream(chatOptions(), recordCallbacks().callbacks))).toMatchObject({ kind: 'auth', provider: 'cerebras' })
    expect(fake.requests).toHaveLength(0)

    vi.stubEnv('CEREBRAS_API_KEY', 'csk-env')
    await cerebras({ baseURL: fake.url }).stream(chatOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers.authorization).toBe('Bearer csk-env')
  })
})

describe('the request', () => {
  it('uses max_completion_tokens, reasoning_effort for gpt-oss only, and drops options the API rejects', async () => {
    const modelOptions = { temperature: 0.3, frequency_penalty: 1, parallel_tool_calls: false, service_tier: 'flex' }
    await provider().stream(chatOptions({ model: 'gpt-oss-120b', thinking: 'max', maxTokens: 300, modelOptions }), recordCallbacks().callbacks)
    await provider().stream(chatOptions({ model: 'zai-glm-4.7', thinking: 'high' }), recordCallbacks().callbacks)

    const [ossBody, glmBody] = fake.requests.map(request => request.body)
    expect(ossBody).toMatchObject({ reasoning_effort: 'high', max_completion_tokens: 300, temperature: 0.3 })
    for (const key of ['frequency_penalty', 'parallel_tool_calls', 'service_tier', 'max_tokens'])
      expect(ossBody).not.toHaveProperty(key)
    expect(glmBody).not.toHaveProperty('reasoning_effort')
  })

  it('refuses prompt images before sending, and turns tool-result images into a note', async () => {
    const image = user({ type: 'image', data: PNG, mediaType: 'image/png' })
    expect(await rejectionOf(provider().stream(chatOptions({ messages: [image] }), recordCallbacks().callbacks))).toMatchObject({ kind: 'unsupported', provider: 'cerebras' })
    expect(fake.requests).toHaveLength(0)

    const messages = [user(text('shoot')), assistant({ type: 'tool_call', id: 'c1', name: 'shot', input: {} }), user({ type: 'tool_result', callId: 'c1', output: [{ type: 'image', data: PNG, mediaType: 'image/png' }] })]
    await provider().stream(chatOptions({ messages }), recordCallbacks().callbacks)
    expect(fake.requests[0].body.messages.slice(3)).toEqual([{ role: 'tool', tool_call_id: 'c1', content: '[image omitted: this model does not take images]' }])
  })
})

describe('the response', () => {
  it('streams reasoning from the `reasoning` field and stamps cerebras on the usage', async () => {
    fake.enqueue({ type: 'turn', turn: { reasoning: ['Quick ', 'check.'], reasoningField: 'reasoning', text: 'Yes.', usage: { prompt_tokens: 40, completion_tokens: 9 } } })
    const rec = recordCallbacks()
    const result = await provider().stream(chatOptions({ model: 'gpt-oss-120b', thinking: 'low' }), rec.callbacks)
    expect(rec.thinking).toEqual(['Quick ', 'check.'])
    expect(result.content[0]).toEqual({ type: 'provider_reasoning', producer: 'vllm', reasoningText: 'Quick check.', model: 'gpt-oss-120b' })
    expect(result.usage).toMatchObject({ input: 40, output: 9, provider: 'cerebras', modelId: 'gpt-oss-120b' })
  })
})
