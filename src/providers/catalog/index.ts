/**
 * Model metadata (context window, output ceiling, pricing, reasoning and image
 * support) and the cost estimate built on it. See `docs/models.md`.
 *
 * This barrel is what `zidane/providers` exposes, and its lookups are
 * synchronous and may run before any agent: so, unlike the agent's own path
 * (which loads the data on first use), importing it carries the bundled data.
 * The exports below are this module's own bindings, so a bundler that keeps
 * any of them keeps the install as well.
 */

import type { TurnUsage } from '../../core/stats'
import type { CostEstimateOptions } from './cost'
import type { ModelCatalogLayers, ModelCatalogSource, ModelInfo } from './types'
import { BUNDLED_MODEL_CATALOG as bundledCatalog, installBundledModels } from './bundled'
import { resolveModelInfo as resolveLayers } from './catalog'
import { fillEstimatedCost as fillCost } from './cost'
import { GENERATED_MODEL_SOURCE, GENERATED_MODELS } from './models.generated'

installBundledModels({ GENERATED_MODEL_SOURCE, GENERATED_MODELS })

/** The catalog generated from the pinned pi-ai registry (see `docs/models.md`); its data is loaded with this module. */
export const BUNDLED_MODEL_CATALOG = bundledCatalog as ModelCatalogSource & { readonly source: typeof GENERATED_MODEL_SOURCE }

/**
 * Everything known about `(provider, modelId)`. Each field comes from the
 * first layer that sets it: run → agent → `setModelCatalog()` → bundled data →
 * fallbacks. Within a layer the exact id is tried before its undated and
 * variant-free forms (see `modelIdCandidates`). Fields no layer sets are
 * absent; an unknown model resolves to `{}`.
 */
export function resolveModelInfo(provider: string, modelId: string, layers?: ModelCatalogLayers): ModelInfo {
  return resolveLayers(provider, modelId, layers)
}

/**
 * The turn's usage with `provider` stamped (when absent) and, when the
 * provider reported no cost, `cost` estimated from the catalog price of
 * `usage.modelId` (else `options.requestedModel`). A reported cost is never
 * replaced; without a known price `cost` stays absent rather than reading as $0.
 * Returns a new object; `usage` is not modified.
 */
export function fillEstimatedCost(usage: TurnUsage, provider: string, options?: CostEstimateOptions): TurnUsage {
  return fillCost(usage, provider, options)
}

export { getModelCatalog, setModelCatalog } from './catalog'
export { turnCostUsd } from './cost'
export type { CostEstimateOptions } from './cost'
export { modelIdCandidates } from './model-ids'
export type {
  ModelCatalog,
  ModelCatalogEntry,
  ModelCatalogLayers,
  ModelCatalogSource,
  ModelCatalogTable,
  ModelInfo,
  ModelPricing,
} from './types'
