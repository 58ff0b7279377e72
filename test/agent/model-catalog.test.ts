import type { Provider } from '../../src/providers/types'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { setModelCatalog } from '../../src/providers'
import { anthropic } from '../../src/providers/anthropic'
import { resolveModelTargets } from '../../src/providers/model-targets'
import { openai } from '../../src/providers/openai'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'

// `behavior.modelCatalog` overrides model metadata, and the request shows it:
// the output ceiling is sent when the run sets no `maxTokens`, and reasoning
// support decides whether reasoning fields are sent. Run over agent over
// `setModelCatalog()` over the provider's own defaults.

let claude: FakeAnthropic
let gpt: FakeOpenAI
beforeEach(async () => {
  claude = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
  gpt = await startFakeOpenAI({ fallback: request => request.path.includes('/responses')
    ? { type: 'sse', events: responsesEvents({ text: 'ok', model: String(request.body.model) }) as never }
    : { type: 'turn', turn: { text: 'ok' } } })
})
afterEach(async () => {
  setModelCatalog(undefined)
  await Promise.all([claude.close(), gpt.close()])
})

interface Wire {
  name: string
  provider: () => Provider
  key: string
  /** The output cap the last request carried. */
  sentCap: () => unknown
}

const WIRES: Wire[] = [
  {
    name: 'anthropic',
    provider: () => anthropic({ apiKey: 'k', baseURL: claude.url, defaultModel: 'claude-sonnet-4-6' }),
    key: 'anthropic:claude-sonnet-4-6',
    sentCap: () => claude.requests.at(-1)!.body.max_tokens,
  },
  {
    name: 'openai chat completions',
    provider: () => openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'gpt-5.2', api: 'chat' }),
    key: 'openai:gpt-5.2',
    sentCap: () => gpt.requests.at(-1)!.body.max_completion_tokens,
  },
  {
    name: 'openai responses',
    provider: () => openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'gpt-5.2', api: 'responses' }),
    key: 'openai:gpt-5.2',
    sentCap: () => gpt.requests.at(-1)!.body.max_output_tokens,
  },
]

describe.each(WIRES)('the output ceiling on $name', ({ provider, key, sentCap }) => {
  it('comes from the run\'s catalog, then the agent\'s, then setModelCatalog(); a run\'s maxTokens wins', async () => {
    const agent = createAgent({ provider: provider(), behavior: { modelCatalog: { [key]: { maxTokens: 777 } } } })
    await agent.run({ prompt: 'a' })
    expect(sentCap()).toBe(777)
    await agent.run({ prompt: 'b', behavior: { modelCatalog: { [key]: { maxTokens: 555 } } } })
    expect(sentCap()).toBe(555)
    await agent.run({ prompt: 'c', behavior: { maxTokens: 1000, modelCatalog: { [key]: { maxTokens: 555 } } } })
    expect(sentCap()).toBe(1000)

    setModelCatalog({ [key]: { maxTokens: 333 } })
    await createAgent({ provider: provider() }).run({ prompt: 'd' })
    expect(sentCap()).toBe(333)
    await agent.run({ prompt: 'e' })
    expect(sentCap()).toBe(777)
  })

  it('follows a source object', async () => {
    const calls: string[] = []
    const agent = createAgent({
      provider: provider(),
      behavior: {
        modelCatalog: {
          get: (p, model) => {
            calls.push(`${p}:${model}`)
            return `${p}:${model}` === key ? { maxTokens: 4321 } : undefined
          },
        },
      },
    })
    await agent.run({ prompt: 'a' })
    expect(sentCap()).toBe(4321)
    expect(calls).toContain(key)
  })
})

describe('after a fallback', () => {
  it('the next target\'s own entry applies', async () => {
    claude.enqueue({ type: 'error', status: 400 })
    const agent = createAgent({
      provider: [WIRES[0].provider(), WIRES[1].provider()],
      behavior: { modelCatalog: { 'anthropic:claude-sonnet-4-6': { maxTokens: 111 }, 'openai:gpt-5.2': { maxTokens: 222 } } },
    })
    const stats = await agent.run({ prompt: 'a' })
    expect(stats.text).toBe('ok')
    expect(claude.requests.at(-1)!.body.max_tokens).toBe(111)
    expect(gpt.requests.at(-1)!.body.max_completion_tokens).toBe(222)
  })
})

describe('without a host catalog', () => {
  it('requests carry what the providers chose before', async () => {
    await createAgent({ provider: WIRES[0].provider() }).run({ prompt: 'a' })
    expect(claude.requests.at(-1)!.body.max_tokens).toBe(64_000)
    await createAgent({ provider: WIRES[1].provider() }).run({ prompt: 'a' })
    expect(gpt.requests.at(-1)!.body).not.toHaveProperty('max_completion_tokens')
    await createAgent({ provider: WIRES[2].provider() }).run({ prompt: 'a' })
    expect(gpt.requests.at(-1)!.body).not.toHaveProperty('max_output_tokens')
  })
})

describe('reasoning support from the catalog', () => {
  it('anthropic: `reasoning: false` sends no thinking fields', async () => {
    const agent = createAgent({ provider: WIRES[0].provider() })
    await agent.run({ prompt: 'a', thinking: 'high' })
    expect(claude.requests.at(-1)!.body.thinking).toBeDefined()
    await agent.run({ prompt: 'b', thinking: 'high', behavior: { modelCatalog: { 'anthropic:claude-sonnet-4-6': { reasoning: false } } } })
    const body = claude.requests.at(-1)!.body
    expect(body).not.toHaveProperty('thinking')
    expect(body).not.toHaveProperty('output_config')
  })

  it('chat completions: a model the effort table does not know gets its effort when the catalog says it reasons', async () => {
    const agent = createAgent({ provider: openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'my-reasoner', api: 'chat' }) })
    await agent.run({ prompt: 'a', thinking: 'high' })
    expect(gpt.requests.at(-1)!.body).not.toHaveProperty('reasoning_effort')
    await agent.run({ prompt: 'b', thinking: 'high', behavior: { modelCatalog: { 'openai:my-reasoner': { reasoning: true } } } })
    expect(gpt.requests.at(-1)!.body.reasoning_effort).toBe('high')
    await agent.run({ prompt: 'c', thinking: 'high', model: 'gpt-5.2', behavior: { modelCatalog: { 'openai:gpt-5.2': { reasoning: false } } } })
    expect(gpt.requests.at(-1)!.body).not.toHaveProperty('reasoning_effort')
  })

  it('responses: the catalog decides both the effort and the encrypted-reasoning include', async () => {
    const agent = createAgent({ provider: openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'gpt-4.1', api: 'responses' }) })
    await agent.run({ prompt: 'a', thinking: 'high', behavior: { modelCatalog: { 'openai:gpt-4.1': { reasoning: true } } } })
    let body = gpt.requests.at(-1)!.body
    expect(body.reasoning).toEqual({ effort: 'high', summary: 'auto' })
    expect(body.include).toEqual(['reasoning.encrypted_content'])

    // A gateway alias for a model that does not reason: no include the API would refuse.
    await agent.run({ prompt: 'b', thinking: 'high', model: 'my-alias', behavior: { modelCatalog: { 'openai:my-alias': { reasoning: false } } } })
    body = gpt.requests.at(-1)!.body
    expect(body).not.toHaveProperty('reasoning')
    expect(body).not.toHaveProperty('include')
  })
})

describe('the context window of each target', () => {
  const provider = (name: string, defaultModel: string, contextWindow?: number): Provider => ({
    name,
    meta: { defaultModel, ...(contextWindow === undefined ? {} : { contextWindow }) },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    stream: () => Promise.reject(new Error('not called')),
  })

  it('is the list entry\'s, then the host catalog\'s, then the provider\'s, then the bundled data', () => {
    const claudeLike = provider('anthropic', 'claude-sonnet-4-5', 123)
    const windows = (model: Parameters<typeof resolveModelTargets>[1], catalogs = {}) => resolveModelTargets([claudeLike], model, catalogs).map(t => t.contextWindow)
    expect(windows(undefined)).toEqual([123])
    expect(windows(undefined, { agent: { 'anthropic:claude-sonnet-4-5': { contextWindow: 456 } } })).toEqual([456])
    expect(windows(undefined, { run: { 'anthropic:claude-sonnet-4-5': { contextWindow: 789 } }, agent: { 'anthropic:claude-sonnet-4-5': { contextWindow: 456 } } })).toEqual([789])
    expect(windows([{ model: 'claude-sonnet-4-5', contextWindow: 42 }], { run: { 'anthropic:claude-sonnet-4-5': { contextWindow: 789 } } })).toEqual([42])
    // Not the provider's default model: the bundled data knows it.
    expect(windows('claude-opus-4-6')).toEqual([1_000_000])
    // A model nobody knows runs under the provider's window.
    expect(windows('unknown-model')).toEqual([123])
    expect(resolveModelTargets([provider('anthropic', 'claude-sonnet-4-5')], 'unknown-model').map(t => t.contextWindow)).toEqual([undefined])
    setModelCatalog({ 'anthropic:unknown-model': { contextWindow: 5 } })
    expect(windows('unknown-model')).toEqual([5])
  })
})
