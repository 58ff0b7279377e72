import type { ThinkingLevel } from '../../src/providers/thinking'
import { describe, expect, it } from 'vitest'
import { buildAnthropicRequest, THINKING_BUDGETS } from '../../src/providers/anthropic'
import { streamOptions } from './anthropic-fixtures'

function fields(model: string, thinking: ThinkingLevel, extra: Parameters<typeof streamOptions>[0] = {}) {
  const { body, betas } = buildAnthropicRequest(streamOptions({ model, thinking, ...extra }))
  return { thinking: body.thinking, output_config: body.output_config, max_tokens: body.max_tokens, betas }
}

describe('on a model with adaptive thinking (claude-opus-5-5)', () => {
  it('sends no thinking field when thinking is off', () => {
    expect(fields('claude-opus-5-5', 'off')).toEqual({ thinking: undefined, output_config: undefined, max_tokens: 128_000, betas: [] })
  })

  it.each<[ThinkingLevel, string]>([
    ['minimal', 'low'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'xhigh'],
    ['max', 'max'],
  ])('%s → adaptive thinking with effort %s', (level, effort) => {
    expect(fields('claude-opus-5-5', level)).toEqual({ thinking: { type: 'adaptive' }, output_config: { effort }, max_tokens: 128_000, betas: [] })
  })

  it('adaptive → adaptive thinking with no effort hint: the model decides', () => {
    expect(fields('claude-opus-5-5', 'adaptive')).toEqual({ thinking: { type: 'adaptive' }, output_config: undefined, max_tokens: 128_000, betas: [] })
  })

  it('drops the effort hint when effortHint is false, keeping thinking on', () => {
    expect(fields('claude-opus-5-5', 'high', { effortHint: false })).toEqual({ thinking: { type: 'adaptive' }, output_config: undefined, max_tokens: 128_000, betas: [] })
  })

  it('adds the task budget and its beta', () => {
    expect(fields('claude-opus-5-5', 'high', { taskBudget: 200_000 })).toEqual({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high', task_budget: { type: 'tokens', total: 200_000 } },
      max_tokens: 128_000,
      betas: ['task-budgets-2026-03-13'],
    })
    expect(fields('claude-opus-5-5', 'high', { taskBudget: 50_000, effortHint: false }).output_config).toEqual({ task_budget: { type: 'tokens', total: 50_000 } })
  })

  it('ignores the task budget when thinking is off', () => {
    expect(fields('claude-opus-5-5', 'off', { taskBudget: 50_000 })).toMatchObject({ output_config: undefined, betas: [] })
  })

  it('treats thinkingBudget as a cap on the whole response for level adaptive', () => {
    expect(fields('claude-opus-5-5', 'adaptive', { thinkingBudget: 20_000 })).toMatchObject({ thinking: { type: 'adaptive' }, max_tokens: 20_000 })
  })

  it('keeps the adaptive path for a manual budget, which adaptive-only models reject', () => {
    expect(fields('claude-opus-5-5', 'high', { thinkingBudget: 5000 })).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } })
  })
})

describe('on a model that accepts both modes (claude-opus-4-6)', () => {
  it('routes an explicit thinkingBudget to the manual path, and drops the task budget there', () => {
    expect(fields('claude-opus-4-6', 'high', { thinkingBudget: 5000, taskBudget: 90_000 })).toEqual({
      thinking: { type: 'enabled', budget_tokens: 5000 },
      output_config: undefined,
      max_tokens: 128_000,
      betas: [],
    })
  })

  it('clamps efforts the model lacks to the strongest it has', () => {
    expect(fields('claude-opus-4-6', 'xhigh').output_config).toEqual({ effort: 'high' })
    expect(fields('claude-opus-4-6', 'max').output_config).toEqual({ effort: 'max' })
  })
})

describe('on a model without adaptive thinking (claude-haiku-4-5)', () => {
  it.each<ThinkingLevel>(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'])('%s → enabled with the level budget', (level) => {
    expect(fields('claude-haiku-4-5', level)).toEqual({
      thinking: { type: 'enabled', budget_tokens: THINKING_BUDGETS[level as Exclude<ThinkingLevel, 'off'>] },
      output_config: undefined,
      max_tokens: 64_000,
      betas: [],
    })
  })

  it('adaptive falls back to the medium budget', () => {
    expect(fields('claude-haiku-4-5', 'adaptive').thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGETS.medium })
  })

  it('prefers thinkingBudget over the level table', () => {
    expect(fields('claude-haiku-4-5', 'minimal', { thinkingBudget: 12_345 }).thinking).toEqual({ type: 'enabled', budget_tokens: 12_345 })
  })

  it('keeps the budget under max_tokens with room for the answer', () => {
    expect(fields('claude-haiku-4-5', 'high', { maxTokens: 4096 })).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 3072 }, max_tokens: 4096 })
    expect(fields('claude-haiku-4-5', 'high', { maxTokens: 1500 })).toMatchObject({ thinking: undefined, max_tokens: 1500 })
  })

  it('the budgets grow with the level', () => {
    const levels = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const
    const budgets = levels.map(level => THINKING_BUDGETS[level])
    expect([...budgets].sort((a, b) => a - b)).toEqual(budgets)
    expect(new Set(budgets).size).toBe(levels.length)
  })
})

describe('on a model missing from the table', () => {
  it('assumes adaptive thinking with any effort and a conservative max_tokens', () => {
    expect(fields('claude-next-gen', 'xhigh')).toEqual({ thinking: { type: 'adaptive' }, output_config: { effort: 'xhigh' }, max_tokens: 16_384, betas: [] })
  })
})
