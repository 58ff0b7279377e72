import type { ModelCatalogSource, ModelInfo } from '../../src/providers/catalog'
import { afterEach, describe, expect, it } from 'vitest'
import { BUNDLED_MODEL_CATALOG, getModelCatalog, modelIdCandidates, resolveModelInfo, setModelCatalog } from '../../src/providers/catalog'

afterEach(() => setModelCatalog(undefined))

const SONNET_45 = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }

describe('bundled catalog', () => {
  const entries = BUNDLED_MODEL_CATALOG.list!()

  it('holds a few hundred models from exactly the chosen providers', () => {
    expect(entries.length).toBeGreaterThan(300)
    const providers = new Set(entries.map(e => e.provider))
    expect([...providers].sort()).toEqual([...BUNDLED_MODEL_CATALOG.source.providers].sort())
    expect(BUNDLED_MODEL_CATALOG.source).toMatchObject({ package: '@mariozechner/pi-ai', version: '0.73.1' })
  })

  it.each([
    ['anthropic', 'claude-sonnet-4-5'],
    ['openai', 'gpt-5'],
    ['openrouter', 'anthropic/claude-sonnet-4.5'],
    ['cerebras', 'gpt-oss-120b'],
    ['groq', 'llama-3.3-70b-versatile'],
    ['deepseek', 'deepseek-v4-flash'],
    ['xai', 'grok-4'],
    ['mistral', 'mistral-large-latest'],
    ['google', 'gemini-2.5-pro'],
    ['fireworks', 'accounts/fireworks/models/kimi-k2p5'],
  ])('has %s:%s with a positive price, window and output ceiling', (provider, modelId) => {
    const info = BUNDLED_MODEL_CATALOG.get(provider, modelId)
    expect(info?.contextWindow).toBeGreaterThan(1000)
    expect(info?.maxTokens).toBeGreaterThan(100)
    expect(info?.pricing?.input).toBeGreaterThan(0)
    expect(info?.pricing?.output).toBeGreaterThan(0)
    expect(typeof info?.reasoning).toBe('boolean')
  })

  it('carries only well-formed values', () => {
    for (const { info } of entries) {
      for (const limit of [info.contextWindow, info.maxTokens]) {
        if (limit !== undefined)
          expect(Number.isSafeInteger(limit) && limit > 0).toBe(true)
      }
      for (const rate of Object.values(info.pricing ?? {}))
        expect(Number.isFinite(rate) && rate >= 0).toBe(true)
    }
  })

  it('treats registry 0/0 placeholders as unknown but keeps explicit :free models at $0', () => {
    expect(BUNDLED_MODEL_CATALOG.get('groq', 'groq/compound')).toBeDefined()
    expect(BUNDLED_MODEL_CATALOG.get('groq', 'groq/compound')?.pricing).toBeUndefined()
    expect(BUNDLED_MODEL_CATALOG.get('openrouter', 'openai/gpt-oss-120b:free')?.pricing).toEqual({ input: 0, output: 0 })
  })

  it('hands out frozen entries, so one caller cannot change another one\'s data', () => {
    const info = BUNDLED_MODEL_CATALOG.get('openai', 'gpt-5') as ModelInfo
    expect(() => {
      info.maxTokens = 1
    }).toThrow(TypeError)
    expect(() => {
      info.pricing!.input = 0
    }).toThrow(TypeError)
  })
})

describe('resolveModelInfo', () => {
  it('answers from the bundled data when nothing overrides it', () => {
    expect(resolveModelInfo('anthropic', 'claude-sonnet-4-5')).toEqual({
      contextWindow: 200_000,
      maxTokens: 64_000,
      pricing: SONNET_45,
      reasoning: true,
      images: true,
    })
  })

  it('lets each layer win over the next: run, agent, process-wide, bundled', () => {
    const run = { 'openai:gpt-5': { contextWindow: 3 } }
    const agent = { 'openai:gpt-5': { contextWindow: 2 } }
    setModelCatalog({ 'openai:gpt-5': { contextWindow: 1 } })
    expect(resolveModelInfo('openai', 'gpt-5', { run, agent }).contextWindow).toBe(3)
    expect(resolveModelInfo('openai', 'gpt-5', { agent }).contextWindow).toBe(2)
    expect(resolveModelInfo('openai', 'gpt-5').contextWindow).toBe(1)
    setModelCatalog(undefined)
    expect(resolveModelInfo('openai', 'gpt-5').contextWindow).toBe(400_000)
  })

  it('merges field by field: an override of one field keeps the others bundled', () => {
    const info = resolveModelInfo('anthropic', 'claude-sonnet-4-5', { agent: { 'anthropic:claude-sonnet-4-5': { maxTokens: 1234 } } })
    expect(info).toEqual({ contextWindow: 200_000, maxTokens: 1234, pricing: SONNET_45, reasoning: true, images: true })
  })

  it('merges across override layers too', () => {
    const info = resolveModelInfo('openai', 'gpt-5', {
      run: { 'openai:gpt-5': { maxTokens: 10 } },
      agent: { 'openai:gpt-5': { maxTokens: 20, reasoning: false } },
    })
    expect(info.maxTokens).toBe(10)
    expect(info.reasoning).toBe(false)
    expect(info.pricing?.input).toBe(1.25)
  })

  it('replaces pricing as a unit, so host rates never mix with bundled cache rates', () => {
    const info = resolveModelInfo('anthropic', 'claude-sonnet-4-5', { run: { 'anthropic:claude-sonnet-4-5': { pricing: { input: 1, output: 2 } } } })
    expect(info.pricing).toEqual({ input: 1, output: 2 })
  })

  it('keeps providers apart: an anthropic override leaves the openrouter entry alone', () => {
    const agent = { 'anthropic:claude-sonnet-4-5': { pricing: { input: 99, output: 99 } } }
    expect(resolveModelInfo('anthropic', 'claude-sonnet-4-5', { agent }).pricing?.input).toBe(99)
    expect(resolveModelInfo('openrouter', 'anthropic/claude-sonnet-4.5', { agent }).pricing?.input).toBe(3)
    expect(resolveModelInfo('openrouter', 'claude-sonnet-4-5', { agent })).toEqual({})
  })

  it('misses for a provider name the data does not use until the host adds an entry', () => {
    expect(resolveModelInfo('my-gateway', 'gpt-5')).toEqual({})
    setModelCatalog({ 'my-gateway:gpt-5': { contextWindow: 5 } })
    expect(resolveModelInfo('my-gateway', 'gpt-5')).toEqual({ contextWindow: 5 })
  })

  it('accepts a source object and asks it for the exact id, then the undated one', () => {
    const asked: string[] = []
    const source: ModelCatalogSource = {
      get(provider, modelId) {
        asked.push(`${provider}:${modelId}`)
        return modelId === 'gpt-4o' ? { maxTokens: 77 } : undefined
      },
    }
    const info = resolveModelInfo('openai', 'gpt-4o-2099-01-01', { run: source })
    expect(asked).toEqual(['openai:gpt-4o-2099-01-01', 'openai:gpt-4o'])
    expect(info.maxTokens).toBe(77)
    expect(info.pricing?.input).toBeGreaterThan(0)
  })

  it('reports and resets the process-wide catalog', () => {
    const table = { 'openai:gpt-5': { maxTokens: 1 } }
    setModelCatalog(table)
    expect(getModelCatalog()).toBe(table)
    expect(resolveModelInfo('openai', 'gpt-5').maxTokens).toBe(1)
    setModelCatalog(undefined)
    expect(getModelCatalog()).toBeUndefined()
    expect(resolveModelInfo('openai', 'gpt-5').maxTokens).toBe(128_000)
  })

  it('falls back to the Anthropic provider table for models the registry predates', () => {
    expect(BUNDLED_MODEL_CATALOG.get('anthropic', 'claude-opus-4-8')).toBeUndefined()
    const info = resolveModelInfo('anthropic', 'claude-opus-4-8-20260101')
    expect(info.contextWindow).toBe(1_000_000)
    expect(info.pricing).toEqual({ input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10 })
  })

  it('prefers bundled data over the fallback table', () => {
    // Both know claude-opus-4-5; only the fallback has a 1h write rate, and pricing merges as a unit.
    expect(resolveModelInfo('anthropic', 'claude-opus-4-5').pricing).toEqual({ input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 })
  })

  it('does not hand out the caller-visible pricing object of a layer', () => {
    const pricing = { input: 1, output: 2 }
    const info = resolveModelInfo('x', 'm', { run: { 'x:m': { pricing } } })
    info.pricing!.input = 50
    expect(pricing.input).toBe(1)
  })

  it('ignores inherited object keys in tables', () => {
    expect(resolveModelInfo('x', 'y', { run: Object.create({ 'x:y': { maxTokens: 1 } }) })).toEqual({})
  })
})

describe('model id matching', () => {
  it('resolves a dated id through its undated entry, in every layer', () => {
    expect(resolveModelInfo('anthropic', 'claude-sonnet-4-5-20991231').pricing).toEqual(SONNET_45)
    expect(resolveModelInfo('openai', 'gpt-4o-2099-01-01').contextWindow).toBe(resolveModelInfo('openai', 'gpt-4o').contextWindow)
    const run = { 'anthropic:claude-sonnet-4-5': { maxTokens: 7 } }
    expect(resolveModelInfo('anthropic', 'claude-sonnet-4-5-20250929', { run }).maxTokens).toBe(7)
  })

  it('resolves an undated id the registry lists only by snapshot to the newest snapshot', () => {
    expect(BUNDLED_MODEL_CATALOG.get('anthropic', 'claude-3-5-sonnet')).toBe(BUNDLED_MODEL_CATALOG.get('anthropic', 'claude-3-5-sonnet-20241022'))
    expect(resolveModelInfo('anthropic', 'claude-3-7-sonnet').maxTokens).toBe(64_000)
  })

  it('never borrows a shorter family name', () => {
    expect(resolveModelInfo('anthropic', 'claude-sonnet-4-5-extra')).toEqual({})
    expect(resolveModelInfo('openai', 'gpt-5-turbo-9000')).toEqual({})
    expect(modelIdCandidates('claude-sonnet-4-5-2507')).toEqual(['claude-sonnet-4-5-2507'])
  })

  it('drops an OpenRouter routing variant but never :free', () => {
    expect(resolveModelInfo('openrouter', 'anthropic/claude-sonnet-4.5:nitro').pricing).toEqual(SONNET_45)
    expect(resolveModelInfo('openrouter', 'anthropic/claude-sonnet-4.5:free').pricing).toBeUndefined()
    expect(modelIdCandidates('vendor/model-20250101:floor')).toEqual(['vendor/model-20250101:floor', 'vendor/model-20250101', 'vendor/model'])
  })

  it('leaves ids whose colon is part of the name alone', () => {
    expect(modelIdCandidates('amazon.nova-lite-v1:0')).toEqual(['amazon.nova-lite-v1:0'])
  })
})
