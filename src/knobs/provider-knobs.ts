/** Provider-call knobs: output ceiling, prompt caching, reasoning budgets, model options and metadata. */

import type { ModelCatalog } from '../providers/catalog/types'
import { STREAM_OPTION_DEFAULTS } from '../providers/shared/stream-defaults'
import { defineKnobs, isBoolean, isPositive, isRecord, oneOf } from './define'

/** How long a prompt-cache entry lives: the provider default of five minutes, or an hour. */
export type CacheTtl = '5m' | '1h'

/** What each provider call sends. */
export interface ProviderKnobs {
  /** Output-token ceiling per response. Default: model-driven. */
  maxTokens?: number
  /** Prompt-cache breakpoints. Default true. */
  cache?: boolean
  /** Cache entry lifetime. Default `'5m'`. */
  cacheTtl?: CacheTtl
  /** Per-turn thinking budget in tokens, overriding the level's default. */
  thinkingBudget?: number
  /** Whole-task thinking budget (Anthropic adaptive thinking). */
  taskBudget?: number
  /** Send the Anthropic `output_config.effort` hint. Default true. */
  effortHint?: boolean
  /** Model-specific options for every run (a run's `modelOptions` wins). */
  modelOptions?: Record<string, unknown>
  /** Context window of the serving model, when the host knows it better than the provider. */
  contextWindow?: number
  /**
   * Model metadata overrides (window, output ceiling, prices), keyed
   * `'provider:modelId'`, or a `{ get, list }` source. A run's catalog is
   * consulted before the agent's, then `setModelCatalog()`, then the bundled data.
   */
  modelCatalog?: ModelCatalog
}

/** Defaults of the provider slice. */
export const PROVIDER_DEFAULTS = Object.freeze({
  cache: STREAM_OPTION_DEFAULTS.cache,
  cacheTtl: STREAM_OPTION_DEFAULTS.cacheTtl,
  effortHint: STREAM_OPTION_DEFAULTS.effortHint,
} satisfies ProviderKnobs)

/** The provider-call slice. */
export const PROVIDER_KNOBS = defineKnobs<ProviderKnobs, typeof PROVIDER_DEFAULTS>('provider calls', PROVIDER_DEFAULTS, {
  maxTokens: { doc: 'Output-token ceiling per response.', defaultLabel: 'model-driven', check: isPositive },
  cache: { doc: 'Prompt-cache breakpoints on the system prompt, the last tool and the last message.', check: isBoolean },
  cacheTtl: { doc: 'Prompt-cache entry lifetime.', check: oneOf('5m', '1h') },
  thinkingBudget: { doc: 'Per-turn reasoning budget in tokens.', defaultLabel: 'level default', check: isPositive },
  taskBudget: { doc: 'Whole-task reasoning budget (Anthropic adaptive thinking).', defaultLabel: 'off', check: isPositive },
  effortHint: { doc: 'Send Anthropic\'s level-derived `output_config.effort`.', check: isBoolean },
  modelOptions: { doc: 'Model-specific switches for every run; a run\'s `modelOptions` wins.', defaultLabel: 'none', check: isRecord },
  contextWindow: { doc: 'The serving model\'s context window, when the host knows it.', defaultLabel: 'provider\'s', check: isPositive },
  modelCatalog: { doc: 'Model metadata per `\'provider:modelId\'`, or a `{ get, list }` source.', defaultLabel: 'none', check: isRecord },
})
