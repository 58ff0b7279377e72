import type { ModelCatalog, ModelCatalogLayers, ModelCatalogSource, ModelInfo } from './types'
import { BUNDLED_MODEL_CATALOG } from './bundled'
import { FALLBACK_MODEL_CATALOG } from './fallback'
import { modelIdCandidates } from './model-ids'

let processCatalog: ModelCatalog | undefined

/**
 * Install the process-wide catalog, below every agent's and run's own and
 * above the bundled data. `undefined` removes it. Model pickers that run
 * before any agent exists read this layer.
 */
export function setModelCatalog(catalog: ModelCatalog | undefined): void {
  processCatalog = catalog
}

/** The catalog `setModelCatalog()` installed, if any. */
export function getModelCatalog(): ModelCatalog | undefined {
  return processCatalog
}

/** A table's values are entries, never functions, so a callable `get` marks a source. */
function isCatalogSource(catalog: ModelCatalog): catalog is ModelCatalogSource {
  return typeof catalog.get === 'function'
}

function lookup(catalog: ModelCatalog, provider: string, modelId: string): Partial<ModelInfo> | undefined {
  if (isCatalogSource(catalog))
    return catalog.get(provider, modelId)
  const key = `${provider}:${modelId}`
  return Object.hasOwn(catalog, key) ? catalog[key] : undefined
}

/**
 * Everything known about `(provider, modelId)`. Each field comes from the
 * first layer that sets it: run → profile → agent → `setModelCatalog()` → bundled data →
 * fallbacks. Within a layer the exact id is tried before its undated and
 * variant-free forms (see `modelIdCandidates`). Fields no layer sets are
 * absent; an unknown model resolves to `{}`.
 */
export function resolveModelInfo(provider: string, modelId: string, layers: ModelCatalogLayers = {}): ModelInfo {
  return resolveFrom([layers.run, layers.profile, layers.agent, processCatalog, BUNDLED_MODEL_CATALOG, FALLBACK_MODEL_CATALOG], provider, modelId)
}

/**
 * What the host's own layers (run → profile → agent → `setModelCatalog()`) say about
 * `(provider, modelId)`, without the bundled data and fallbacks. Wire
 * decisions read this: a host entry overrides a provider's model-driven
 * default (the output ceiling, whether to ask for reasoning), while the
 * bundled data alone never changes what a request carries.
 */
export function resolveModelOverrides(provider: string, modelId: string, layers: ModelCatalogLayers = {}): ModelInfo {
  return resolveFrom([layers.run, layers.profile, layers.agent, processCatalog], provider, modelId)
}

function resolveFrom(catalogs: readonly (ModelCatalog | undefined)[], provider: string, modelId: string): ModelInfo {
  const resolved: ModelInfo = {}
  let candidates: string[] | undefined
  for (const catalog of catalogs) {
    if (!catalog)
      continue
    candidates ??= modelIdCandidates(modelId)
    for (const candidate of candidates) {
      const entry = lookup(catalog, provider, candidate)
      if (entry)
        fillMissing(resolved, entry)
    }
  }
  return resolved
}

function fillMissing(target: ModelInfo, entry: Partial<ModelInfo>): void {
  if (target.contextWindow === undefined && entry.contextWindow !== undefined)
    target.contextWindow = entry.contextWindow
  if (target.maxTokens === undefined && entry.maxTokens !== undefined)
    target.maxTokens = entry.maxTokens
  if (target.pricing === undefined && entry.pricing !== undefined)
    target.pricing = { ...entry.pricing }
  if (target.reasoning === undefined && entry.reasoning !== undefined)
    target.reasoning = entry.reasoning
  if (target.images === undefined && entry.images !== undefined)
    target.images = entry.images
}
