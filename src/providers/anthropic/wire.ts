/**
 * Provider-neutral options → one Messages API request body. Pure and
 * deterministic: the same input always gives the same bytes, and appending a
 * message leaves every earlier byte alone except the block that carried the
 * moving cache breakpoint. That is what keeps Anthropic's prompt cache warm.
 */

import type { BetaContextManagementConfig } from '@anthropic-ai/sdk/resources/beta/messages'
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages'
import type { SessionContentBlock, SessionMessage } from '../../core/content'
import type { StreamOptions, ToolSpec } from '../types'
import type { AnthropicOutputConfig, AnthropicThinkingConfig } from './thinking'
import { pushAll } from '../../core/push-all'
import { wellFormedText } from '../../text/well-formed-text'
import { sameItems } from '../../wire/messages'
import { cacheControlFor } from '../shared/cache-control'
import { orderToolResults } from '../shared/result-order'
import { wellFormedBlock, wellFormedTool } from '../well-formed'
import { findAnthropicModel } from './models'
import { anthropicThinkingFields } from './thinking'
import { acceptsCacheControl, toWireBlock } from './wire-content'

export const EXTENDED_CACHE_TTL_BETA = 'extended-cache-ttl-2025-04-11'
export const FAST_MODE_BETA = 'fast-mode-2026-02-01'
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27'
/** Makes the API report (in `input_transformations`) replayed thinking blocks it dropped or let through unverified. */
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01'

/** The request body, typed by the SDK where its non-beta types cover the field. */
export type AnthropicRequestBody = Omit<MessageCreateParamsBase, 'thinking' | 'output_config' | 'stream'> & {
  thinking?: AnthropicThinkingConfig
  output_config?: AnthropicOutputConfig
  context_management?: BetaContextManagementConfig
}

/** A Messages API request body together with the beta headers it needs. */
export interface AnthropicRequest {
  body: AnthropicRequestBody
  /** `anthropic-beta` values the body needs, in a stable order. */
  betas: string[]
}

/** Everything one request needs; the same fields as `StreamOptions` minus the signal. */
export type AnthropicRequestInput = Omit<StreamOptions, 'signal'>

/** Settings of the request that do not come from the run's `StreamOptions`. */
export interface AnthropicRequestSettings {
  /** Server-side context editing, sent as `context_management` with its beta. */
  contextManagement?: BetaContextManagementConfig
}

/**
 * Build the request for one turn. Throws a `ClassifiedError` of kind
 * `unsupported` (before anything is sent) for content the API cannot take.
 *
 * Model switches read from `modelOptions`: `fast: true` → `speed: 'fast'`
 * (plus the fast-mode beta, which some models require). Other keys are ignored.
 */
export function buildAnthropicRequest(input: AnthropicRequestInput, settings: AnthropicRequestSettings = {}): AnthropicRequest {
  const cacheControl = cacheControlFor(input)
  const betas: string[] = []
  if (cacheControl?.ttl === '1h')
    betas.push(EXTENDED_CACHE_TTL_BETA)

  const thinking = anthropicThinkingFields(input, findAnthropicModel(input.model))
  pushAll(betas, thinking.betas)

  const wire = buildWire(input.messages, cacheControl)
  // Fields are added in one fixed order: the prefix (system, tools) always serializes first.
  const body: AnthropicRequestBody = {
    model: input.model,
    max_tokens: thinking.maxTokens,
    ...(input.system ? { system: [systemBlock(input.system, cacheControl)] } : {}),
    ...(input.tools.length > 0 ? { tools: wireTools(input.tools, cacheControl) } : {}),
    messages: wire.messages,
  }
  if (thinking.thinking)
    body.thinking = thinking.thinking
  if (thinking.outputConfig)
    body.output_config = thinking.outputConfig
  if (input.modelOptions?.fast === true) {
    body.speed = 'fast'
    betas.push(FAST_MODE_BETA)
  }
  if (settings.contextManagement) {
    body.context_management = settings.contextManagement
    betas.push(CONTEXT_MANAGEMENT_BETA)
  }
  if (wire.replaysThinking)
    betas.push(THINKING_BINDING_BETA)
  return { body, betas: [...new Set(betas)] }
}

/** Whether a converted message sends a thinking block back: only then can the API drop one, and only with the binding beta does it say so. */
function replaysThinking(content: readonly ContentBlockParam[]): boolean {
  for (const block of content) {
    if (block.type === 'thinking' || block.type === 'redacted_thinking')
      return true
  }
  return false
}

function withCacheControl<T extends object>(block: T, cacheControl: CacheControlEphemeral | undefined): T {
  // `Object.assign` rather than a spread plus a property: the same object, without V8 11's slow path.
  return cacheControl ? Object.assign({}, block, { cache_control: cacheControl }) : block
}

/*
 * The system block and each tool keep their wire object from one request to
 * the next, as the messages do, so the request's JSON reuses their pieces
 * (`../shared/body-json.ts`): a long system prompt or a large tool list is not
 * written again on every turn. A breakpoint is named by its TTL, the only
 * thing that tells two apart.
 */
type BreakpointKey = 'none' | '5m' | '1h'

function breakpointKey(cacheControl: CacheControlEphemeral | undefined): BreakpointKey {
  return cacheControl === undefined ? 'none' : cacheControl.ttl === '1h' ? '1h' : '5m'
}

/** A wire object and the breakpoint it was built with. */
interface Marked<T> {
  key: BreakpointKey
  wire: T
}

/** By the prompt's text: a run sends the same prompt on every turn. Cleared when full, so many agents' prompts cannot pile up. */
const systemBlocks = new Map<string, Marked<TextBlockParam>>()
const MAX_SYSTEM_BLOCKS = 32

function systemBlock(system: string, cacheControl: CacheControlEphemeral | undefined): TextBlockParam {
  const key = breakpointKey(cacheControl)
  const known = systemBlocks.get(system)
  if (known?.key === key)
    return known.wire
  const wire = withCacheControl<TextBlockParam>({ type: 'text', text: wellFormedText(system) }, cacheControl)
  if (systemBlocks.size >= MAX_SYSTEM_BLOCKS)
    systemBlocks.clear()
  systemBlocks.set(system, { key, wire })
  return wire
}

/** Each tool's wire object without a breakpoint, by its spec (specs are not edited, as `wellFormedTool` already assumes). */
const plainTools = new WeakMap<ToolSpec, Tool>()
/** The last tool's wire object with the breakpoint, by its plain object. */
const markedTools = new WeakMap<Tool, Marked<Tool>>()

function wireTools(tools: readonly ToolSpec[], cacheControl: CacheControlEphemeral | undefined): Tool[] {
  return tools.map((spec, index) => index === tools.length - 1 ? markedTool(plainTool(spec), cacheControl) : plainTool(spec))
}

function plainTool(spec: ToolSpec): Tool {
  let wire = plainTools.get(spec)
  if (wire === undefined) {
    const tool = wellFormedTool(spec)
    wire = { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool['input_schema'] }
    plainTools.set(spec, wire)
  }
  return wire
}

function markedTool(plain: Tool, cacheControl: CacheControlEphemeral | undefined): Tool {
  if (cacheControl === undefined)
    return plain
  const key = breakpointKey(cacheControl)
  const known = markedTools.get(plain)
  if (known?.key === key)
    return known.wire
  const wire = withCacheControl(plain, cacheControl)
  markedTools.set(plain, { key, wire })
  return wire
}

/** One wire message; never edited once built (a merge or a breakpoint makes a new one). */
interface WireEntry {
  role: 'user' | 'assistant'
  content: ContentBlockParam[]
}

/**
 * What a conversation's last request was built from: the messages, each one's
 * converted record, the number of wire messages after each, and those wire
 * messages (without the breakpoint). Keyed by the conversation's first
 * message object, which the wire pipeline hands every request of a run
 * (`../../wire/pipeline.ts`), so a run has one entry and each request
 * converts only the messages after the part that is unchanged: building the
 * request costs what the turn added, not the whole conversation.
 */
interface WirePrefix {
  inputs: SessionMessage[]
  records: ConvertedContent[]
  ends: number[]
  entries: WireEntry[]
}

const prefixes = new WeakMap<SessionMessage, WirePrefix>()

/**
 * Convert (text made well-formed, see `../well-formed`), drop what this API
 * never sees, and merge consecutive messages of the same role (the API
 * rejects two user messages in a row). A user message's tool results go
 * first, in the order of the calls they answer (the API wants them before
 * any text, see `../shared/result-order`). The last block that can carry one
 * gets the conversation's cache breakpoint.
 */
export function wireMessages(messages: readonly SessionMessage[], cacheControl?: CacheControlEphemeral): MessageParam[] {
  return buildWire(messages, cacheControl).messages
}

/**
 * The wire messages, and whether any of them replays thinking, read from
 * each message's converted record (a flag set once when it was converted)
 * rather than from every block of the conversation on every request.
 */
function buildWire(messages: readonly SessionMessage[], cacheControl: CacheControlEphemeral | undefined): { messages: MessageParam[], replaysThinking: boolean } {
  const first = messages[0]
  let prefix = first === undefined ? undefined : prefixes.get(first)
  if (!prefix) {
    prefix = { inputs: [], records: [], ends: [], entries: [] }
    if (first !== undefined)
      prefixes.set(first, prefix)
  }
  const from = reusablePrefix(prefix, messages)
  const wire = prefix.entries
  let before: SessionMessage | undefined = messages[from - 1]
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]
    const answering = before?.role === 'assistant' ? before.content : undefined
    before = message
    const record = convertedContent(message, answering)
    prefix.inputs.push(message)
    prefix.records.push(record)
    const content = record.content
    if (content.length > 0) {
      const previous = wire.at(-1)
      // Converted arrays are shared with later requests: a merge or a breakpoint copies, never edits them.
      if (previous && previous.role === message.role)
        wire[wire.length - 1] = { role: previous.role, content: [...previous.content, ...content] }
      else
        wire.push({ role: message.role, content })
    }
    prefix.ends.push(wire.length)
  }

  const sent = wire.slice()
  const last = sent.at(-1)
  if (cacheControl && last) {
    const index = last.content.findLastIndex(acceptsCacheControl)
    if (index >= 0) {
      const content = [...last.content]
      content[index] = withCacheControl(content[index], cacheControl)
      sent[sent.length - 1] = { role: last.role, content }
    }
  }
  let thinking = false
  for (const record of prefix.records) {
    if (record.replaysThinking) {
      thinking = true
      break
    }
  }
  return { messages: sent, replaysThinking: thinking }
}

/**
 * How many of `messages` can keep the wire messages the last request built
 * from them: the leading messages that are the same objects with the same
 * blocks, less those that went into the last wire message they built (a
 * message after them may merge into it). Trims `prefix` to that point and
 * returns it.
 */
function reusablePrefix(prefix: WirePrefix, messages: readonly SessionMessage[]): number {
  const { inputs, records, ends } = prefix
  const known = Math.min(inputs.length, messages.length)
  let same = 0
  while (same < known && messages[same] === inputs[same] && unchanged(records[same], messages[same]))
    same++
  const length = same === 0 ? 0 : ends[same - 1]
  let from = same
  while (from > 0 && ends[from - 1] === length)
    from--
  // `from` messages are kept; the wire message the last of them would grow is rebuilt from its first message.
  inputs.length = records.length = ends.length = from
  prefix.entries.length = from === 0 ? 0 : ends[from - 1]
  return from
}

function unchanged(record: ConvertedContent, message: SessionMessage): boolean {
  return record.role === message.role && sameItems(record.blocks, message.content)
}

/** One message's converted blocks, remembered with what they were built from. */
interface ConvertedContent {
  role: SessionMessage['role']
  /** The blocks and the answered calls at conversion time, so content changed in place is converted afresh. */
  blocks: readonly SessionContentBlock[]
  answering: readonly SessionContentBlock[] | undefined
  content: ContentBlockParam[]
  /** Whether `content` holds a thinking block the API gets back. */
  replaysThinking: boolean
}

/**
 * Keyed by a message's content array, so an entry lives as long as the turn it
 * was built from. Recorded turns do not change, so each is converted once per
 * run instead of once per request: without it every turn would redo the whole
 * conversation.
 */
const convertedMessages = new WeakMap<readonly SessionContentBlock[], ConvertedContent>()

function convertedContent(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined): ConvertedContent {
  const known = convertedMessages.get(message.content)
  if (known && known.role === message.role && sameItems(known.blocks, message.content) && sameAnswered(known.answering, answering))
    return known
  const content: ContentBlockParam[] = []
  for (const block of message.role === 'user' ? resultsFirst(message.content, answering) : message.content) {
    const converted = toWireBlock(wellFormedBlock(block))
    if (converted)
      content.push(converted)
  }
  const record: ConvertedContent = { role: message.role, blocks: [...message.content], answering: answering && [...answering], content, replaysThinking: replaysThinking(content) }
  convertedMessages.set(message.content, record)
  return record
}

function sameAnswered(a: readonly SessionContentBlock[] | undefined, b: readonly SessionContentBlock[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameItems(a, b)
}

/**
 * A user message's blocks with its tool results first, in call order. The
 * blocks themselves (no copy) when they already are, which is how the loop
 * records them: this runs for every message on every turn.
 */
function resultsFirst(blocks: readonly SessionContentBlock[], answering: readonly SessionContentBlock[] | undefined): readonly SessionContentBlock[] {
  const calls = answering ?? []
  let inOrder = true
  let results = 0
  let seenOther = false
  let callIndex = 0
  for (const block of blocks) {
    if (block.type !== 'tool_result') {
      seenOther = true
      continue
    }
    results++
    while (callIndex < calls.length && calls[callIndex].type !== 'tool_call')
      callIndex++
    const expected = calls[callIndex]
    if (seenOther || expected?.type !== 'tool_call' || expected.id !== block.callId)
      inOrder = false
    callIndex++
  }
  if (results === 0 || inOrder)
    return blocks
  return [...orderToolResults(blocks, answering), ...blocks.filter(block => block.type !== 'tool_result')]
}
