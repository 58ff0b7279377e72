/**
 * What fills the context of the next request: bytes and estimated tokens of
 * the system prompt, the tool definitions and each category of message
 * content, measured on the messages as the wire pipeline would send them.
 * A diagnostic for hosts ("what is eating my window?"), not a billing figure.
 */

import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../core/content'
import type { ToolSpec } from '../providers/types'
import { utf8ByteLength } from '../text/utf8-length'

/** Size of one part of the request. */
export interface ContextSize {
  /** UTF-8 bytes (media: the length of its base64 payload). */
  bytes: number
  /** Estimated tokens: about four bytes per token for text, a flat allowance per image or video. */
  tokens: number
}

/** A counted part of the request: its size and how many items it has. */
export interface ContextPart extends ContextSize {
  count: number
}

/** The kinds of message content the breakdown tells apart. */
export type ContextMessageCategory
  = | 'user'
    | 'assistant'
    | 'injected'
    | 'thinking'
    | 'toolCalls'
    | 'toolResults'
    | 'media'
    | 'summaries'

/**
 * `agent.getContextBreakdown()`: the next request, part by part. `messages`
 * has every category (zeros included) so a host can chart it without checks.
 */
export interface ContextBreakdown {
  system: ContextSize
  /** The tool definitions the model is offered (name, description, input schema). */
  tools: ContextPart
  /**
   * Message content by kind: `user` (what a person wrote), `assistant`
   * (answer text), `injected` (text the loop wrote: nudges, continuations,
   * system notes), `thinking` (reasoning replayed to the provider),
   * `toolCalls`, `toolResults` (their text), `media` (images, audio, video,
   * documents, inside tool results too) and `summaries` (compaction summaries).
   */
  messages: Record<ContextMessageCategory, ContextPart>
  /** Messages the request would send. */
  messageCount: number
  /** System, tools and messages together. */
  total: ContextSize
  /** The serving model's window, when known, so `total.tokens` can be read against it. */
  contextWindow?: number
}

/** What the breakdown is measured on. */
export interface ContextBreakdownInput {
  system: string
  tools: readonly ToolSpec[]
  messages: readonly SessionMessage[]
  contextWindow?: number
}

/** Bytes per token of the estimate: the usual rule of thumb for English text and code. */
const BYTES_PER_TOKEN = 4
/** Tokens counted per image or video: the order of magnitude vision encoders bill for a full-size image. */
const TOKENS_PER_IMAGE = 1600

const CATEGORIES: readonly ContextMessageCategory[] = ['user', 'assistant', 'injected', 'thinking', 'toolCalls', 'toolResults', 'media', 'summaries']

function textTokens(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN)
}

/** Measure one request. Pure: the same input gives the same numbers. */
export function measureContext(input: ContextBreakdownInput): ContextBreakdown {
  const messages = Object.fromEntries(CATEGORIES.map(category => [category, { bytes: 0, tokens: 0, count: 0 }])) as Record<ContextMessageCategory, ContextPart>
  const add = (category: ContextMessageCategory, bytes: number, tokens = textTokens(bytes)) => {
    const part = messages[category]
    part.bytes += bytes
    part.tokens += tokens
    part.count += 1
  }
  for (const message of input.messages) {
    for (const block of message.content)
      measureBlock(block, message.role, add)
  }

  const systemBytes = utf8ByteLength(input.system)
  const system = { bytes: systemBytes, tokens: textTokens(systemBytes) }
  let toolBytes = 0
  for (const spec of input.tools)
    toolBytes += utf8ByteLength(JSON.stringify({ name: spec.name, description: spec.description, input_schema: spec.inputSchema }))
  const tools = { bytes: toolBytes, tokens: textTokens(toolBytes), count: input.tools.length }

  const total = { bytes: system.bytes + tools.bytes, tokens: system.tokens + tools.tokens }
  for (const category of CATEGORIES) {
    total.bytes += messages[category].bytes
    total.tokens += messages[category].tokens
  }
  const breakdown: ContextBreakdown = { system, tools, messages, messageCount: input.messages.length, total }
  if (input.contextWindow !== undefined)
    breakdown.contextWindow = input.contextWindow
  return breakdown
}

type Add = (category: ContextMessageCategory, bytes: number, tokens?: number) => void

function measureBlock(block: SessionContentBlock, role: SessionMessage['role'], add: Add): void {
  switch (block.type) {
    case 'text':
      add(block.origin === 'injected' || block.systemNote !== undefined ? 'injected' : role === 'user' ? 'user' : 'assistant', utf8ByteLength(block.text))
      return
    case 'thinking':
      add('thinking', utf8ByteLength(block.text))
      return
    case 'redacted_thinking':
      add('thinking', block.data.length)
      return
    case 'provider_reasoning':
      add('thinking', utf8ByteLength(JSON.stringify(block.producer === 'vllm' ? block.reasoningText : block.details)))
      return
    case 'tool_call':
    case 'server_tool_use':
      add('toolCalls', utf8ByteLength(block.name) + utf8ByteLength(JSON.stringify(block.input)))
      return
    case 'tool_result':
      measureToolOutput(block.output, add)
      return
    case 'server_tool_result':
      add('toolResults', utf8ByteLength(JSON.stringify(block.content ?? null)))
      return
    case 'compact-summary':
      add('summaries', utf8ByteLength(block.summary))
      return
    case 'image':
    case 'video':
      add('media', block.data?.length ?? 0, TOKENS_PER_IMAGE)
      return
    case 'audio':
    case 'document':
      add('media', block.data?.length ?? 0)
  }
}

/** A tool result's text counts as a result; its attachments count as media. */
function measureToolOutput(output: string | ToolResultContent[], add: Add): void {
  if (typeof output === 'string') {
    add('toolResults', utf8ByteLength(output))
    return
  }
  let text = 0
  for (const part of output) {
    if (part.type === 'text')
      text += utf8ByteLength(part.text)
    else
      add('media', part.data?.length ?? 0, part.type === 'image' || part.type === 'video' ? TOKENS_PER_IMAGE : undefined)
  }
  add('toolResults', text)
}
