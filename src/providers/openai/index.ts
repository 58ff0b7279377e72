/**
 * `zidane/providers/openai`: OpenAI's models through the Chat Completions API
 * (default) or the Responses API, streamed with the official `openai` client.
 *
 * ```ts
 * import { openai } from 'zidane/providers/openai'
 * const provider = openai({ defaultModel: 'gpt-5.2' })
 * ```
 *
 * @module zidane/providers/openai
 */

import type { ChatDialect } from '../openai-chat'
import type { Provider, StreamCallbacks, StreamOptions, TurnResult } from '../types'
import { chatDecisions, COMMON_MODEL_OPTION_KEYS, lazyChatClient, openaiReasoningEfforts, streamChatCompletion } from '../openai-chat'
import { streamResponses } from './responses'
import { responsesDecisions } from './responses/decisions'

/** Options of the `openai()` provider. */
export interface OpenAIParams {
  /** Defaults to `OPENAI_API_KEY`, read at the first request. */
  apiKey?: string | undefined
  /** With `/v1`; defaults to `OPENAI_BASE_URL`, then the public API. */
  baseURL?: string | undefined
  /** The model when a run names none. Default `gpt-5.2`. */
  defaultModel?: string
  /** Which API to call. Default `'chat'` (Chat Completions). */
  api?: 'chat' | 'responses'
  /** Sent as `OpenAI-Organization`; defaults to `OPENAI_ORG_ID` when set. */
  organization?: string
  /** Extra headers for every request. */
  headers?: Record<string, string>
  /** Request timeout in milliseconds (the SDK's default when unset). */
  timeoutMs?: number
}

/** The model a run uses when it names none. */
export const DEFAULT_OPENAI_MODEL = 'gpt-5.2'
const PROVIDER_NAME = 'openai'

/**
 * OpenAI's Chat Completions dialect. Prompt caching is automatic (no
 * breakpoints); tool messages take text only, so images in tool results go in
 * a companion user message; `maxTokens` is `max_completion_tokens`, the field
 * reasoning models require. `modelOptions` passes the common sampling fields
 * plus `service_tier`, `verbosity`, `prompt_cache_key` and `safety_identifier`.
 */
export const OPENAI_CHAT_DIALECT: ChatDialect = Object.freeze({
  providerName: PROVIDER_NAME,
  maxTokensField: 'max_completion_tokens',
  reasoningField: 'reasoning_effort',
  reasoningEfforts: openaiReasoningEfforts,
  images: true,
  pdfFiles: true,
  toolResultImages: 'companion',
  cacheBreakpoints: () => false,
  replayReasoningDetails: false,
  usageInclude: false,
  modelOptionKeys: Object.freeze([...COMMON_MODEL_OPTION_KEYS, 'service_tier', 'verbosity', 'prompt_cache_key', 'safety_identifier']),
})

/**
 * Create the OpenAI provider. Nothing is checked or connected here: the client
 * is built on the first `stream()`, so a provider can be created without a
 * key, and a missing key fails that first turn with an `auth` error.
 */
export function openai(params: OpenAIParams = {}): Provider {
  const client = lazyChatClient({
    providerName: PROVIDER_NAME,
    apiKey: () => params.apiKey ?? process.env.OPENAI_API_KEY,
    keyless: false,
    missingKeyHint: 'pass `apiKey` to openai() or set OPENAI_API_KEY',
    baseURL: () => params.baseURL ?? (process.env.OPENAI_BASE_URL || undefined),
    headers: params.headers,
    organization: params.organization,
    timeoutMs: params.timeoutMs,
    openaiEnvironment: true,
  })
  const stream = params.api === 'responses'
    ? async (options: StreamOptions, callbacks: StreamCallbacks): Promise<TurnResult> =>
      streamResponses(client(), options, callbacks, { providerName: PROVIDER_NAME })
    : (options: StreamOptions, callbacks: StreamCallbacks): Promise<TurnResult> =>
        streamChatCompletion(client, options, callbacks, OPENAI_CHAT_DIALECT)

  const defaultModel = params.defaultModel ?? DEFAULT_OPENAI_MODEL
  return {
    name: PROVIDER_NAME,
    meta: { defaultModel },
    capabilities: {
      images: true,
      documents: true,
      toolResultMedia: true,
      thinking: true,
      promptCache: false,
    },
    stream,
    decisions: params.api === 'responses'
      ? responsesDecisions(client, PROVIDER_NAME, defaultModel)
      : chatDecisions(client, OPENAI_CHAT_DIALECT, defaultModel, { thinking: 'minimal' }),
  }
}

export {
  buildChatRequest,
  classifyChatError,
  consumeChatStream,
  fitEffort,
  openaiReasoningEfforts,
  parseRetryAfter,
  wireToolCallId,
} from '../openai-chat'
export type { ChatDialect, ChatReasoningEffort, ChatRequestBody, ChatRequestInput } from '../openai-chat'
