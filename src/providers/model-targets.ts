import type { ModelCatalogLayers } from './catalog/types'
import type { Provider } from './types'
import { resolveModelInfo, resolveModelOverrides } from './catalog/catalog'

/** One entry of a run's model list: a model id, optionally pinned to one provider by name. */
export interface ModelTargetSpec {
  model: string
  /** `Provider.name` to pin the model to; without it the model is tried on every provider. */
  provider?: string
  /** Context window of this model, when the host knows it. */
  contextWindow?: number
}

/** A concrete place to send a turn. */
export interface ModelTarget {
  provider: Provider
  model: string
  /**
   * The model's context window: the list entry's own, else the host's
   * catalog (`behavior.modelCatalog`, `setModelCatalog()`), else the
   * provider's `meta.contextWindow` for its default model, else the bundled
   * data, else the provider's `meta.contextWindow` for any other model.
   */
  contextWindow?: number
}

/**
 * The ordered targets of a run. No model: each provider's default model, in
 * provider order. A model id: that id on every provider, in order. A list:
 * each entry in turn, a pinned entry on its provider only and a bare one on
 * every provider. Duplicates are dropped; an entry pinned to a provider the
 * agent does not have is a configuration error. Each target's context window
 * is resolved through the model catalog (see `ModelTarget.contextWindow`).
 */
export function resolveModelTargets(providers: readonly Provider[], model: string | readonly (string | ModelTargetSpec)[] | undefined, catalogs: ModelCatalogLayers = {}): ModelTarget[] {
  const target = (provider: Provider, spec: ModelTargetSpec): ModelTarget => {
    const contextWindow = spec.contextWindow ?? contextWindowOf(provider, spec.model, catalogs)
    return { provider, model: spec.model, ...(contextWindow === undefined ? {} : { contextWindow }) }
  }
  if (model === undefined)
    return providers.map(provider => target(provider, { model: provider.meta.defaultModel }))
  const entries = typeof model === 'string' ? [model] : model
  if (entries.length === 0)
    throw new TypeError('The model list is empty')
  const targets: ModelTarget[] = []
  const seen = new Set<string>()
  const add = (provider: Provider, spec: ModelTargetSpec) => {
    const key = `${provider.name}\u0000${spec.model}`
    if (seen.has(key))
      return
    seen.add(key)
    targets.push(target(provider, spec))
  }
  for (const entry of entries) {
    const spec = typeof entry === 'string' ? { model: entry } : entry
    if (spec.provider === undefined) {
      for (const provider of providers) add(provider, spec)
      continue
    }
    const pinned = providers.find(provider => provider.name === spec.provider)
    if (!pinned)
      throw new TypeError(`Model "${spec.model}" is pinned to provider "${spec.provider}", which this agent does not have (it has: ${providers.map(p => p.name).join(', ')})`)
    add(pinned, spec)
  }
  return targets
}

/**
 * The host's catalog first: it is there to correct what the provider and the
 * bundled data believe. The provider's own window describes its default model
 * best; for another model the bundled data knows better, and when it knows
 * nothing the provider's window is still the closest guess (an endpoint
 * configured with one window serves its models under it). Without that last
 * step a run on a non-default model would have no window and auto-compaction
 * would stay off.
 */
function contextWindowOf(provider: Provider, model: string, catalogs: ModelCatalogLayers): number | undefined {
  const providerWindow = provider.meta.contextWindow
  return resolveModelOverrides(provider.name, model, catalogs).contextWindow
    ?? (model === provider.meta.defaultModel ? providerWindow : undefined)
    ?? resolveModelInfo(provider.name, model, catalogs).contextWindow
    ?? providerWindow
}
