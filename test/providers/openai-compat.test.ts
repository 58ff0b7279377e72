import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openaiCompat } from '../../src/providers/openai-compat'
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

const MODEL = 'Qwen/Qwen3-32B'

function compat(extra: Partial<Parameters<typeof openaiCompat>[0]> = {}) {
  return openaiCompat({ baseURL: fake.url, defaultModel: MODEL, ...extra })
}

const screenshotTurn = [
  user(text('shoot')),
  assistant({ type: 'tool_call', id: 'call_1', name: 'screenshot', input: {} }),
  user({ type: 'tool_result', callId: 'call_1', output: [{ type: 'text', text: 'done' }, { type: 'image', data: PNG, mediaType: 'image/png' }] }),
]

describe('openaiCompat()', () => {
  it('describes itself from its params', () => {
    const provider = compat({ name: 'vllm', contextWindow: 32_768 })
    expect(provider.name).toBe('vllm')
    expect(provider.meta).toEqual({ defaultModel: MODEL, contextWindow: 32_768 })
    expect(provider.capabilities).toEqual({ images: true, documents: false, toolResultMedia: true, thinking: true, promptCache: false })
    expect(compat().name).toBe('openai-compat')
    expect(compat({ cacheBreakpoints: true, pdfFiles: true, images: false }).capabilities).toMatchObject({ promptCache: true, documents: true, images: false, toolResultMedia: false })
  })

  it('sends no Authorization header without a key, and never borrows OpenAI\'s key, organization, project or admin key', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai-secret')
    vi.stubEnv('OPENAI_ADMIN_KEY', 'sk-admin-secret')
    vi.stubEnv('OPENAI_ORG_ID', 'org-secret')
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-secret')
    await compat().stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks)
    await compat({ apiKey: 'local-key' }).stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks)

    const [keyless, keyed] = fake.requests.map(request => request.headers)
    expect(keyless).not.toHaveProperty('authorization')
    expect(keyed.authorization).toBe('Bearer local-key')
    for (const headers of [keyless, keyed]) {
      expect(JSON.stringify(headers)).not.toMatch(/secret/)
      expect(headers).not.toHaveProperty('openai-organization')
      expect(headers).not.toHaveProperty('openai-project')
    }
  })

  it('stamps its name on usage and on errors', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi' } }, { type: 'error', status: 503 })
    const provider = compat({ name: 'ollama' })
    expect((await provider.stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks)).usage).toMatchObject({ provider: 'ollama', modelId: MODEL })
    expect(await rejectionOf(provider.stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks))).toMatchObject({ provider: 'ollama', kind: 'server' })
  })
})

describe('the request', () => {
  it('uses max_tokens and reasoning_effort, and passes open-weight sampling options', async () => {
    await compat().stream(chatOptions({ model: MODEL, maxTokens: 512, thinking: 'medium', modelOptions: { top_k: 20, chat_template_kwargs: { enable_thinking: true }, fast: true } }), recordCallbacks().callbacks)
    const { body } = fake.requests[0]
    expect(body).toMatchObject({ model: MODEL, max_tokens: 512, reasoning_effort: 'medium', top_k: 20, chat_template_kwargs: { enable_thinking: true } })
    expect(body).not.toHaveProperty('max_completion_tokens')
    expect(body).not.toHaveProperty('fast')
  })

  it('sends a thinking budget where the server reads one', async () => {
    await compat({ thinkingBudgetField: 'reasoning.max_tokens' }).stream(chatOptions({ model: MODEL, thinking: 'high', thinkingBudget: 2000, maxTokens: 1000 }), recordCallbacks().callbacks)
    expect(fake.requests[0].body).toMatchObject({ reasoning: { max_tokens: 2000 }, max_tokens: 3000 })
    expect(fake.requests[0].body).not.toHaveProperty('reasoning_effort')
  })

  it('moves tool-result images to a companion user message by default, and keeps them inline on request', async () => {
    await compat().stream(chatOptions({ model: MODEL, messages: screenshotTurn }), recordCallbacks().callbacks)
    await compat({ toolResultImages: 'inline' }).stream(chatOptions({ model: MODEL, messages: screenshotTurn }), recordCallbacks().callbacks)
    const [companion, inline] = fake.requests.map(request => request.body.messages.slice(3))
    expect(companion.map((message: any) => message.role)).toEqual(['tool', 'user'])
    expect(companion[0].content).toContain('[1 attachment follows in the next user message]')
    expect(companion[1].content[1].type).toBe('image_url')
    expect(inline).toHaveLength(1)
    expect(inline[0].content[1].type).toBe('image_url')
  })

  it('marks cache breakpoints only when asked, with the run\'s TTL', async () => {
    await compat().stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks)
    await compat({ cacheBreakpoints: true }).stream(chatOptions({ model: MODEL, cacheTtl: '1h' }), recordCallbacks().callbacks)
    expect(JSON.stringify(fake.requests[0].body)).not.toContain('cache_control')
    expect(fake.requests[1].body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
  })

  it('refuses PDFs before sending unless the server takes file parts', async () => {
    const pdf = chatOptions({ model: MODEL, messages: [user({ type: 'document', data: 'JVBERi0=', encoding: 'base64', mediaType: 'application/pdf' })] })
    expect(await rejectionOf(compat().stream(pdf, recordCallbacks().callbacks))).toMatchObject({ kind: 'unsupported', provider: 'openai-compat' })
    expect(fake.requests).toHaveLength(0)
    await compat({ pdfFiles: true }).stream(pdf, recordCallbacks().callbacks)
    expect(fake.requests[0].body.messages[1].content[0].type).toBe('file')
  })
})

describe('reasoning across turns', () => {
  it('replays the model\'s own reasoning in the configured field, and only then', async () => {
    fake.enqueue(
      { type: 'turn', turn: { reasoning: ['I should ', 'call it.'], toolCalls: [{ id: 'call_1', name: 'lookup', input: {} }] } },
      { type: 'turn', turn: { reasoning: 'Again.', toolCalls: [{ id: 'call_2', name: 'lookup', input: {} }] } },
    )
    const replaying = compat({ replayReasoning: 'reasoning_content' })
    const first = await replaying.stream(chatOptions({ model: MODEL }), recordCallbacks().callbacks)
    const history = [user(text('go')), assistant(...first.content), user({ type: 'tool_result', callId: 'call_1', output: 'x' })]
    await replaying.stream(chatOptions({ model: MODEL, messages: history }), recordCallbacks().callbacks)
    await compat().stream(chatOptions({ model: MODEL, messages: history }), recordCallbacks().callbacks)

    expect(fake.requests[1].body.messages[2]).toMatchObject({ role: 'assistant', reasoning_content: 'I should call it.' })
    expect(fake.requests[2].body.messages[2]).not.toHaveProperty('reasoning_content')
  })
})
