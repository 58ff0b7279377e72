import type { ThinkingLevel } from '../../src/providers/thinking'
import { describe, expect, it } from 'vitest'
import { cerebrasDialect } from '../../src/providers/cerebras'
import { buildChatRequest, chatReasoningFields, fitEffort, openaiReasoningEfforts } from '../../src/providers/openai-chat'
import { openaiCompatDialect } from '../../src/providers/openai-compat'
import { openrouterDialect } from '../../src/providers/openrouter'
import { chatOptions, dialect } from './openai-chat-fixtures'

function effortFor(model: string, thinking: ThinkingLevel) {
  return buildChatRequest(chatOptions({ model, thinking }), dialect()).reasoning_effort
}

describe('fitEffort', () => {
  it('keeps an accepted effort, steps down to the strongest weaker one, else up to the weakest stronger one', () => {
    expect(fitEffort('medium', ['low', 'medium', 'high'])).toBe('medium')
    expect(fitEffort('max', ['low', 'medium', 'high'])).toBe('high')
    expect(fitEffort('xhigh', ['minimal', 'low', 'medium', 'high', 'xhigh'])).toBe('xhigh')
    expect(fitEffort('minimal', ['low', 'medium', 'high'])).toBe('low')
    expect(fitEffort('low', ['high'])).toBe('high')
    // With accepted efforts on both sides, the weaker one wins: a level is a ceiling, not a floor.
    expect(fitEffort('medium', ['low', 'high'])).toBe('low')
    expect(fitEffort('low', [])).toBeUndefined()
  })
})

describe('reasoning_effort on OpenAI', () => {
  it.each<[ThinkingLevel, string | undefined]>([
    ['off', undefined],
    ['adaptive', undefined],
    ['minimal', 'minimal'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'high'],
    ['max', 'high'],
  ])('gpt-5: %s → %s', (level, expected) => {
    expect(effortFor('gpt-5', level)).toBe(expected)
  })

  it('fits each level to what the model family accepts', () => {
    expect(effortFor('gpt-5.2', 'max')).toBe('xhigh')
    expect(effortFor('gpt-5.2', 'minimal')).toBe('low')
    expect(effortFor('gpt-5.1', 'xhigh')).toBe('high')
    expect(effortFor('gpt-5.1-codex-max', 'xhigh')).toBe('xhigh')
    expect(effortFor('o3', 'minimal')).toBe('low')
    expect(effortFor('o4-mini-2025-04-16', 'max')).toBe('high')
    expect(effortFor('gpt-5-pro', 'low')).toBe('high')
  })

  it('never sends an effort to models without reasoning', () => {
    for (const model of ['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'gpt-5.1-chat-latest'])
      expect(buildChatRequest(chatOptions({ model, thinking: 'high' }), dialect())).not.toHaveProperty('reasoning_effort')
    expect(openaiReasoningEfforts('gpt-4o')).toEqual([])
  })

  it('ignores thinkingBudget, which OpenAI has no field for, and leaves maxTokens as it is', () => {
    const body = buildChatRequest(chatOptions({ thinking: 'high', thinkingBudget: 5000, maxTokens: 1000 }), dialect())
    expect(body.reasoning_effort).toBe('high')
    expect(body.max_completion_tokens).toBe(1000)
    expect(JSON.stringify(body)).not.toContain('5000')
  })
})

describe('openai-compat reasoning', () => {
  it('sends reasoning_effort clamped to low/medium/high by default', () => {
    const target = openaiCompatDialect({})
    expect(chatReasoningFields({ model: 'm', thinking: 'minimal' }, target).fields).toEqual({ reasoning_effort: 'low' })
    expect(chatReasoningFields({ model: 'm', thinking: 'max' }, target).fields).toEqual({ reasoning_effort: 'high' })
    expect(chatReasoningFields({ model: 'm', thinking: 'off' }, target).fields).toEqual({})
  })

  it('sends nothing when the reasoning field is switched off', () => {
    expect(chatReasoningFields({ model: 'm', thinking: 'high' }, openaiCompatDialect({ reasoningField: false })).fields).toEqual({})
  })

  it('sends a thinkingBudget at the configured path instead of an effort, growing maxTokens by it', () => {
    const target = openaiCompatDialect({ thinkingBudgetField: 'reasoning.max_tokens' })
    expect(chatReasoningFields({ model: 'm', thinking: 'high', thinkingBudget: 4096, maxTokens: 1000 }, target)).toEqual({ fields: { reasoning: { max_tokens: 4096 } }, maxTokens: 5096 })
    expect(chatReasoningFields({ model: 'm', thinking: 'adaptive', thinkingBudget: 2048 }, target)).toEqual({ fields: { reasoning: { max_tokens: 2048 } }, maxTokens: undefined })
    const nested = openaiCompatDialect({ thinkingBudgetField: 'chat_template_kwargs.thinking_budget' })
    expect(buildChatRequest(chatOptions({ model: 'm', thinking: 'low', thinkingBudget: 512, maxTokens: 100 }), nested)).toMatchObject({ chat_template_kwargs: { thinking_budget: 512 }, max_tokens: 612 })
  })

  it('does not send a budget when thinking is off', () => {
    const target = openaiCompatDialect({ thinkingBudgetField: 'reasoning.max_tokens' })
    expect(chatReasoningFields({ model: 'm', thinking: 'off', thinkingBudget: 4096, maxTokens: 1000 }, target)).toEqual({ fields: {}, maxTokens: 1000 })
  })
})

describe('openRouter reasoning', () => {
  it('sends the level as reasoning.effort, up to xhigh, and adaptive as enabled', () => {
    const target = openrouterDialect()
    expect(chatReasoningFields({ model: 'x/y', thinking: 'minimal' }, target).fields).toEqual({ reasoning: { effort: 'minimal' } })
    expect(chatReasoningFields({ model: 'x/y', thinking: 'max' }, target).fields).toEqual({ reasoning: { effort: 'xhigh' } })
    expect(chatReasoningFields({ model: 'x/y', thinking: 'adaptive' }, target).fields).toEqual({ reasoning: { enabled: true } })
  })

  it('sends a budget as reasoning.max_tokens, without an effort', () => {
    expect(chatReasoningFields({ model: 'x/y', thinking: 'high', thinkingBudget: 3000 }, openrouterDialect()).fields).toEqual({ reasoning: { max_tokens: 3000 } })
  })
})

describe('cerebras reasoning', () => {
  it('sends reasoning_effort to gpt-oss models only', () => {
    expect(chatReasoningFields({ model: 'gpt-oss-120b', thinking: 'xhigh' }, cerebrasDialect()).fields).toEqual({ reasoning_effort: 'high' })
    expect(chatReasoningFields({ model: 'zai-glm-4.7', thinking: 'high' }, cerebrasDialect()).fields).toEqual({})
  })
})
