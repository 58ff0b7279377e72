/**
 * Provider-neutral options → one Chat Completions request body. Pure and
 * deterministic: the same input always gives the same bytes, and appending a
 * message leaves every earlier byte alone except the moving cache breakpoint.
 * That is what keeps prompt caches (automatic or `cache_control`) warm.
 */

import type { SessionContentBlock, SessionMessage } from '../../core/content'
import type { StreamOptions, ToolSpec } from '../types'
import type { ChatDialect } from './dialect'
import type { ContentRules } from './wire-content'
import type {
  AssistantMessage,
  CacheControl,
  ChatMessage,
  ChatRequestBody,
  ChatTool,
  ContentPart,
  SystemMessage,
  ToolMessage,
  UserMessage,
  WireToolCall,
} from './wire-types'
import { mergeObjects } from '../../core/merge-objects'
import { pushAll } from '../../core/push-all'
import { wellFormedText } from '../../text/well-formed-text'
import { cacheControlFor as sharedCacheControl } from '../shared/cache-control'
import { compactSummaryText } from '../shared/content-rules'
import { orderToolResults } from '../shared/result-order'
import { WireFormMemo } from '../shared/wire-form-memo'
import { wellFormedBlock, wellFormedTool, wellFormedValue } from '../well-formed'
import { geminiSignatureField } from './gemini-signatures'
import { chatReasoningFields } from './reasoning'
import { wireToolCallId } from './tool-ids'
import { companionIntro, textPart, toolResultWire, userContentPart } from './wire-content'

/** Everything one request needs; the same fields as `StreamOptions` minus the signal. */
export type ChatRequestInput = Omit<StreamOptions, 'signal'>

interface BuildContext {
  dialect: ChatDialect
  rules: ContentRules
  model: string
  /** Text content as part arrays, so a breakpoint can be added or removed without reshaping a message. */
  asParts: boolean
}

/**
 * Build the request for one turn. Throws a `ClassifiedError` of kind
 * `unsupported` (before anything is sent) for content the API cannot take.
 *
 * `modelOptions`: only the keys listed in `dialect.modelOptionKeys` are copied,
 * verbatim and in that list's order; every other key is ignored, as the
 * provider contract asks. Reasoning, output caps and streaming fields are
 * never taken from `modelOptions`.
 */
export function buildChatRequest(input: ChatRequestInput, dialect: ChatDialect): ChatRequestBody {
  const cacheControl = cacheControlFor(input, dialect)
  const context: BuildContext = {
    dialect,
    rules: { providerName: dialect.providerName, images: dialect.images, pdfFiles: dialect.pdfFiles, toolResultImages: dialect.toolResultImages },
    model: input.model,
    asParts: cacheControl !== undefined,
  }

  const messages: ChatMessage[] = []
  if (input.system)
    messages.push(systemMessage(wellFormedText(input.system), cacheControl))
  addConversation(messages, input.messages, context)
  if (cacheControl)
    markLastMessage(messages, cacheControl)

  const reasoning = chatReasoningFields(input, dialect)
  return {
    model: input.model,
    messages,
    ...(input.tools.length > 0 ? { tools: wireTools(input.tools, cacheControl) } : {}),
    ...reasoning.fields,
    ...(reasoning.maxTokens !== undefined ? { [dialect.maxTokensField]: reasoning.maxTokens } : {}),
    ...passThrough(input.modelOptions, dialect.modelOptionKeys),
    stream: true,
    stream_options: { include_usage: true },
    ...(dialect.usageInclude ? { usage: { include: true } } : {}),
  }
}

/** The shared marker (see `../shared/cache-control`), on servers whose dialect takes breakpoints for this model. */
function cacheControlFor(input: ChatRequestInput, dialect: ChatDialect): CacheControl | undefined {
  return dialect.cacheBreakpoints(input.model) ? sharedCacheControl(input) : undefined
}

/**
 * The system message without a breakpoint, by its (well-formed) text: the
 * same object on every request, so its JSON is written once (see
 * `../shared/body-json.ts`). A few prompts at most per process; the map is
 * emptied when it passes `MAX_SYSTEM_MESSAGES`.
 */
const plainSystemMessages = new Map<string, SystemMessage>()
const MAX_SYSTEM_MESSAGES = 32

function systemMessage(system: string, cacheControl: CacheControl | undefined): SystemMessage {
  if (cacheControl)
    return { role: 'system', content: [mergeObjects(textPart(system), { cache_control: cacheControl })] }
  let message = plainSystemMessages.get(system)
  if (message === undefined) {
    if (plainSystemMessages.size >= MAX_SYSTEM_MESSAGES)
      plainSystemMessages.clear()
    message = { role: 'system', content: system }
    plainSystemMessages.set(system, message)
  }
  return message
}

/** Each tool's wire object without a breakpoint, by its spec (specs are not edited, as `wellFormedTool` already assumes). */
const plainTools = new WeakMap<ToolSpec, ChatTool>()

function wireTools(tools: readonly ToolSpec[], cacheControl: CacheControl | undefined): ChatTool[] {
  return tools.map((spec, index) => {
    const wire = plainTool(spec)
    return cacheControl && index === tools.length - 1 ? mergeObjects(wire, { cache_control: cacheControl }) : wire
  })
}

function plainTool(spec: ToolSpec): ChatTool {
  let wire = plainTools.get(spec)
  if (wire === undefined) {
    const tool = wellFormedTool(spec)
    wire = { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }
    plainTools.set(spec, wire)
  }
  return wire
}

/**
 * Session messages → wire messages appended to `out`, one session message at a time. A user
 * message becomes its tool results (one `tool` message each, in the order of
 * the calls they answer) followed by at most one user message holding the
 * attachments of those results and the message's own content.
 */
function addConversation(out: ChatMessage[], messages: readonly SessionMessage[], context: BuildContext): void {
  let previous: SessionMessage | undefined
  for (const message of messages) {
    // A user message's tool results are ordered by the calls of the assistant message right before it.
    const answering = message.role === 'user' && previous?.role === 'assistant' ? previous.content : undefined
    for (const wire of wireFormOf(message, answering, context))
      out.push(wire)
    previous = message
  }
}

/** Each message's wire form, kept while the message, the dialect, the model and the text shape stay the same. */
const converted = new WireFormMemo<BuildContext, readonly ChatMessage[]>((kept, now) =>
  kept.dialect === now.dialect && kept.model === now.model && kept.asParts === now.asParts)

function wireFormOf(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined, context: BuildContext): readonly ChatMessage[] {
  const known = converted.get(message, answering, context)
  if (known)
    return known
  const wire = convertMessage(message, answering, context)
  // Media stay out: a remembered data URL would keep a second copy of the image alive for the whole session.
  if (!wire.some(carriesMedia))
    converted.set(message, answering, context, wire)
  return wire
}

/** Text is made well-formed here (see `../well-formed`), so once per message thanks to the memo above. */
function convertMessage(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined, context: BuildContext): ChatMessage[] {
  const blocks = message.content.map(wellFormedBlock)
  if (message.role === 'assistant') {
    const wire = assistantMessage(blocks, context)
    return wire ? [wire] : []
  }
  return userTurn(blocks, answering, context)
}

function carriesMedia(message: ChatMessage): boolean {
  return Array.isArray(message.content) && message.content.some(part => part.type !== 'text')
}

function userTurn(blocks: readonly SessionContentBlock[], answering: readonly SessionContentBlock[] | undefined, context: BuildContext): ChatMessage[] {
  const out: ChatMessage[] = []
  const userParts: ContentPart[] = []
  for (const result of orderToolResults(blocks, answering)) {
    const wireId = wireToolCallId(result.callId, context.dialect.toolCallIds)
    const { message, attachments } = toolResultWire(result, wireId, context.rules)
    out.push(context.asParts ? toolMessageAsParts(message) : message)
    if (attachments.length > 0)
      userParts.push(companionIntro(wireId))
    pushAll(userParts, attachments)
  }
  for (const block of blocks) {
    const part = block.type === 'tool_result' ? undefined : userContentPart(block, context.rules)
    if (part)
      userParts.push(part)
  }
  if (userParts.length > 0)
    out.push(userMessage(userParts, context.asParts))
  return out
}

/** Plain text as one string where no breakpoint may be needed: the most widely accepted form. */
function userMessage(parts: ContentPart[], asParts: boolean): UserMessage {
  if (!asParts && parts.every(part => part.type === 'text'))
    return { role: 'user', content: parts.map(part => part.text).join('\n\n') }
  return { role: 'user', content: parts }
}

/** An empty output stays a string: an empty text part is rejected by some backends. */
function toolMessageAsParts(message: ToolMessage): ToolMessage {
  return typeof message.content === 'string' && message.content
    ? mergeObjects(message, { content: [textPart(message.content)] })
    : message
}

/**
 * Text and tool calls of an assistant message. Thinking blocks are never sent:
 * their signatures belong to other APIs. This model's own reasoning is replayed
 * only where the dialect says the API accepts it back, and only to the model
 * that produced it.
 */
function assistantMessage(blocks: readonly SessionContentBlock[], context: BuildContext): AssistantMessage | undefined {
  const texts: string[] = []
  const calls: WireToolCall[] = []
  const reasoning: string[] = []
  const details: unknown[] = []
  const sameModel = (model: string | undefined) => model === undefined || model === context.model
  for (const block of blocks) {
    if (block.type === 'text' && block.text) {
      texts.push(block.text)
    }
    else if (block.type === 'compact-summary') {
      texts.push(compactSummaryText(block.summary))
    }
    else if (block.type === 'tool_call') {
      calls.push({ id: wireToolCallId(block.id, context.dialect.toolCallIds), type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) }, ...geminiSignatureField(block, context.model) })
    }
    else if (block.type === 'provider_reasoning' && sameModel(block.model)) {
      if (block.producer === 'openrouter' && context.dialect.replayReasoningDetails)
        pushAll(details, block.details)
      else if (block.producer === 'vllm' && context.dialect.replayReasoningField)
        reasoning.push(block.reasoningText)
    }
  }
  if (texts.length === 0 && calls.length === 0)
    return undefined

  const message: AssistantMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('\n\n') : null }
  if (reasoning.length > 0 && context.dialect.replayReasoningField)
    message[context.dialect.replayReasoningField] = reasoning.join('')
  if (details.length > 0)
    message.reasoning_details = details
  if (calls.length > 0)
    message.tool_calls = calls
  return message
}

/** The conversation breakpoint goes on the last part of the latest user or tool message that has parts. */
function markLastMessage(messages: ChatMessage[], cacheControl: CacheControl): void {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if ((message.role === 'user' || message.role === 'tool') && Array.isArray(message.content) && message.content.length > 0) {
      const parts = message.content.map((part, index, all) => index === all.length - 1 ? mergeObjects(part, { cache_control: cacheControl }) : part)
      messages[i] = mergeObjects(message, { content: parts })
      return
    }
  }
}

function passThrough(options: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!options)
    return out
  for (const key of keys) {
    if (Object.hasOwn(options, key) && options[key] !== undefined)
      out[key] = wellFormedValue(options[key])
  }
  return out
}
