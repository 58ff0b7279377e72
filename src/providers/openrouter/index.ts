/**
 * `zidane/providers/openrouter`: hundreds of models behind OpenRouter's
 * Chat Completions API, with its extensions: the provider-reported cost of
 * every turn, structured reasoning kept across turns, and prompt-cache
 * breakpoints on Anthropic routes.
 *
 * ```ts
 * import { openrouter } from 'zidane/providers/openrouter'
 * const provider = openrouter({ defaultModel: 'anthropic/claude-sonnet-4.5' })
 * ```
 *
 * @module zidane/providers/openrouter
 */

import type { ChatDialect, ChatReasoningEffort, ToolResultImageMode } from '../openai-chat'
import type { Provider } from '../types'
import { chatCompletionsProvider, lazyChatClient, OPEN_WEIGHT_MODEL_OPTION_KEYS } from '../openai-chat'

/** Options of the `openrouter()` provider. */
export interface OpenRouterParams {
  /** Defaults to `OPENROUTER_API_KEY`, read at the first request. */
  apiKey?: string | undefined
  /** Default `https://openrouter.ai/api/v1`. */
  baseURL?: string | undefined
  /** The model when a run names none. Default `anthropic/claude-sonnet-4.5`. */
  defaultModel?: string
  /** Extra headers, e.g. OpenRouter's `HTTP-Referer` and `X-Title` app attribution. */
  headers?: Record<string, string>
  /** Request timeout in milliseconds (the SDK's default when unset). */
  timeoutMs?: number
  /** Images in tool results: in a companion user message (default) or inside the tool message. */
  toolResultImages?: ToolResultImageMode
}

/** The model a run uses when it names none. */
export const DEFAULT_OPENROUTER_MODEL = 'anthropic/claude-sonnet-4.5'
/** The public OpenRouter API root. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1'
const PROVIDER_NAME = 'openrouter'

/** OpenRouter normalizes effort across vendors and accepts every level up to `xhigh`. */
const ROUTER_EFFORTS: readonly ChatReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh']

/**
 * Anthropic models need explicit `cache_control` breakpoints (with `ttl`, no
 * beta header needed here); other routes cache on their own or not at all.
 */
export function isAnthropicRoute(model: string): boolean {
  return model.startsWith('anthropic/')
}

/**
 * OpenRouter's dialect: the level as `reasoning: { effort }`, a
 * `thinkingBudget` as `reasoning.max_tokens`, `reasoning_details` replayed to
 * the model that produced them, PDFs as `file` parts, `usage: { include: true }`
 * so the reported cost lands in `TurnUsage.cost`. `modelOptions` adds the
 * routing fields `provider`, `models`, `transforms` and `route` to the common ones.
 */
export function openrouterDialect(toolResultImages: ToolResultImageMode = 'companion'): ChatDialect {
  return {
    providerName: PROVIDER_NAME,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning',
    reasoningEfforts: () => ROUTER_EFFORTS,
    thinkingBudgetField: 'reasoning.max_tokens',
    images: true,
    pdfFiles: true,
    toolResultImages,
    cacheBreakpoints: isAnthropicRoute,
    replayReasoningDetails: true,
    usageInclude: true,
    modelOptionKeys: Object.freeze([...OPEN_WEIGHT_MODEL_OPTION_KEYS, 'verbosity', 'provider', 'models', 'transforms', 'route']),
  }
}

/** Create the OpenRouter provider. The client is built on the first request; a missing key fails it with `auth`. */
export function openrouter(params: OpenRouterParams = {}): Provider {
  return chatCompletionsProvider({
    dialect: openrouterDialect(params.toolResultImages),
    // Only upstreams that honor `response_format` may serve a decision; others would answer free text.
    decisions: { extraBody: { provider: { require_parameters: true } } },
    meta: { defaultModel: params.defaultModel ?? DEFAULT_OPENROUTER_MODEL },
    capabilities: {
      images: true,
      documents: true,
      toolResultMedia: true,
      thinking: true,
      promptCache: true,
    },
    client: lazyChatClient({
      providerName: PROVIDER_NAME,
      apiKey: () => params.apiKey ?? process.env.OPENROUTER_API_KEY,
      keyless: false,
      missingKeyHint: 'pass `apiKey` to openrouter() or set OPENROUTER_API_KEY',
      baseURL: () => params.baseURL ?? OPENROUTER_BASE_URL,
      headers: params.headers,
      timeoutMs: params.timeoutMs,
      openaiEnvironment: false,
    }),
  })
}
