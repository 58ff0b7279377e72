import type OpenAI from 'openai'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openai, OPENAI_CHAT_DIALECT } from '../../src/providers/openai'
import { buildChatRequest } from '../../src/providers/openai-chat'
import { streamResponses } from '../../src/providers/openai/responses'
import { startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, READ_TOOL, recordCallbacks, rejectionOf, text, user } from './openai-chat-fixtures'

// The Responses API has its own implementation and tests; here only the hand-off is checked.
vi.mock('../../src/providers/openai/responses', () => ({
  streamResponses: vi.fn(async () => ({ content: [{ type: 'text', text: 'from responses' }], toolCalls: [], finishReason: 'stop', usage: { input: 1, output: 1 } })),
}))

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
})

afterEach(async () => {
  vi.unstubAllEnvs()
  vi.mocked(streamResponses).mockClear()
  await fake.close()
})

describe('openai()', () => {
  it('describes itself: name, default model, capabilities', () => {
    const provider = openai()
    expect(provider.name).toBe('openai')
    expect(provider.meta).toEqual({ defaultModel: 'gpt-5.2' })
    expect(provider.capabilities).toEqual({ images: true, documents: true, toolResultMedia: true, thinking: true, promptCache: false })
    expect(openai({ defaultModel: 'o3' }).meta.defaultModel).toBe('o3')
  })

  it('can be created without any key', () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    expect(() => openai()).not.toThrow()
  })

  it('reads the key and the base URL from the environment at the first request', async () => {
    const provider = openai()
    vi.stubEnv('OPENAI_API_KEY', 'env-key')
    vi.stubEnv('OPENAI_BASE_URL', fake.url)
    await provider.stream(chatOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers.authorization).toBe('Bearer env-key')
  })

  it('sends the organization and extra headers; the environment\'s organization when none is given', async () => {
    await openai({ baseURL: fake.url, apiKey: 'k', organization: 'org-1', headers: { 'x-team': 'core' } }).stream(chatOptions(), recordCallbacks().callbacks)
    vi.stubEnv('OPENAI_ORG_ID', 'org-env')
    await openai({ baseURL: fake.url, apiKey: 'k' }).stream(chatOptions(), recordCallbacks().callbacks)
    expect(fake.requests[0].headers).toMatchObject({ 'openai-organization': 'org-1', 'x-team': 'core' })
    expect(fake.requests[1].headers['openai-organization']).toBe('org-env')
  })
})

describe('the request on the wire', () => {
  it('posts the built body to /v1/chat/completions, authorized with the key, with SDK retries off', async () => {
    const options = chatOptions({
      thinking: 'medium',
      maxTokens: 2048,
      tools: [READ_TOOL],
      messages: [user(text('Read it'))],
    })
    await openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks)

    const [request] = fake.requests
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/v1/chat/completions')
    expect(request.headers.authorization).toBe('Bearer test-key')
    expect(request.headers['x-stainless-retry-count']).toBe('0')
    expect(request.body).toEqual(buildChatRequest(options, OPENAI_CHAT_DIALECT))
    expect(request.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, reasoning_effort: 'medium', max_completion_tokens: 2048 })
  })

  it('refuses unsupported content before sending anything', async () => {
    const options = chatOptions({ messages: [user({ type: 'audio', data: 'AAAA', mediaType: 'audio/wav' })] })
    await expect(openai({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks)).rejects.toMatchObject({ kind: 'unsupported', provider: 'openai' })
    expect(fake.requests).toHaveLength(0)
  })
})

describe('api: \'responses\'', () => {
  it('hands the turn to the Responses implementation with the same lazily built client', async () => {
    const provider = openai({ baseURL: fake.url, apiKey: 'test-key', api: 'responses' })
    const options = chatOptions()
    const callbacks = recordCallbacks().callbacks
    const result = await provider.stream(options, callbacks)

    expect(result.content).toEqual([{ type: 'text', text: 'from responses' }])
    const mocked = vi.mocked(streamResponses)
    expect(mocked).toHaveBeenCalledTimes(1)
    const [client, passedOptions, passedCallbacks, settings] = mocked.mock.calls[0]
    expect((client as OpenAI).baseURL).toBe(fake.url)
    expect(passedOptions).toBe(options)
    expect(passedCallbacks).toBe(callbacks)
    expect(settings).toEqual({ providerName: 'openai' })
    expect(fake.requests).toHaveLength(0)

    await provider.stream(options, callbacks)
    expect(mocked.mock.calls[1][0]).toBe(client)
  })

  it('fails with an auth error, without reaching the Responses code, when there is no key', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    const error = await rejectionOf(openai({ baseURL: fake.url, api: 'responses' }).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'auth', provider: 'openai' })
    expect(streamResponses).not.toHaveBeenCalled()
  })
})
