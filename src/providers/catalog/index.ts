/**
 * Model metadata (context window, output ceiling, pricing, reasoning and image
 * support) and the cost estimate built on it. See `docs/models.md`.
 */

export { BUNDLED_MODEL_CATALOG } from './bundled'
export { getModelCatalog, resolveModelInfo, setModelCatalog } from './catalog'
export { fillEstimatedCost, turnCostUsd } from './cost'
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
