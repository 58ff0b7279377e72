/**
 * Chat Completions usage and finish reasons → the normalized `TurnUsage` and
 * `TurnFinishReason`.
 *
 * Token convention (the same as the Anthropic provider, and what the cost
 * estimator assumes): `input` counts only the prompt tokens billed at the full
 * input rate. OpenAI-style APIs count cached tokens inside `prompt_tokens`, so
 * cache reads (`prompt_tokens_details.cached_tokens`) and, where reported,
 * cache writes (`prompt_tokens_details.cache_write_tokens`, OpenRouter) are
 * subtracted: `input + cacheRead + cacheCreation` is the whole prompt.
 * `output` is `completion_tokens`, reasoning included; `thinking` repeats the
 * reasoning part when the API reports it.
 */

import type { TurnFinishReason, TurnUsage } from '../../core/stats'
import { optionalTokenCount, tokenCount } from '../shared/token-count'

/** Usage as the family reports it; every field optional because servers differ. */
export interface ChatWireUsage {
  prompt_tokens?: number | null
  completion_tokens?: number | null
  prompt_tokens_details?: { cached_tokens?: number | null, cache_write_tokens?: number | null } | null
  completion_tokens_details?: { reasoning_tokens?: number | null } | null
  /** DeepSeek reports cache hits here instead of in `prompt_tokens_details`. */
  prompt_cache_hit_tokens?: number | null
  /** OpenRouter: what the request cost, in USD. */
  cost?: number | null
}

/**
 * Keeps the usage a stream reports. Servers put it in the standard `usage`
 * field, on the last chunk or on several (the last one wins); some put it only
 * under an extension (Groq's compound models: `x_groq.usage`), named by the
 * dialect as dotted paths. The standard field wins whenever it came at all.
 */
export class UsageReader {
  private standard: ChatWireUsage | undefined
  private vendor: ChatWireUsage | undefined
  private readonly paths: readonly (readonly string[])[]

  constructor(fields: readonly string[] = []) {
    this.paths = fields.map(field => field.split('.'))
  }

  /** Look at one chunk. */
  read(chunk: { usage?: unknown }): void {
    if (isUsage(chunk.usage)) {
      this.standard = chunk.usage
      return
    }
    for (const path of this.paths) {
      const value = valueAt(chunk, path)
      if (isUsage(value))
        this.vendor = value
    }
  }

  /** The usage to report, if any came. */
  finish(): ChatWireUsage | undefined {
    return this.standard ?? this.vendor
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root
  for (const key of path) {
    if (typeof node !== 'object' || node === null)
      return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

function isUsage(value: unknown): value is ChatWireUsage {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export interface UsageContext {
  /** The model the request named: the key catalogs and stats group by, even when the server echoes a dated alias. */
  model: string
  providerName: string
}

export function chatTurnUsage(usage: ChatWireUsage | undefined, context: UsageContext, finishReason: TurnFinishReason): TurnUsage {
  const prompt = tokenCount(usage?.prompt_tokens)
  const cacheRead = tokenCount(usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens)
  const cacheCreation = tokenCount(usage?.prompt_tokens_details?.cache_write_tokens)
  const result: TurnUsage = {
    input: Math.max(0, prompt - cacheRead - cacheCreation),
    output: tokenCount(usage?.completion_tokens),
    cacheRead,
    cacheCreation,
    modelId: context.model,
    provider: context.providerName,
    finishReason,
  }
  const thinking = optionalTokenCount(usage?.completion_tokens_details?.reasoning_tokens)
  if (thinking !== undefined)
    result.thinking = thinking
  const cost = usage?.cost
  if (isCost(cost))
    result.cost = cost
  return result
}

/**
 * A reported cost (OpenRouter, in USD) is taken when it is a number from 0 to
 * `Number.MAX_SAFE_INTEGER`, as token counts are; otherwise the turn has none
 * and the catalog's price estimates it. A negative cost subtracted from the
 * run's spend: one turn reporting `-1000` let every later turn past `maxCostUsd`.
 */
function isCost(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER
}

/** `energy_joules` of a Neuralwatt energy report, when it is a finite, non-negative number. */
export function energyJoulesOf(report: unknown): number | undefined {
  if (typeof report !== 'object' || report === null)
    return undefined
  const joules = (report as { energy_joules?: unknown }).energy_joules
  return typeof joules === 'number' && Number.isFinite(joules) && joules >= 0 ? joules : undefined
}

const FINISH_REASONS: ReadonlyMap<string, TurnFinishReason> = new Map([
  ['stop', 'stop'],
  ['tool_calls', 'tool-calls'],
  ['function_call', 'tool-calls'],
  ['length', 'length'],
  ['content_filter', 'content-filter'],
])

/**
 * The API's `finish_reason` → the normalized reason; unknown → `'other'`.
 * Some servers (Ollama, older vLLM) say `stop` after emitting tool calls; a
 * turn that carries calls is reported as `tool-calls` so the loop runs them.
 */
export function chatFinishReason(reason: string | null | undefined, hasToolCalls: boolean): TurnFinishReason {
  const mapped = (reason && FINISH_REASONS.get(reason)) || 'other'
  return mapped === 'stop' && hasToolCalls ? 'tool-calls' : mapped
}
