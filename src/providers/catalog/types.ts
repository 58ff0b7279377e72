/** List prices in USD per million tokens. */
export interface ModelPricing {
  /** Uncached input tokens. */
  input: number
  /** Output tokens, reasoning included. */
  output: number
  /** Tokens served from the prompt cache; billed at `input` when absent. */
  cacheRead?: number
  /** Tokens written to the prompt cache (standard TTL); billed at `input` when absent. */
  cacheWrite?: number
  /** Tokens written with a one-hour cache TTL; billed at `cacheWrite` when absent. */
  cacheWrite1h?: number
}

/** What the SDK knows about one model. Every field is optional: data is often partial. */
export interface ModelInfo {
  /** Context window in tokens. */
  contextWindow?: number
  /** Largest output (`max_tokens`) the model accepts. */
  maxTokens?: number
  /** Merged as one unit: a layer that sets `pricing` replaces every rate below it. */
  pricing?: ModelPricing
  /** Produces reasoning / accepts thinking levels. */
  reasoning?: boolean
  /** Accepts image input. */
  images?: boolean
}

/** Catalog entries keyed `'<provider>:<modelId>'`, e.g. `'anthropic:claude-sonnet-4-5'`. */
export type ModelCatalogTable = Readonly<Record<string, Partial<ModelInfo>>>

/** One model of a catalog listing. */
export interface ModelCatalogEntry {
  provider: string
  modelId: string
  info: Partial<ModelInfo>
}

/** A catalog computed on demand (a remote registry, a gateway's model list, …). */
export interface ModelCatalogSource {
  /** The entry for exactly this `(provider, modelId)`, or `undefined`. */
  get: (provider: string, modelId: string) => Partial<ModelInfo> | undefined
  /** Every entry, for model pickers. Resolution never calls it. */
  list?: () => readonly ModelCatalogEntry[]
}

/** Model metadata overrides: a table keyed `'<provider>:<modelId>'` or a source object. */
export type ModelCatalog = ModelCatalogTable | ModelCatalogSource

/** The per-agent, per-profile and per-run catalogs; the process-wide and bundled layers are implicit. */
export interface ModelCatalogLayers {
  /** `run({ behavior: { modelCatalog } })`. Wins over every other layer. */
  run?: ModelCatalog
  /** `run({ profile: { behavior: { modelCatalog } } })`. Wins over the agent's. */
  profile?: ModelCatalog
  /** `createAgent({ behavior: { modelCatalog } })`. */
  agent?: ModelCatalog
}
