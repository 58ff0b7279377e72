import type { TurnUsage } from '../../core/stats'
import type { ModelCatalogLayers, ModelPricing } from './types'
import { mergeObjects } from '../../core/merge-objects'
import { resolveModelInfo } from './catalog'

export interface CostEstimateOptions extends ModelCatalogLayers {
  /** The model the request named; priced when the provider echoed no id or one no catalog knows. */
  requestedModel?: string
  /** The run's cache TTL: under `'1h'` cache writes bill at `cacheWrite1h`. */
  cacheTtl?: '5m' | '1h'
}

/**
 * The list-price cost of a turn in USD. `usage.input` already excludes cache
 * tokens; reasoning tokens are part of `output`. A missing cache rate bills at
 * the input rate, so a gap in the data over-estimates rather than hides spend.
 * `undefined` when the arithmetic does not give a finite number.
 */
export function turnCostUsd(usage: TurnUsage, pricing: ModelPricing, cacheTtl: '5m' | '1h' = '5m'): number | undefined {
  const writeRate = cacheTtl === '1h'
    ? pricing.cacheWrite1h ?? pricing.cacheWrite ?? pricing.input
    : pricing.cacheWrite ?? pricing.input
  const microDollars = usage.input * pricing.input
    + usage.output * pricing.output
    + (usage.cacheRead ?? 0) * (pricing.cacheRead ?? pricing.input)
    + (usage.cacheCreation ?? 0) * writeRate
  const usd = microDollars / 1_000_000
  return Number.isFinite(usd) ? usd : undefined
}

/**
 * The turn's usage with `provider` stamped (when absent) and, when the
 * provider reported no cost, `cost` estimated from the catalog price of
 * `usage.modelId` (else `options.requestedModel`). A reported cost is never
 * replaced; without a known price `cost` stays absent rather than reading as $0.
 * Returns a new object; `usage` is not modified.
 */
export function fillEstimatedCost(usage: TurnUsage, provider: string, options: CostEstimateOptions = {}): TurnUsage {
  // A provider that stamped itself knows best which catalog key prices it.
  const servedBy = usage.provider ?? provider
  const filled: TurnUsage = mergeObjects(usage, { provider: servedBy })
  if (usage.cost !== undefined)
    return filled
  // The requested model is looked up only when it is another id: an unknown model would be looked up twice on every turn.
  const pricing = priceOf(usage.modelId, servedBy, options)
    ?? (options.requestedModel === usage.modelId ? undefined : priceOf(options.requestedModel, servedBy, options))
  const cost = pricing && turnCostUsd(usage, pricing, options.cacheTtl)
  if (cost !== undefined)
    filled.cost = cost
  return filled
}

function priceOf(modelId: string | undefined, provider: string, layers: ModelCatalogLayers): ModelPricing | undefined {
  return modelId ? resolveModelInfo(provider, modelId, layers).pricing : undefined
}
