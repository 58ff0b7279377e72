/**
 * Thinking level (and budget) → the reasoning fields of one Chat Completions
 * request, plus the output cap that goes with them. A pure function of the
 * options and the dialect: the same run settings always give the same bytes.
 */

import type { ChatReasoningEffort } from '../shared/reasoning-effort'
import type { ThinkingLevel } from '../thinking'
import type { ChatDialect } from './dialect'
import { fitEffort } from '../shared/reasoning-effort'

/** The effort each budgeted level asks for before it is fitted to the model. */
const LEVEL_EFFORT: Readonly<Record<Exclude<ThinkingLevel, 'off' | 'adaptive'>, ChatReasoningEffort>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
}

export interface ReasoningInput {
  model: string
  thinking: ThinkingLevel
  thinkingBudget?: number
  maxTokens?: number
  /** The host catalog's word on reasoning support (see `StreamOptions.reasoning`). */
  reasoning?: boolean
}

/** Efforts assumed for a model the host's catalog says reasons but the dialect's table does not know. */
const ASSUMED_EFFORTS: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']

export interface ReasoningFields {
  /** Fields to merge into the body, in the order they should serialize. */
  fields: Record<string, unknown>
  /** The output cap to send, if any. */
  maxTokens?: number
}

/**
 * Decide the reasoning fields of one request.
 *
 * - `off`, or a host catalog entry with `reasoning: false`: nothing. Models
 *   whose default is no reasoning stay quiet; models that always reason keep
 *   their own default, which no field could switch off anyway.
 * - `thinkingBudget` with a budget field in the dialect: the budget, written at
 *   that path, instead of an effort (OpenRouter rejects both at once). When the
 *   run also caps output, the cap grows by the budget: on these APIs the cap
 *   covers reasoning and answer together, and the answer should keep its allowance.
 * - `adaptive`: leave the amount to the model. OpenRouter gets `{ enabled: true }`
 *   so that models with optional reasoning still reason; other dialects send nothing.
 * - Every other level: its effort, fitted to what the model accepts
 *   (`fitEffort`); nothing when the model takes no effort field, unless the
 *   host's catalog says it reasons (then `low`…`high` are assumed).
 */
export function chatReasoningFields(input: ReasoningInput, dialect: ChatDialect): ReasoningFields {
  const level = input.thinking
  if (level === 'off' || input.reasoning === false)
    return { fields: {}, maxTokens: input.maxTokens }

  const budget = dialect.thinkingBudgetField ? input.thinkingBudget : undefined
  if (dialect.thinkingBudgetField && budget !== undefined) {
    const fields: Record<string, unknown> = {}
    setPath(fields, dialect.thinkingBudgetField, budget)
    return { fields, maxTokens: input.maxTokens === undefined ? undefined : input.maxTokens + budget }
  }

  if (!dialect.reasoningField)
    return { fields: {}, maxTokens: input.maxTokens }
  if (level === 'adaptive') {
    const fields = dialect.reasoningField === 'reasoning' ? { reasoning: { enabled: true } } : {}
    return { fields, maxTokens: input.maxTokens }
  }
  const known = dialect.reasoningEfforts(input.model)
  const effort = fitEffort(LEVEL_EFFORT[level], known.length === 0 && input.reasoning === true ? ASSUMED_EFFORTS : known)
  if (!effort)
    return { fields: {}, maxTokens: input.maxTokens }
  const fields = dialect.reasoningField === 'reasoning' ? { reasoning: { effort } } : { reasoning_effort: effort }
  return { fields, maxTokens: input.maxTokens }
}

/** Write `value` at a dotted path, creating the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let node = target
  for (const key of keys.slice(0, -1)) {
    const next = node[key]
    node = typeof next === 'object' && next !== null ? next as Record<string, unknown> : (node[key] = {}) as Record<string, unknown>
  }
  node[keys.at(-1)!] = value
}
