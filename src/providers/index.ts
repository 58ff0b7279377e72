/**
 * `zidane/providers`: the provider contract. Types, the list of thinking
 * levels and the tool-argument buffer every streaming provider needs; each provider implementation lives in its own subpath so importing
 * this entry never loads a vendor SDK.
 *
 * @module zidane/providers
 */

export type { DecisionCall, DecisionReply, DecisionReplyBody, ProviderDecisions } from '../decisions/types'
export { BUNDLED_MODEL_CATALOG, fillEstimatedCost, getModelCatalog, resolveModelInfo, setModelCatalog } from './catalog'
export type { ModelCatalog, ModelInfo, ModelPricing } from './catalog'
export { THINKING_LEVELS } from './thinking'
export type { ThinkingLevel } from './thinking'
export { INVALID_TOOL_INPUT_KEY, invalidToolInput, parseToolInput, ToolJsonBuffer } from './tool-json'
export type { InvalidToolInput } from './tool-json'
export type {
  Provider,
  ProviderCapabilities,
  ProviderInputTransformation,
  ProviderMeta,
  StreamCallbacks,
  StreamOptions,
  ToolCall,
  ToolResult,
  ToolSpec,
  TurnResult,
} from './types'
