import { describe, expect, it } from 'vitest'
import { anthropicFinishReason, anthropicTurnCost, findAnthropicModel } from '../../src/providers/anthropic'

const none = { input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 }
const million = 1_000_000

describe('findAnthropicModel', () => {
  it('matches exact ids and dated snapshots of them', () => {
    expect(findAnthropicModel('claude-sonnet-4-5')?.maxOutput).toBe(64_000)
    expect(findAnthropicModel('claude-sonnet-4-5-20250929')).toBe(findAnthropicModel('claude-sonnet-4-5'))
  })

  it('never falls through to a shorter family name', () => {
    expect(findAnthropicModel('claude-fable-5-2')).toBeUndefined()
    expect(findAnthropicModel('claude-fable-5-extra')).toBeUndefined()
    expect(findAnthropicModel('claude-fable-5')).toBeDefined()
  })

  it('does not mistake inherited object keys for models', () => {
    expect(findAnthropicModel('constructor')).toBeUndefined()
    expect(findAnthropicModel('toString')).toBeUndefined()
  })
})

describe('anthropicTurnCost', () => {
  it('prices each token kind at its own rate', () => {
    // Opus 4.8: $5 in, $25 out, $0.50 read, $6.25 5m write, $10 1h write.
    expect(anthropicTurnCost('claude-opus-4-8', { input: million, output: million, cacheRead: million, cacheWrite5m: million, cacheWrite1h: million }))
      .toBeCloseTo(5 + 25 + 0.5 + 6.25 + 10, 10)
  })

  it('uses the lower published cache-read rates of newer models', () => {
    expect(anthropicTurnCost('claude-sonnet-5-5', { ...none, cacheRead: million })).toBeCloseTo(0.1, 10)
    expect(anthropicTurnCost('claude-opus-5-5', { ...none, cacheRead: million })).toBeCloseTo(0.2, 10)
    expect(anthropicTurnCost('claude-fable-5-1', { ...none, cacheRead: million })).toBeCloseTo(0.25, 10)
    expect(anthropicTurnCost('claude-fable-5', { ...none, cacheRead: million })).toBeCloseTo(1, 10)
  })

  it('switches Haiku 5.5 to its long-prompt band above 100k prompt tokens, for every token of the request', () => {
    const short = anthropicTurnCost('claude-haiku-5-5', { ...none, input: 60_000, cacheRead: 40_000, output: 1000 })
    const long = anthropicTurnCost('claude-haiku-5-5', { ...none, input: 60_001, cacheRead: 40_000, output: 1000 })
    expect(short).toBeCloseTo((60_000 * 0.1 + 40_000 * 0.01 + 1000 * 0.5) / million, 12)
    expect(long).toBeCloseTo((60_001 * 0.5 + 40_000 * 0.05 + 1000 * 2.5) / million, 12)
  })

  it('has no price for an unknown model', () => {
    expect(anthropicTurnCost('claude-unknown', { ...none, input: 100 })).toBeUndefined()
  })
})

describe('anthropicFinishReason', () => {
  it('maps every stop reason of the API and calls the rest other', () => {
    expect(anthropicFinishReason('end_turn')).toBe('stop')
    expect(anthropicFinishReason('tool_use')).toBe('tool-calls')
    expect(anthropicFinishReason('model_context_window_exceeded')).toBe('length')
    expect(anthropicFinishReason('refusal')).toBe('content-filter')
    expect(anthropicFinishReason('pause_turn')).toBe('pause')
    expect(anthropicFinishReason(null)).toBe('other')
    expect(anthropicFinishReason('constructor')).toBe('other')
  })
})
