/**
 * `zidane/providers/openai-compat`: any server that speaks OpenAI's Chat
 * Completions API: vLLM, llama.cpp, Ollama, LM Studio, SGLang, Groq,
 * Fireworks, Baseten, DeepSeek, Together, …
 *
 * ```ts
 * import { openaiCompat } from 'zidane/providers/openai-compat'
 * const provider = openaiCompat({ baseURL: 'http://127.0.0.1:8000/v1', defaultModel: 'Qwen/Qwen3-32B' })
 * ```
 *
 * The defaults suit the widest range of servers; every difference between
 * them is an option rather than a guess from the URL.
 *
 * @module zidane/providers/openai-compat
 */

import type { ChatDialect, ChatReasoningEffort, ReasoningReplayField, ToolCallIdFormat, ToolResultImageMode } from '../openai-chat'
import type { Provider } from '../types'
import { chatCompletionsProvider, lazyChatClient, OPEN_WEIGHT_MODEL_OPTION_KEYS } from '../openai-chat'

/** Options of the `openaiCompat()` provider. */
export interface OpenAICompatParams {
  /** The API root, usually ending in `/v1` (the client appends `/chat/completions`). */
  baseURL: string
  /** Sent as a bearer token. Without one, requests carry no `Authorization` header (local servers). */
  apiKey?: string | undefined
  /** `Provider.name`, stamped on usage and errors. Default `'openai-compat'`. */
  name?: string
  /** The model when a run names none. */
  defaultModel: string
  /** The default model's context window, when known. */
  contextWindow?: number
  /** Extra headers for every request. */
  headers?: Record<string, string>
  /** Request timeout in milliseconds (the SDK's default when unset). */
  timeoutMs?: number
  /**
   * Mark `cache_control` breakpoints (system, last tool, last message part) for
   * servers that honor them (Anthropic or Gemini behind a gateway). Default `false`:
   * most servers cache prefixes on their own and some reject unknown fields.
   */
  cacheBreakpoints?: boolean
  /**
   * Images in tool results: `'companion'` (default) puts them in a user message
   * right after the tool messages, for the many models and chat templates that
   * take only text in tool messages; `'inline'` keeps them in the tool message.
   */
  toolResultImages?: ToolResultImageMode
  /** The served models take images. Default `true`; `false` refuses prompt images and turns tool-result images into a note. */
  images?: boolean
  /** The server takes PDFs as `file` content parts. Default `false`: PDFs are refused before sending. */
  pdfFiles?: boolean
  /**
   * Where the thinking level goes: `'reasoning_effort'` (default; vLLM, Groq,
   * Fireworks, Ollama), `'reasoning'` for `reasoning: { effort }` (OpenRouter-style
   * gateways), or `false` to never send one.
   */
  reasoningField?: 'reasoning_effort' | 'reasoning' | false
  /** Efforts the server accepts, weakest first; levels are fitted to them. Default `low`, `medium`, `high`. */
  reasoningEfforts?: readonly ChatReasoningEffort[] | ((model: string) => readonly ChatReasoningEffort[])
  /**
   * Dotted request path for `thinkingBudget`, e.g. `'reasoning.max_tokens'`
   * or `'chat_template_kwargs.thinking_budget'`. When set and a run gives a
   * budget, the budget is sent instead of an effort and `maxTokens` grows by it.
   * Default: the budget is not sent.
   */
  thinkingBudgetField?: string
  /**
   * Send this model's earlier reasoning back on assistant messages, in this
   * field (`'reasoning_content'` for DeepSeek-style servers that want it with
   * tool calls). Default: not sent; reasoning of other models never is.
   */
  replayReasoning?: ReasoningReplayField
  /** The output-cap field. Default `'max_tokens'`, which every server reads. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens'
  /**
   * The tool-call ids the server accepts: `'standard'` (default; `[A-Za-z0-9_-]`,
   * at most 40 characters) or `'mistral'` (exactly nine letters and digits, for
   * Mistral's API and Mistral chat templates). Other ids are rewritten on the wire.
   */
  toolCallIds?: ToolCallIdFormat
  /** `modelOptions` keys copied into requests. Default: the common sampling fields plus `top_k`, `min_p`, `repetition_penalty`, `chat_template_kwargs`. */
  modelOptionKeys?: readonly string[]
  /**
   * Dotted chunk paths where the server reports usage outside the standard
   * `usage` field, read when no chunk carried `usage`. Default `['x_groq.usage']`
   * (Groq's compound models report usage only there).
   */
  usageFields?: readonly string[]
}

/** Usage fields outside the standard one that servers are known to use. */
export const VENDOR_USAGE_FIELDS: readonly string[] = Object.freeze(['x_groq.usage'])

const DEFAULT_EFFORTS: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']

/** The dialect an `openaiCompat()` provider speaks, from its params. */
export function openaiCompatDialect(params: Omit<OpenAICompatParams, 'baseURL' | 'defaultModel'>): ChatDialect {
  const efforts = params.reasoningEfforts ?? DEFAULT_EFFORTS
  const cache = params.cacheBreakpoints ?? false
  return {
    providerName: params.name ?? 'openai-compat',
    maxTokensField: params.maxTokensField ?? 'max_tokens',
    reasoningField: params.reasoningField ?? 'reasoning_effort',
    reasoningEfforts: typeof efforts === 'function' ? efforts : () => efforts,
    thinkingBudgetField: params.thinkingBudgetField,
    images: params.images ?? true,
    pdfFiles: params.pdfFiles ?? false,
    toolResultImages: params.toolResultImages ?? 'companion',
    cacheBreakpoints: () => cache,
    replayReasoningField: params.replayReasoning,
    replayReasoningDetails: false,
    usageInclude: false,
    modelOptionKeys: params.modelOptionKeys ?? OPEN_WEIGHT_MODEL_OPTION_KEYS,
    usageFields: params.usageFields ?? VENDOR_USAGE_FIELDS,
    ...(params.toolCallIds ? { toolCallIds: params.toolCallIds } : {}),
  }
}

/** Create a provider for an OpenAI-compatible server. The client is built on the first request. */
export function openaiCompat(params: OpenAICompatParams): Provider {
  const dialect = openaiCompatDialect(params)
  return chatCompletionsProvider({
    dialect,
    meta: { defaultModel: params.defaultModel, ...(params.contextWindow !== undefined ? { contextWindow: params.contextWindow } : {}) },
    capabilities: {
      images: dialect.images,
      documents: dialect.pdfFiles,
      toolResultMedia: dialect.images,
      thinking: dialect.reasoningField !== false || dialect.thinkingBudgetField !== undefined,
      promptCache: params.cacheBreakpoints ?? false,
    },
    client: lazyChatClient({
      providerName: dialect.providerName,
      apiKey: () => params.apiKey,
      keyless: true,
      missingKeyHint: 'pass `apiKey` to openaiCompat()',
      baseURL: () => params.baseURL,
      headers: params.headers,
      timeoutMs: params.timeoutMs,
      openaiEnvironment: false,
    }),
  })
}

export { buildChatRequest, classifyChatError, wireToolCallId } from '../openai-chat'
export type { ChatDialect, ChatReasoningEffort, ReasoningReplayField, ToolCallIdFormat, ToolResultImageMode } from '../openai-chat'
