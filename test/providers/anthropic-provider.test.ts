import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { anthropic, buildAnthropicRequest } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { assistant, recordCallbacks, streamOptions, text, user } from './anthropic-fixtures'

let fake: FakeAnthropic

beforeEach(async () => {
  fake = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await fake.close()
})

describe('anthropic()', () => {
  it('describes itself: name, default model with its context window, capabilities', () => {
    const provider = anthropic()
    expect(provider.name).toBe('anthropic')
    expect(provider.meta).toEqual({ defaultModel: 'claude-sonnet-5-5', contextWindow: 1_000_000 })
    expect(provider.capabilities).toEqual({
      images: true,
      documents: true,
      toolResultMedia: true,
      thinking: true,
      promptCache: true,
      adaptiveBudgetIsEnvelope: true,
    })
  })

  it('takes the default model from params, with the context window from the table when known', () => {
    expect(anthropic({ defaultModel: 'claude-haiku-4-5' }).meta).toEqual({ defaultModel: 'claude-haiku-4-5', contextWindow: 200_000 })
    expect(anthropic({ defaultModel: 'my-gateway-alias' }).meta.contextWindow).toBeUndefined()
  })

  it('can be created without any key', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '')
    expect(() => anthropic()).not.toThrow()
  })

  it('reads the key and the base URL from the environment at the first request', async () => {
    const provider = anthropic()
    vi.stubEnv('ANTHROPIC_API_KEY', 'env-key')
    vi.stubEnv('ANTHROPIC_BASE_URL', fake.url)
    await provider.stream(streamOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers.authorization).toBe('Bearer env-key')
  })
})

describe('the request on the wire', () => {
  it('posts the built body with stream: true to /v1/messages, authorized with the key', async () => {
    const options = streamOptions({
      model: 'claude-opus-5-5',
      thinking: 'medium',
      tools: [{ name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }],
      messages: [user(text('Read it')), assistant(text('ok')), user(text('now'))],
    })
    await anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks)

    const [request] = fake.requests
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/v1/messages')
    expect(request.headers.authorization).toBe('Bearer test-key')
    expect(request.headers['anthropic-version']).toBeTruthy()
    expect(request.headers).not.toHaveProperty('anthropic-beta')
    expect(request.body).toEqual({ ...buildAnthropicRequest(options).body, stream: true })
  })

  it('sends the betas a request needs, merged with the caller\'s, plus the caller\'s other headers', async () => {
    const provider = anthropic({
      baseURL: fake.url,
      apiKey: 'test-key',
      headers: { 'Anthropic-Beta': 'my-beta-2026-01-01', 'x-team': 'core' },
    })
    await provider.stream(streamOptions({ cacheTtl: '1h', taskBudget: 100_000, thinking: 'high' }), recordCallbacks().callbacks)

    const { headers } = fake.requests[0]
    expect(headers['anthropic-beta']?.split(',')).toEqual(['my-beta-2026-01-01', 'extended-cache-ttl-2025-04-11', 'task-budgets-2026-03-13'])
    expect(headers['x-team']).toBe('core')
  })

  it('keeps the caller\'s betas when the request needs none', async () => {
    await anthropic({ baseURL: fake.url, apiKey: 'test-key', headers: { 'anthropic-beta': 'a-1, b-2' } }).stream(streamOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers['anthropic-beta']).toBe('a-1,b-2')
  })

  it('refuses unsupported content before sending anything', async () => {
    const options = streamOptions({ messages: [user({ type: 'audio', data: 'AAAA', mediaType: 'audio/wav' })] })
    await expect(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks)).rejects.toMatchObject({ kind: 'unsupported' })
    expect(fake.requests).toHaveLength(0)
  })
})
