import type { ModelCatalogEntry, ModelCatalogSource, ModelInfo } from './types'
import { withGetters } from '../../core/fast-accessors'
import { undatedModelId } from './model-ids'

/**
 * Where the bundled data came from (the `GENERATED_MODEL_SOURCE` of
 * `models.generated.ts`). Typed here rather than imported, so that reading
 * this module does not load the data.
 */
export interface BundledModelSource {
  readonly package: string
  readonly version: string
  readonly publishedAt: string
  readonly providers: readonly string[]
}

/** The generated module's shape: what `installBundledModels` takes. */
export interface BundledModelData {
  readonly GENERATED_MODEL_SOURCE: BundledModelSource
  readonly GENERATED_MODELS: Readonly<Record<string, ModelInfo>>
}

interface BundledIndex {
  entries: ReadonlyMap<string, Readonly<ModelInfo>>
  /** Undated key → key of its newest dated snapshot, for families listed only by snapshot. */
  newestSnapshot: ReadonlyMap<string, string>
}

let data: BundledModelData | undefined
let index: BundledIndex | undefined
let loading: Promise<void> | undefined

/**
 * Hand the generated data to the bundled catalog. The `zidane/providers`
 * entry does this when it is imported (its lookups are synchronous and may
 * run before any agent); the agent's path loads it with `loadBundledModels`.
 * The first install wins: every copy is the same module.
 */
export function installBundledModels(generated: BundledModelData): void {
  data ??= generated
}

/**
 * Load the generated data (about 80 KB of code) on first use rather than at
 * import: a run, a decision or a created agent awaits this before it reads
 * prices or context windows. Settles at once when the data is already there.
 */
export function loadBundledModels(): Promise<void> {
  if (data)
    return Promise.resolve()
  loading ??= import('./models.generated').then(
    generated => installBundledModels(generated),
    (error: unknown) => {
      // A failed load (a broken install) is tried again by the next caller.
      loading = undefined
      throw error
    },
  )
  return loading
}

/** Built on first use so importing the SDK does not pay for it. Entries are frozen: callers share them. */
function bundledIndex(): BundledIndex | undefined {
  if (index || !data)
    return index
  const entries = new Map<string, Readonly<ModelInfo>>()
  const newestSnapshot = new Map<string, string>()
  for (const [key, info] of Object.entries(data.GENERATED_MODELS)) {
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
 * Until the data is loaded (see `loadBundledModels`) it knows no model and
 * `source` is `undefined`; importing `zidane/providers` loads it.
 */
export const BUNDLED_MODEL_CATALOG = withGetters<ModelCatalogSource & { readonly source: BundledModelSource | undefined }, 'source'>({
  get(provider, modelId) {
    const loaded = bundledIndex()
    if (!loaded)
      return undefined
    const key = `${provider}:${modelId}`
    const snapshot = loaded.newestSnapshot.get(key)
    return loaded.entries.get(key) ?? (snapshot === undefined ? undefined : loaded.entries.get(snapshot))
  },
  list() {
    const list: ModelCatalogEntry[] = []
    for (const [key, info] of bundledIndex()?.entries ?? []) {
      const split = key.indexOf(':')
      list.push({ provider: key.slice(0, split), modelId: key.slice(split + 1), info })
    }
    return list
  },
}, { source: () => data?.GENERATED_MODEL_SOURCE })
