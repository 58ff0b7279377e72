/**
 * `zidane/providers/cerebras`: open-weight models on Cerebras' inference API
 * (OpenAI-compatible Chat Completions).
 *
 * ```ts
 * import { cerebras } from 'zidane/providers/cerebras'
 * const provider = cerebras({ defaultModel: 'gpt-oss-120b' })
 * ```
 *
 * @module zidane/providers/cerebras
 */

import type { ChatDialect, ChatReasoningEffort } from '../openai-chat'
import type { Provider } from '../types'
import { chatCompletionsProvider, lazyChatClient } from '../openai-chat'

/** Options of the `cerebras()` provider. */
export interface CerebrasParams {
  /** Defaults to `CEREBRAS_API_KEY`, read at the first request. */
  apiKey?: string | undefined
  /** Default `https://api.cerebras.ai/v1`. */
  baseURL?: string | undefined
  /** The model when a run names none. Default `gpt-oss-120b`. */
  defaultModel?: string
  /** Extra headers for every request. */
  headers?: Record<string, string>
  /** Request timeout in milliseconds (the SDK's default when unset). */
  timeoutMs?: number
  /**
   * The models in use take images. Default `false`: Cerebras serves text models,
   * so prompt images are refused before sending and tool-result images become a note.
   */
  images?: boolean
}

/** The model a run uses when it names none. */
export const DEFAULT_CEREBRAS_MODEL = 'gpt-oss-120b'
/** The public Cerebras inference endpoint. */
export const CEREBRAS_BASE_URL = 'https://api.cerebras.ai/v1'
const PROVIDER_NAME = 'cerebras'

const GPT_OSS_EFFORTS: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']

/** Only the gpt-oss models take `reasoning_effort`; the others reason (or not) on their own. */
function cerebrasReasoningEfforts(model: string): readonly ChatReasoningEffort[] {
  return model.startsWith('gpt-oss') ? GPT_OSS_EFFORTS : []
}

/**
 * Cerebras' dialect. Its API answers 400 to `frequency_penalty`,
 * `presence_penalty`, `logit_bias`, `parallel_tool_calls` and `service_tier`,
 * so `modelOptions` passes only the fields it documents.
 */
export function cerebrasDialect(images = false): ChatDialect {
  return {
    providerName: PROVIDER_NAME,
    maxTokensField: 'max_completion_tokens',
    reasoningField: 'reasoning_effort',
    reasoningEfforts: cerebrasReasoningEfforts,
    images,
    pdfFiles: false,
    toolResultImages: 'companion',
    cacheBreakpoints: () => false,
    replayReasoningDetails: false,
    usageInclude: false,
    modelOptionKeys: Object.freeze(['temperature', 'top_p', 'seed', 'stop', 'tool_choice', 'response_format', 'user']),
  }
}

/** Create the Cerebras provider. The client is built on the first request; a missing key fails it with `auth`. */
export function cerebras(params: CerebrasParams = {}): Provider {
  const dialect = cerebrasDialect(params.images)
  return chatCompletionsProvider({
    dialect,
    meta: { defaultModel: params.defaultModel ?? DEFAULT_CEREBRAS_MODEL },
    capabilities: {
      images: dialect.images,
      documents: false,
      toolResultMedia: dialect.images,
      thinking: true,
      promptCache: false,
    },
    client: lazyChatClient({
      providerName: PROVIDER_NAME,
      apiKey: () => params.apiKey ?? process.env.CEREBRAS_API_KEY,
      keyless: false,
      missingKeyHint: 'pass `apiKey` to cerebras() or set CEREBRAS_API_KEY',
      baseURL: () => params.baseURL ?? CEREBRAS_BASE_URL,
      headers: params.headers,
      timeoutMs: params.timeoutMs,
      openaiEnvironment: false,
    }),
  })
}
