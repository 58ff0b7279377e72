import type { CatalogRow, CatalogSource, ModelRegistry } from '../../scripts/generate-model-catalog'
import type { ModelInfo } from '../../src/providers/catalog'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildCatalogRows, CATALOG_PROVIDERS, renderCatalogModule } from '../../scripts/generate-model-catalog'
import { GENERATED_MODEL_SOURCE, GENERATED_MODELS } from '../../src/providers/catalog/models.generated'

const registry: ModelRegistry = {
  'openai': {
    'o9': { reasoning: true, input: ['text', 'image'], cost: { input: 1, output: 4, cacheRead: 0.1, cacheWrite: 0 }, contextWindow: 200_000, maxTokens: 100_000 },
    'gpt-x': { reasoning: false, input: ['text'], cost: { input: 2, output: 8, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128_000, maxTokens: 16_384 },
  },
  'anthropic': {
    'claude-z': { reasoning: true, input: ['text', 'image'], cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, contextWindow: 200_000, maxTokens: 64_000 },
  },
  'openrouter': {
    'vendor/paid': { reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32_000, maxTokens: 4096 },
    'vendor/cheap:free': { reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32_000, maxTokens: 4096 },
    'vendor/broken': { reasoning: false, cost: { input: -1, output: Number.NaN }, contextWindow: Number.NaN, maxTokens: 0 },
  },
  'amazon-bedrock': {
    nova: { reasoning: false, input: ['text'], cost: { input: 1, output: 1 }, contextWindow: 1000, maxTokens: 100 },
  },
}

const source: CatalogSource = { package: 'pkg', version: '1.2.3', publishedAt: '2026-01-02', providers: ['anthropic', 'openai'] }

describe('buildCatalogRows', () => {
  it('keeps only the chosen providers, sorted by key', () => {
    const rows = buildCatalogRows(registry, ['openai', 'anthropic'])
    expect(rows.map(r => r.key)).toEqual(['anthropic:claude-z', 'openai:gpt-x', 'openai:o9'])
  })

  it('maps registry fields to ModelInfo and omits zero cache rates', () => {
    const rows = new Map(buildCatalogRows(registry, ['openai']).map(r => [r.key, r.info]))
    expect(rows.get('openai:o9')).toEqual({
      contextWindow: 200_000,
      maxTokens: 100_000,
      pricing: { input: 1, output: 4, cacheRead: 0.1 },
      reasoning: true,
      images: true,
    })
    expect(rows.get('openai:gpt-x')).toEqual({ contextWindow: 128_000, maxTokens: 16_384, pricing: { input: 2, output: 8 }, reasoning: false, images: false })
  })

  it('drops 0/0 placeholder prices except on :free ids, and drops malformed numbers', () => {
    const rows = new Map(buildCatalogRows(registry, ['openrouter']).map(r => [r.key, r.info]))
    expect(rows.get('openrouter:vendor/paid')?.pricing).toBeUndefined()
    expect(rows.get('openrouter:vendor/cheap:free')?.pricing).toEqual({ input: 0, output: 0 })
    expect(rows.get('openrouter:vendor/broken')).toEqual({ reasoning: false })
  })

  it('throws when the registry lacks a chosen provider', () => {
    expect(() => buildCatalogRows(registry, ['openai', 'cerebras'])).toThrow(/cerebras/)
    expect(() => buildCatalogRows(registry, ['constructor'])).toThrow(/constructor/)
  })

  it('chooses the shipped providers and the hosts the chat family routes to', () => {
    expect([...CATALOG_PROVIDERS]).toEqual(expect.arrayContaining(['anthropic', 'openai', 'openrouter', 'cerebras']))
    expect([...CATALOG_PROVIDERS]).toEqual([...CATALOG_PROVIDERS].sort())
  })
})

describe('renderCatalogModule', () => {
  const rows = buildCatalogRows(registry, ['openai', 'anthropic'])

  it('is deterministic and independent of row order', () => {
    const text = renderCatalogModule(rows, source)
    expect(renderCatalogModule([...rows].reverse(), source)).toBe(text)
    expect(text.indexOf('anthropic:claude-z')).toBeLessThan(text.indexOf('openai:gpt-x'))
  })

  it('names its source in the header', () => {
    expect(renderCatalogModule(rows, source).split('\n', 3).join('\n')).toMatch(/pkg@1\.2\.3[\s\S]*published 2026-01-02/)
  })

  it('produces a module that evaluates back to the same data', async () => {
    const odd: CatalogRow = { key: 'x:it\'s\\odd"', info: { pricing: { input: 0.000001, output: 1e21, cacheWrite1h: 2 } } }
    const text = renderCatalogModule([...rows, odd], source)
    const mod = await import(`data:text/javascript;base64,${Buffer.from(text).toString('base64')}`) as {
      GENERATED_MODELS: Record<string, ModelInfo>
      GENERATED_MODEL_SOURCE: CatalogSource
    }
    expect(mod.GENERATED_MODEL_SOURCE).toEqual(source)
    expect(mod.GENERATED_MODELS).toEqual(Object.fromEntries([...rows, odd].map(r => [r.key, r.info])))
  })

  it('rejects duplicate keys', () => {
    expect(() => renderCatalogModule([rows[0], rows[0]], source)).toThrow(/duplicate/)
  })
})

describe('committed models.generated.ts', () => {
  it('is byte-for-byte what the generator renders for its own data', () => {
    const committed = readFileSync(new URL('../../src/providers/catalog/models.generated.ts', import.meta.url), 'utf8')
    const table: Readonly<Record<string, ModelInfo>> = GENERATED_MODELS
    const committedRows = Object.entries(table).map(([key, info]) => ({ key, info }))
    expect(renderCatalogModule(committedRows, GENERATED_MODEL_SOURCE)).toBe(committed)
  })

  it('stays small enough to ship', () => {
    const bytes = readFileSync(new URL('../../src/providers/catalog/models.generated.ts', import.meta.url)).byteLength
    expect(bytes).toBeLessThan(300_000)
  })
})
