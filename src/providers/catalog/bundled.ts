import type { ModelCatalogEntry, ModelCatalogSource, ModelInfo } from './types'
import { undatedModelId } from './model-ids'
import { GENERATED_MODEL_SOURCE, GENERATED_MODELS } from './models.generated'

interface BundledIndex {
  entries: ReadonlyMap<string, Readonly<ModelInfo>>
  /** Undated key → key of its newest dated snapshot, for families listed only by snapshot. */
  newestSnapshot: ReadonlyMap<string, string>
}

let index: BundledIndex | undefined

/** Built on first use so importing the SDK does not pay for it. Entries are frozen: callers share them. */
function bundledIndex(): BundledIndex {
  if (index)
    return index
  const table: Readonly<Record<string, ModelInfo>> = GENERATED_MODELS
  const entries = new Map<string, Readonly<ModelInfo>>()
  const newestSnapshot = new Map<string, string>()
  for (const [key, info] of Object.entries(table)) {
    if (info.pricing)
      Object.freeze(info.pricing)
    entries.set(key, Object.freeze(info))
    const undated = undatedModelId(key)
    // Dates of one family share a format, so the larger key is the newer snapshot.
    if (undated !== undefined && (newestSnapshot.get(undated) ?? '') < key)
      newestSnapshot.set(undated, key)
  }
  index = { entries, newestSnapshot }
  return index
}

/**
 * The catalog generated from the pinned pi-ai registry (see `docs/models.md`).
 * `get` answers the exact `(provider, modelId)`; an undated id that the
 * registry lists only by snapshot (`claude-3-7-sonnet`) answers with the newest one.
 */
export const BUNDLED_MODEL_CATALOG: ModelCatalogSource & { readonly source: typeof GENERATED_MODEL_SOURCE } = {
  source: GENERATED_MODEL_SOURCE,
  get(provider, modelId) {
    const { entries, newestSnapshot } = bundledIndex()
    const key = `${provider}:${modelId}`
    const snapshot = newestSnapshot.get(key)
    return entries.get(key) ?? (snapshot === undefined ? undefined : entries.get(snapshot))
  },
  list() {
    const list: ModelCatalogEntry[] = []
    for (const [key, info] of bundledIndex().entries) {
      const split = key.indexOf(':')
      list.push({ provider: key.slice(0, split), modelId: key.slice(split + 1), info })
    }
    return list
  },
}
