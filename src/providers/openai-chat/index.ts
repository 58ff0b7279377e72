/**
 * The Chat Completions family: one wire builder, one stream consumer and one
 * error classifier for every API that speaks `POST /chat/completions`. Not a
 * public subpath of its own; `zidane/providers/openai`, `…/openai-compat`,
 * `…/openrouter` and `…/cerebras` re-export what their users need.
 */

export { parseRetryAfter } from '../retry-after'
export { openaiReasoningEfforts } from '../shared/openai-models'
export { fitEffort } from '../shared/reasoning-effort'
export { chatDecisions } from './decisions'
export type { ChatDecisionSettings } from './decisions'
export { CHAT_REASONING_EFFORTS, COMMON_MODEL_OPTION_KEYS, OPEN_WEIGHT_MODEL_OPTION_KEYS } from './dialect'
export type { ChatDialect, ChatReasoningEffort, ReasoningReplayField, ToolResultImageMode } from './dialect'
export { classifyChatError, generationFailedError, missingApiKeyError, truncatedStreamError, unsupportedContentError } from './errors'
export type { ClassifyContext } from './errors'
export { chatCompletionsProvider, lazyChatClient, streamChatCompletion } from './provider'
export type { ChatClientSettings, ChatProviderConfig } from './provider'
export { chatReasoningFields } from './reasoning'
export type { ReasoningFields, ReasoningInput } from './reasoning'
export { ReasoningDetailsCollector } from './reasoning-details'
export { consumeChatStream } from './stream'
export type { ChatStreamContext } from './stream'
export { wireToolCallId } from './tool-ids'
export type { ToolCallIdFormat } from './tool-ids'
export { chatFinishReason, chatTurnUsage } from './usage'
export type { ChatWireUsage, UsageContext } from './usage'
export { buildChatRequest } from './wire'
export type { ChatRequestInput } from './wire'
export type * from './wire-types'
