import type { ModelCatalogSource, ModelInfo } from './types'
import { findAnthropicModel } from '../anthropic/models'

/**
 * The last layer: models the pinned registry predates. It reuses the Anthropic
 * provider's own hand-checked table (limits and list prices) rather than
 * keeping a second one, so it answers only for the provider named `anthropic`.
 * That table's long-prompt price bands are not represented here.
 */
export const FALLBACK_MODEL_CATALOG: ModelCatalogSource = {
  get(provider, modelId): ModelInfo | undefined {
    if (provider !== 'anthropic')
      return undefined
    const model = findAnthropicModel(modelId)
    if (!model)
      return undefined
    const { price } = model
    return {
      contextWindow: model.contextWindow,
      maxTokens: model.maxOutput,
      pricing: {
        input: price.input,
        output: price.output,
        cacheRead: price.cacheRead,
        cacheWrite: price.cacheWrite5m,
        cacheWrite1h: price.cacheWrite1h,
      },
      reasoning: model.adaptiveThinking || model.manualThinkingBudget,
      images: true,
    }
  },
}
