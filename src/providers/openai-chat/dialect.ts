/**
 * What sets one Chat Completions API apart from another. OpenAI, OpenRouter,
 * Cerebras and the self-hosted servers (vLLM, llama.cpp, Ollama, …) share one
 * wire builder and one stream consumer; each factory describes its API with a
 * `ChatDialect` instead of branching on its name.
 */

import type { ChatReasoningEffort } from '../shared/reasoning-effort'
import type { ToolCallIdFormat } from './tool-ids'

export { CHAT_REASONING_EFFORTS } from '../shared/reasoning-effort'
export type { ChatReasoningEffort } from '../shared/reasoning-effort'

/** How images inside tool results reach the model. */
export type ToolResultImageMode = 'inline' | 'companion'

/** Assistant-message fields that carry reasoning text on servers that accept it back. */
export type ReasoningReplayField = 'reasoning_content' | 'reasoning'

/** The differences between Chat Completions servers, as settings rather than URL sniffing. */
export interface ChatDialect {
  /** `Provider.name`; stamped on errors and usage. */
  providerName: string
  /** The request field of the output cap. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens'
  /**
   * Where the thinking level goes: top-level `reasoning_effort` (OpenAI, vLLM,
   * Groq, Fireworks, Cerebras), `reasoning: { effort }` (OpenRouter), or nowhere.
   */
  reasoningField: 'reasoning_effort' | 'reasoning' | false
  /** Efforts a model accepts, weakest first; empty when it takes no effort field at all. */
  reasoningEfforts: (model: string) => readonly ChatReasoningEffort[]
  /**
   * Dotted request path for `thinkingBudget` (`reasoning.max_tokens` on
   * OpenRouter, `thinking_budget`, `chat_template_kwargs.thinking_budget`, …).
   * Unset: the budget is not sent.
   */
  thinkingBudgetField?: string
  /** Images in prompts and tool results. Off: prompt images are refused, tool-result images become a note. */
  images: boolean
  /** PDFs as `file` content parts. Off: PDFs are refused before anything is sent. */
  pdfFiles: boolean
  /** Images in tool results: inside the tool message, or in a user message right after it. */
  toolResultImages: ToolResultImageMode
  /** Whether requests for this model carry `cache_control` breakpoints. */
  cacheBreakpoints: (model: string) => boolean
  /** Replay earlier reasoning text of the same model in this assistant-message field. */
  replayReasoningField?: ReasoningReplayField
  /** Replay OpenRouter `reasoning_details` of the same model. */
  replayReasoningDetails: boolean
  /** Ask for the provider-reported cost with `usage: { include: true }` (OpenRouter). */
  usageInclude: boolean
  /** `StreamOptions.modelOptions` keys copied verbatim into the body; every other key is ignored. */
  modelOptionKeys: readonly string[]
  /**
   * Dotted chunk paths where the server reports usage outside the standard
   * `usage` field (`x_groq.usage`). Read only when no chunk carried `usage`.
   */
  usageFields?: readonly string[]
  /** The tool-call ids the server accepts. Unset: `'standard'` (`[A-Za-z0-9_-]`, at most 40). */
  toolCallIds?: ToolCallIdFormat
}

/**
 * Request fields every Chat Completions API documents the same way. Fields the
 * SDK sets itself (messages, tools, reasoning, output caps, streaming) are
 * never taken from `modelOptions`, so an option cannot break the request shape.
 */
export const COMMON_MODEL_OPTION_KEYS: readonly string[] = Object.freeze([
  'temperature',
  'top_p',
  'seed',
  'stop',
  'frequency_penalty',
  'presence_penalty',
  'parallel_tool_calls',
  'tool_choice',
  'response_format',
  'user',
])

/** Sampling and template switches that self-hosted servers and routers add on top. */
export const OPEN_WEIGHT_MODEL_OPTION_KEYS: readonly string[] = Object.freeze([
  ...COMMON_MODEL_OPTION_KEYS,
  'top_k',
  'min_p',
  'repetition_penalty',
  'chat_template_kwargs',
])
