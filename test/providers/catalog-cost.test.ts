import type { TurnUsage } from '../../src/core/stats'
import { afterEach, describe, expect, it } from 'vitest'
import { fillEstimatedCost, setModelCatalog } from '../../src/providers/catalog'

afterEach(() => setModelCatalog(undefined))

const ACME = { 'acme:m1': { pricing: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2.5, cacheWrite1h: 4 } } }

describe('fillEstimatedCost', () => {
  it('prices input, output, cache reads and cache writes at their own rates', () => {
    const usage: TurnUsage = { input: 1000, output: 500, cacheRead: 4000, cacheCreation: 2000, modelId: 'm1' }
    // 1000×2 + 500×8 + 4000×0.5 + 2000×2.5 = 13 000 micro-dollars.
    expect(fillEstimatedCost(usage, 'acme', { agent: ACME }).cost).toBeCloseTo(0.013, 12)
  })

  it('bills cache writes at the 1h rate under a one-hour TTL', () => {
    const usage: TurnUsage = { input: 0, output: 0, cacheCreation: 1_000_000, modelId: 'm1' }
    expect(fillEstimatedCost(usage, 'acme', { agent: ACME }).cost).toBeCloseTo(2.5, 12)
    expect(fillEstimatedCost(usage, 'acme', { agent: ACME, cacheTtl: '1h' }).cost).toBeCloseTo(4, 12)
  })

  it('prices a bundled model', () => {
    const usage: TurnUsage = { input: 1000, output: 1000, cacheRead: 10_000, cacheCreation: 1000, modelId: 'claude-sonnet-4-5-20250929' }
    // $3 in, $15 out, $0.30 read, $3.75 write.
    expect(fillEstimatedCost(usage, 'anthropic').cost).toBeCloseTo((3000 + 15_000 + 3000 + 3750) / 1e6, 12)
  })

  it('bills cache tokens without a published rate at the input rate', () => {
    const usage: TurnUsage = { input: 0, output: 0, cacheRead: 1_000_000, cacheCreation: 1_000_000, modelId: 'gpt-oss-120b' }
    expect(fillEstimatedCost(usage, 'cerebras').cost).toBeCloseTo(0.5, 12)
  })

  it('uses the per-run catalog, so an override changes the estimate', () => {
    const usage: TurnUsage = { input: 1_000_000, output: 0, modelId: 'gpt-5' }
    expect(fillEstimatedCost(usage, 'openai').cost).toBeCloseTo(1.25, 12)
    expect(fillEstimatedCost(usage, 'openai', { run: { 'openai:gpt-5': { pricing: { input: 1, output: 1 } } } }).cost).toBeCloseTo(1, 12)
    setModelCatalog({ 'openai:gpt-5': { pricing: { input: 7, output: 7 } } })
    expect(fillEstimatedCost(usage, 'openai').cost).toBeCloseTo(7, 12)
  })

  it('stamps the provider and leaves a provider-reported cost untouched', () => {
    const reported = fillEstimatedCost({ input: 1_000_000, output: 0, modelId: 'gpt-5', cost: 0.5 }, 'openai')
    expect(reported).toMatchObject({ cost: 0.5, provider: 'openai' })
    expect(fillEstimatedCost({ input: 1_000_000, output: 0, modelId: 'gpt-5', cost: 0 }, 'openai').cost).toBe(0)
  })

  it('keeps a provider the usage already names, and prices by it', () => {
    const usage: TurnUsage = { input: 1_000_000, output: 0, modelId: 'claude-sonnet-4-5', provider: 'anthropic' }
    expect(fillEstimatedCost(usage, 'proxy')).toMatchObject({ provider: 'anthropic', cost: 3 })
  })

  it('leaves cost absent for an unknown model or a model without a price', () => {
    const unknown = fillEstimatedCost({ input: 10, output: 10, modelId: 'no-such-model' }, 'openai')
    expect('cost' in unknown).toBe(false)
    expect(unknown.provider).toBe('openai')
    expect('cost' in fillEstimatedCost({ input: 10, output: 10, modelId: 'groq/compound' }, 'groq')).toBe(false)
    expect('cost' in fillEstimatedCost({ input: 10, output: 10 }, 'openai')).toBe(false)
  })

  it('reports $0 for an explicitly free model', () => {
    expect(fillEstimatedCost({ input: 1000, output: 1000, modelId: 'openai/gpt-oss-120b:free' }, 'openrouter').cost).toBe(0)
  })

  it('falls back to the requested model when the echoed id is missing or unknown', () => {
    const usage: TurnUsage = { input: 1_000_000, output: 0 }
    expect(fillEstimatedCost(usage, 'openai', { requestedModel: 'gpt-5' }).cost).toBeCloseTo(1.25, 12)
    expect(fillEstimatedCost({ ...usage, modelId: 'gpt-5-internal-x' }, 'openai', { requestedModel: 'gpt-5' }).cost).toBeCloseTo(1.25, 12)
    expect(fillEstimatedCost({ ...usage, modelId: 'gpt-4.1' }, 'openai', { requestedModel: 'gpt-5' }).cost).toBeCloseTo(2, 12)
  })

  it('returns a new object and leaves the input alone', () => {
    const usage: TurnUsage = Object.freeze({ input: 1_000_000, output: 0, modelId: 'gpt-5' })
    const filled = fillEstimatedCost(usage, 'openai')
    expect(filled).not.toBe(usage)
    expect(usage).toEqual({ input: 1_000_000, output: 0, modelId: 'gpt-5' })
    expect(filled).toEqual({ input: 1_000_000, output: 0, modelId: 'gpt-5', provider: 'openai', cost: 1.25 })
  })

  it('drops a non-finite estimate instead of reporting NaN', () => {
    const usage: TurnUsage = { input: 1, output: 1, modelId: 'm' }
    expect('cost' in fillEstimatedCost(usage, 'x', { run: { 'x:m': { pricing: { input: Number.NaN, output: 1 } } } })).toBe(false)
  })
})
