/**
 * The Chat Completions request as this SDK writes it. Declared here rather
 * than taken from the `openai` package because the family's extensions
 * (`cache_control`, `reasoning_details`, `reasoning_content`, OpenRouter's
 * `reasoning` and `usage`) are not part of OpenAI's own types.
 */

import type { ChatReasoningEffort } from './dialect'

export interface CacheControl {
  type: 'ephemeral'
  ttl?: '1h'
}

export interface TextPart {
  type: 'text'
  text: string
  cache_control?: CacheControl
}

export interface ImagePart {
  type: 'image_url'
  /** A `data:` URL: the SDK never uploads media on its own. */
  image_url: { url: string }
  cache_control?: CacheControl
}

export interface FilePart {
  type: 'file'
  file: { filename: string, file_data: string }
  cache_control?: CacheControl
}

export type ContentPart = TextPart | ImagePart | FilePart

export interface SystemMessage {
  role: 'system'
  content: string | TextPart[]
}

export interface UserMessage {
  role: 'user'
  content: string | ContentPart[]
}

export interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string, arguments: string }
  /** Gemini's thought signature for the call, sent back to Gemini models only (see `gemini-signatures.ts`). */
  extra_content?: { google: { thought_signature: string } }
}

export interface AssistantMessage {
  role: 'assistant'
  content: string | null
  tool_calls?: WireToolCall[]
  reasoning_content?: string
  reasoning?: string
  reasoning_details?: unknown[]
}

export interface ToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string | ContentPart[]
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export interface ChatTool {
  type: 'function'
  function: { name: string, description: string, parameters: Record<string, unknown> }
  cache_control?: CacheControl
}

/** OpenRouter's unified reasoning switch. */
export interface RouterReasoning {
  effort?: ChatReasoningEffort
  max_tokens?: number
  enabled?: boolean
}

/** The Chat Completions request body the provider sends. */
export interface ChatRequestBody {
  model: string
  messages: ChatMessage[]
  tools?: ChatTool[]
  reasoning_effort?: ChatReasoningEffort
  reasoning?: RouterReasoning
  max_tokens?: number
  max_completion_tokens?: number
  stream: true
  stream_options: { include_usage: true }
  usage?: { include: true }
  /** Pass-through `modelOptions` and dialect-specific budget fields. */
  [field: string]: unknown
}
