/**
 * Thinking level → Anthropic request fields (`thinking`, `output_config`,
 * `max_tokens`). A pure function of the options and the model's table entry,
 * so the same run settings always give the same bytes: the budget is part of
 * the prompt-cache key.
 */

import type { ThinkingLevel } from '../thinking'
import type { AnthropicEffort, AnthropicModelInfo } from './models'
import { STREAM_OPTION_DEFAULTS } from '../shared/stream-defaults'
import { ANTHROPIC_EFFORTS, DEFAULT_MAX_OUTPUT_TOKENS } from './models'

/**
 * Budgets for the manual (`enabled`) path, used on models without adaptive
 * thinking when the run sets no `thinkingBudget`. `adaptive` there falls back
 * to the `medium` budget.
 */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = Object.freeze({
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16_384,
  xhigh: 32_768,
  max: 49_152,
  adaptive: 8192,
})

/** The API's floor for `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024
/** Output kept free for the answer when a budget is clamped under `max_tokens`. */
const ANSWER_RESERVE_TOKENS = 1024

/** The effort each level asks for on adaptive models; `adaptive` leaves the choice to the model. */
const LEVEL_EFFORT: Readonly<Record<Exclude<ThinkingLevel, 'off' | 'adaptive'>, AnthropicEffort>> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
}

export type AnthropicThinkingConfig
  = | { type: 'enabled', budget_tokens: number }
    | { type: 'adaptive' }

export interface AnthropicOutputConfig {
  effort?: AnthropicEffort
  task_budget?: { type: 'tokens', total: number }
}

/** The request fields a thinking level turns into for one model. */
export interface ThinkingRequestFields {
  maxTokens: number
  thinking?: AnthropicThinkingConfig
  outputConfig?: AnthropicOutputConfig
  /** `anthropic-beta` values these fields need. */
  betas: string[]
}

export interface ThinkingInput {
  thinking: ThinkingLevel
  thinkingBudget?: number
  taskBudget?: number
  effortHint?: boolean
  maxTokens?: number
  /** The host catalog's word on reasoning support; `false` sends no thinking fields. */
  reasoning?: boolean
}

export const TASK_BUDGET_BETA = 'task-budgets-2026-03-13'

/**
 * Decide the thinking fields of one request.
 *
 * - `off`, or a host catalog entry with `reasoning: false`: no thinking field
 *   (models whose thinking is always on keep thinking).
 * - Model without adaptive thinking: `enabled` with `thinkingBudget`, else the
 *   level's budget from `THINKING_BUDGETS`.
 * - `thinkingBudget` on a non-adaptive level, on a model that accepts manual
 *   budgets: `enabled` with that budget. Adaptive-only models reject manual
 *   budgets with a 400, so there the budget is ignored and the adaptive path runs.
 * - Otherwise `adaptive`, plus `output_config.effort` from the level (unless
 *   `effortHint === false`, or the level is `adaptive`), clamped to the
 *   strongest effort the model accepts, plus `output_config.task_budget` when
 *   `taskBudget` is set. With level `adaptive`, `thinkingBudget` caps the whole
 *   response (`max_tokens`), as `adaptiveBudgetIsEnvelope` advertises.
 *
 * Unknown models are treated as adaptive with every effort level: every model
 * released since early 2026 is, and `effortHint: false` covers the rest.
 */
export function anthropicThinkingFields(input: ThinkingInput, model: AnthropicModelInfo | undefined): ThinkingRequestFields {
  const maxTokens = input.maxTokens ?? model?.maxOutput ?? DEFAULT_MAX_OUTPUT_TOKENS
  const level = input.thinking
  if (level === 'off' || input.reasoning === false)
    return { maxTokens, betas: [] }

  const adaptive = model?.adaptiveThinking ?? true
  const manualBudgets = model?.manualThinkingBudget ?? true
  if (!adaptive)
    return enabledFields(input.thinkingBudget ?? THINKING_BUDGETS[level], maxTokens)
  if (input.thinkingBudget !== undefined && level !== 'adaptive' && manualBudgets)
    return enabledFields(input.thinkingBudget, maxTokens)

  const outputConfig: AnthropicOutputConfig = {}
  const betas: string[] = []
  if ((input.effortHint ?? STREAM_OPTION_DEFAULTS.effortHint) && level !== 'adaptive') {
    const effort = supportedEffort(LEVEL_EFFORT[level], model)
    if (effort)
      outputConfig.effort = effort
  }
  if (input.taskBudget !== undefined) {
    outputConfig.task_budget = { type: 'tokens', total: input.taskBudget }
    betas.push(TASK_BUDGET_BETA)
  }
  const envelope = level === 'adaptive' ? input.thinkingBudget : undefined
  return {
    maxTokens: envelope === undefined ? maxTokens : Math.min(maxTokens, envelope),
    thinking: { type: 'adaptive' },
    outputConfig: Object.keys(outputConfig).length > 0 ? outputConfig : undefined,
    betas,
  }
}

/**
 * `budget_tokens` must stay below `max_tokens`; the budget is clamped so the
 * answer keeps some room, and thinking is left off when not even the API's
 * minimum budget fits.
 */
function enabledFields(budget: number, maxTokens: number): ThinkingRequestFields {
  const clamped = Math.min(budget, maxTokens - ANSWER_RESERVE_TOKENS)
  if (clamped < MIN_THINKING_BUDGET)
    return { maxTokens, betas: [] }
  return { maxTokens, thinking: { type: 'enabled', budget_tokens: clamped }, betas: [] }
}

/** The requested effort, or the strongest weaker one the model accepts; `undefined` when it takes none. */
function supportedEffort(wanted: AnthropicEffort, model: AnthropicModelInfo | undefined): AnthropicEffort | undefined {
  if (!model)
    return wanted
  for (let i = ANTHROPIC_EFFORTS.indexOf(wanted); i >= 0; i--) {
    if (model.efforts.includes(ANTHROPIC_EFFORTS[i]))
      return ANTHROPIC_EFFORTS[i]
  }
  return undefined
}
