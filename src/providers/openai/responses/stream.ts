/**
 * Responses stream events → streaming callbacks plus one `TurnResult`.
 * Deltas are forwarded the moment they arrive; each output item is assembled
 * from its pieces once, and the finished items keep the API's output order,
 * which is what lets a reasoning item name the item that followed it.
 *
 * Gateways that re-emit this API are not always exact: an event or item that
 * is not an object, a missing `response` on a lifecycle event, a delta that is
 * not a string, a missing `summary_index` or `summary`/`content` list, and
 * unknown event types are skipped or read as empty rather than failing the turn.
 *
 * A hostile server gets no further: what reaches the session is typed here
 * (a call's id and name are strings, its arguments text or an object, a
 * reasoning item is signed only with string parts), lists are read in one
 * pass, and the turn ends at its terminal event whatever follows it.
 */

import type { ResponseOutputItem, ResponseStreamEvent, ResponseUsage, Response as WireResponse } from 'openai/resources/responses/responses'
import type { SessionContentBlock } from '../../../core/content'
import type { TurnFinishReason, TurnUsage } from '../../../core/stats'
import type { StreamCallbacks, ToolCall, TurnResult } from '../../types'
import type { ReasoningFollower } from './reasoning'
import { mergeObjects } from '../../../core/merge-objects'
import { servedId } from '../../shared/served-id'
import { optionalTokenCount, tokenCount } from '../../shared/token-count'
import { freshToolCallId } from '../../tool-call-ids'
import { INVALID_TOOL_INPUT_KEY, ToolJsonBuffer } from '../../tool-json'
import { abortedError, streamFailureError, truncatedStreamError } from './errors'
import { encodeReasoningSignature, OPENAI_SIGNATURE_PRODUCER } from './reasoning'

/** An output item between `output_item.added` and the end of the stream. */
type OpenItem
  = | ReasoningItem
    | { kind: 'message', parts: string[], refusal: boolean }
    | FunctionCallItem
    | { kind: 'other' }

/**
 * `summary` holds only the parts that received text, by their index: a part
 * index the server skipped costs nothing, and whether any part has text is
 * its size, not a search.
 */
interface ReasoningItem { kind: 'reasoning', id: string, summary: Map<number, string[]>, content: string[], encrypted?: string }

/**
 * One output item and where it goes: `position` is its `output_index` when
 * that is a number (items without one follow, in the order they began);
 * `done` once its `output_item.done` came; `wireId` the item's own id (or a
 * call's `call_id`), which tells a repeated `output_item.done` from a new item.
 */
interface ItemEntry { position: number, item: OpenItem, done: boolean, wireId: string | undefined }

/** `args` is arguments the finished item gave as something other than text (a gateway that parsed them). */
interface FunctionCallItem { kind: 'function_call', callId: string, name: string, json: ToolJsonBuffer, args?: unknown }

export interface ResponsesStreamContext {
  /** The model asked for; used when the stream does not name the model that served it. */
  model: string
  /** `TurnUsage.provider` and `ClassifiedError.provider`. */
  provider: string
  /** Once aborted, no further event is processed or forwarded. */
  signal?: AbortSignal
}

/**
 * Consume one response stream given as an iterator of events (see
 * `ResponsesTurnReader` for what it throws). The provider and its decisions hand each
 * event to a reader as it is parsed instead (`readResponsesTurn`).
 */
export async function consumeResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  callbacks: StreamCallbacks,
  context: ResponsesStreamContext,
): Promise<TurnResult> {
  const reader = new ResponsesTurnReader(callbacks, context)
  for await (const event of events) {
    reader.handle(event)
    // Nothing after the terminal event is read; leaving the loop also lets the iterator's source go.
    if (reader.ended)
      break
  }
  return reader.finish()
}

/**
 * One turn's events, handed in one at a time as they arrive, then `finish()`
 * for the `TurnResult`. Throws a `ClassifiedError` for `error` and
 * `response.failed` events, and from `finish()` a retryable `network` error
 * when the stream ended without `response.completed` or `response.incomplete`.
 */
export class ResponsesTurnReader {
  /**
   * Every item in the order it began. `current` maps an `output_index` to
   * the item it names now: an index the server uses again (or leaves out on
   * every event, as some gateways do) starts a new item rather than
   * replacing the one before, which lost it (a call announced and never run,
   * the text before a call).
   */
  private readonly items: ItemEntry[] = []
  private readonly current = new Map<unknown, ItemEntry>()
  private servedModel: string | undefined = undefined
  private responseId: string | undefined = undefined
  private final: WireResponse | undefined = undefined

  constructor(private readonly callbacks: StreamCallbacks, private readonly context: ResponsesStreamContext) {}

  /** Take one parsed event. */
  handle(event: ResponseStreamEvent): void {
    // Events may already sit in a buffer when the caller aborts; none of them is wanted any more.
    if (this.context.signal?.aborted)
      throw abortedError(this.context.provider)
    // The response ended: text, calls, usage or a failure sent after that are not part of it.
    if (this.final || !isObject(event))
      return
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
        this.servedModel = servedId(event.response?.model) ?? this.servedModel
        this.responseId = servedId(event.response?.id) ?? this.responseId
        return
      case 'response.output_item.added':
        if (isObject(event.item))
          this.begin(event.output_index, event.item, openItem(event.item, this.callbacks), false)
        return
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        appendText(this.current.get(event.output_index)?.item, event.delta, event.type === 'response.refusal.delta', this.callbacks)
        return
      case 'response.reasoning_summary_text.delta':
        appendSummary(this.current.get(event.output_index)?.item, summaryIndex(event.summary_index), event.delta, this.callbacks)
        return
      case 'response.reasoning_text.delta': {
        const item = this.current.get(event.output_index)?.item
        if (item?.kind === 'reasoning')
          appendReasoningText(item, event.delta, this.callbacks)
        return
      }
      case 'response.function_call_arguments.delta': {
        const item = this.current.get(event.output_index)?.item
        // Only a fragment of a known call is progress: empty ones, or ones for no call, are what a stalled
        // server could send for ever to keep the idle watchdog quiet.
        if (item?.kind !== 'function_call' || typeof event.delta !== 'string' || !event.delta)
          return
        item.json.push(event.delta)
        if (this.callbacks.onToolCallDelta)
          this.callbacks.onToolCallDelta({ id: item.callId, name: item.name }, event.delta)
        else
          this.callbacks.onActivity?.()
        return
      }
      case 'response.output_item.done':
        if (isObject(event.item))
          this.end(event.output_index, event.item)
        return
      case 'response.completed':
        // The event says the response completed, even from a gateway that left the response out.
        this.final = isRecord(event.response) ? event.response : { status: 'completed' } as WireResponse
        return
      case 'response.incomplete':
        // The event itself says the response is incomplete, whatever status a lenient server wrote.
        // Only an object is merged: a string would be copied one property per character.
        this.final = isRecord(event.response) ? mergeObjects(event.response, { status: 'incomplete' }) : { status: 'incomplete' } as WireResponse
        return
      case 'response.failed':
        throw streamFailureError(event.response?.error?.code, event.response?.error?.message, this.context.provider)
      case 'error':
        throw streamFailureError(event.code, event.message, this.context.provider)
    }
  }

  private begin(outputIndex: unknown, wire: ResponseOutputItem, item: OpenItem, done: boolean): void {
    const position = typeof outputIndex === 'number' && Number.isFinite(outputIndex) ? outputIndex : Number.POSITIVE_INFINITY
    const entry: ItemEntry = { position, item, done, wireId: wireIdOf(wire) }
    this.items.push(entry)
    this.current.set(outputIndex, entry)
  }

  /**
   * `output_item.done` finishes the open item of its index when that is of
   * its kind and not done yet. The same item finished again (same id) is a
   * repeat and changes nothing; anything else is an item of its own.
   */
  private end(outputIndex: unknown, item: ResponseOutputItem): void {
    const entry = this.current.get(outputIndex)
    if (entry && entry.item.kind === kindOf(item)) {
      if (!entry.done) {
        entry.item = finishItem(entry.item, item, this.callbacks)
        entry.done = true
        entry.wireId ??= wireIdOf(item)
        return
      }
      const id = wireIdOf(item)
      if (id !== undefined && id === entry.wireId)
        return
    }
    this.begin(outputIndex, item, finishItem(undefined, item, this.callbacks), true)
  }

  /** Whether the terminal event (`response.completed` or `response.incomplete`) arrived: nothing after it is read. */
  get ended(): boolean {
    return this.final !== undefined
  }

  /** The turn, once every event was handed in. */
  finish(): TurnResult {
    const context = this.context
    if (context.signal?.aborted)
      throw abortedError(context.provider)
    const final = this.final
    if (!final)
      throw truncatedStreamError(context.provider)

    // A stable sort: items of one position keep the order they began in.
    const items = this.items.slice().sort((a, b) => a.position - b.position).map(entry => entry.item)
    const content = contentBlocks(items)
    const toolCalls: ToolCall[] = []
    for (const block of content) {
      if (block.type === 'tool_call')
        toolCalls.push({ id: block.id, name: block.name, input: block.input })
    }
    const refused = items.some(item => item.kind === 'message' && item.refusal)
    const finishReason = responsesFinishReason(final, toolCalls.length > 0, refused)
    const modelId = servedId(final.model) ?? this.servedModel ?? context.model
    const result: TurnResult = { content, toolCalls, finishReason, usage: turnUsage(final.usage, modelId, context.provider, finishReason) }
    const id = servedId(final.id) ?? this.responseId
    if (id !== undefined)
      result.responseId = id
    return result
  }
}

/**
 * The normalized finish reason: an incomplete response says why it stopped;
 * a completed one stopped for its tool calls, a refusal, or on its own.
 */
export function responsesFinishReason(response: Pick<WireResponse, 'status' | 'incomplete_details'>, hasToolCalls: boolean, refused = false): TurnFinishReason {
  if (response.status === 'incomplete') {
    switch (response.incomplete_details?.reason) {
      case 'max_output_tokens': return 'length'
      case 'content_filter': return 'content-filter'
      default: return 'other'
    }
  }
  if (response.status !== undefined && response.status !== 'completed')
    return 'other'
  if (hasToolCalls)
    return 'tool-calls'
  return refused ? 'content-filter' : 'stop'
}

/** An item's own id, or a call's `call_id` when it has none: a non-empty string of at most 256 characters. */
function wireIdOf(item: ResponseOutputItem): string | undefined {
  return servedId(item.id) ?? (item.type === 'function_call' ? servedId(item.call_id) : undefined)
}

/** The kind of open item `item` makes. */
function kindOf(item: ResponseOutputItem): OpenItem['kind'] {
  return item.type === 'reasoning' || item.type === 'message' || item.type === 'function_call' ? item.type : 'other'
}

function openItem(item: ResponseOutputItem, callbacks: StreamCallbacks): OpenItem {
  switch (item.type) {
    case 'reasoning':
      callbacks.onActivity?.()
      return newReasoning(item)
    case 'message':
      return { kind: 'message', parts: [], refusal: false }
    case 'function_call':
      return startCall(item, callbacks)
    default:
      callbacks.onActivity?.()
      return { kind: 'other' }
  }
}

function newReasoning(item: ResponseOutputItem): ReasoningItem {
  return { kind: 'reasoning', id: stringOr(item.id, ''), summary: new Map(), content: [] }
}

/**
 * A call as the session will keep it, announced. The id and the name are
 * strings whatever the server sent: code past the provider (the wire's id
 * rule, the tool lookup, the session) treats them as text. A call without a
 * usable id gets a fresh one, as on Chat Completions, so it still pairs with
 * its result; one without a name is answered as a call to no tool.
 */
function startCall(item: ResponseOutputItem & { type: 'function_call' }, callbacks: StreamCallbacks): FunctionCallItem {
  const call: FunctionCallItem = { kind: 'function_call', callId: stringOr(item.call_id, '') || freshToolCallId('call'), name: stringOr(item.name, ''), json: new ToolJsonBuffer() }
  callbacks.onToolCallStart?.({ id: call.callId, name: call.name })
  return call
}

/** The finished item's arguments: text is the one fragment; anything else is kept for `callInput` to judge. */
function takeArguments(call: FunctionCallItem, value: unknown): void {
  if (typeof value === 'string')
    call.json.push(value)
  else if (value != null)
    call.args = value
}

/**
 * The call's input: its streamed text parsed; without text, an object the
 * finished item gave (depth-checked like parsed text), or `{}` when it gave
 * nothing. Arguments of another type (a number, a list) are refused with the
 * marker the loop answers as invalid arguments; `{}` would run a tool whose
 * parameters are all optional.
 */
function callInput(call: FunctionCallItem): Record<string, unknown> {
  if (!call.json.empty || call.args === undefined || (isObject(call.args) && !Array.isArray(call.args)))
    return call.json.finish(call.args)
  const kind = Array.isArray(call.args) ? 'a list' : `a ${typeof call.args}`
  return { [INVALID_TOOL_INPUT_KEY]: { raw: '', error: `arguments are not a JSON object (the server sent ${kind}, not text)` } }
}

function appendText(item: OpenItem | undefined, delta: string, refusal: boolean, callbacks: StreamCallbacks): void {
  if (item?.kind !== 'message' || typeof delta !== 'string' || !delta)
    return
  item.parts.push(delta)
  item.refusal ||= refusal
  callbacks.onText(delta)
}

/** Summary parts are shown one paragraph each; the separator is streamed too, so the deltas add up to the block's text. */
function appendSummary(item: OpenItem | undefined, index: number, delta: string, callbacks: StreamCallbacks): void {
  if (item?.kind !== 'reasoning' || typeof delta !== 'string' || !delta)
    return
  let part = item.summary.get(index)
  if (!part) {
    // A new part with text; the parts already in the map have text too.
    if (item.summary.size > 0)
      callbacks.onThinking('\n\n')
    part = []
    item.summary.set(index, part)
  }
  part.push(delta)
  callbacks.onThinking(delta)
}

/**
 * `output_item.done` carries the finished item. It is authoritative for what
 * never streams (the encrypted reasoning, ids); text that arrived only here
 * (a proxy that skips deltas) is forwarded now so hooks still see it.
 */
function finishItem(open: OpenItem | undefined, item: ResponseOutputItem, callbacks: StreamCallbacks): OpenItem {
  switch (item.type) {
    case 'reasoning': {
      const reasoning = open?.kind === 'reasoning' ? open : newReasoning(item)
      // Only strings are signed: the signature is JSON, and a value nested thousands deep would overflow writing it.
      reasoning.id = stringOr(item.id, '') || reasoning.id
      reasoning.encrypted = stringOr(item.encrypted_content, '') || undefined
      if (reasoning.summary.size === 0)
        listOf(item.summary).forEach((part, index) => appendSummary(reasoning, index, part.text, callbacks))
      if (reasoning.content.length === 0 && reasoning.summary.size === 0) {
        for (const part of listOf(item.content))
          appendReasoningText(reasoning, part.text, callbacks)
      }
      return reasoning
    }
    case 'message': {
      const message = open?.kind === 'message' ? open : { kind: 'message' as const, parts: [], refusal: false }
      if (message.parts.length === 0) {
        for (const part of listOf(item.content))
          appendText(message, part.type === 'output_text' ? part.text : part.refusal, part.type === 'refusal', callbacks)
      }
      return message
    }
    case 'function_call': {
      if (open?.kind === 'function_call') {
        if (open.json.empty) {
          takeArguments(open, item.arguments)
          // A proxy that skipped the argument deltas: the whole arguments are the one fragment.
          if (typeof item.arguments === 'string' && item.arguments)
            callbacks.onToolCallDelta?.({ id: open.callId, name: open.name }, item.arguments)
        }
        return open
      }
      const call = startCall(item, callbacks)
      takeArguments(call, item.arguments)
      return call
    }
    default:
      callbacks.onActivity?.()
      return open ?? { kind: 'other' }
  }
}

function appendReasoningText(item: ReasoningItem, text: string, callbacks: StreamCallbacks): void {
  if (typeof text !== 'string' || !text)
    return
  item.content.push(text)
  callbacks.onThinking(text)
}

/** Items → session blocks in output order; each reasoning block records which block followed it. */
function contentBlocks(items: readonly OpenItem[]): SessionContentBlock[] {
  const blocks = items.map(item => item.kind === 'reasoning' ? undefined : itemBlock(item))
  items.forEach((item, index) => {
    if (item.kind === 'reasoning')
      blocks[index] = reasoningBlock(item, followerOf(blocks[index + 1]))
  })
  return blocks.filter(block => block !== undefined)
}

function itemBlock(item: Exclude<OpenItem, { kind: 'reasoning' }>): SessionContentBlock | undefined {
  switch (item.kind) {
    case 'message': {
      const text = item.parts.join('')
      return text ? { type: 'text', text } : undefined
    }
    case 'function_call':
      return { type: 'tool_call', id: item.callId, name: item.name, input: callInput(item) }
    case 'other':
      return undefined
  }
}

function followerOf(block: SessionContentBlock | undefined): ReasoningFollower | undefined {
  if (block?.type === 'tool_call')
    return { type: 'function_call', callId: block.id }
  return block?.type === 'text' ? { type: 'message' } : undefined
}

/**
 * The summary is what people read; the encrypted content is what the model
 * reads back. A reasoning item with neither is dropped; one without encrypted
 * content is kept as unsigned thinking, shown but never replayed.
 */
function reasoningBlock(item: ReasoningItem, next: ReasoningFollower | undefined): SessionContentBlock | undefined {
  const summary = [...item.summary].sort(([a], [b]) => a - b).map(([, part]) => part.join('')).join('\n\n')
  const text = summary || item.content.join('')
  // Without an id the item cannot be sent back (the API needs both), so it is not signed.
  if (!item.encrypted || !item.id)
    return text ? { type: 'thinking', text } : undefined
  const signature = encodeReasoningSignature({ id: item.id, encryptedContent: item.encrypted, next })
  return { type: 'thinking', text, signature, signatureProducer: OPENAI_SIGNATURE_PRODUCER }
}

/** `input_tokens` counts cached and cache-written tokens too; `TurnUsage.input` is only the uncached rest. */
function turnUsage(usage: ResponseUsage | undefined, modelId: string, provider: string, finishReason: TurnFinishReason): TurnUsage {
  const cacheRead = tokenCount(usage?.input_tokens_details?.cached_tokens)
  const cacheWrite = tokenCount(usage?.input_tokens_details?.cache_write_tokens)
  const result: TurnUsage = {
    input: Math.max(0, tokenCount(usage?.input_tokens) - cacheRead - cacheWrite),
    output: tokenCount(usage?.output_tokens),
    cacheRead,
    modelId,
    provider,
    finishReason,
  }
  if (cacheWrite > 0)
    result.cacheCreation = cacheWrite
  const thinking = optionalTokenCount(usage?.output_tokens_details?.reasoning_tokens)
  if (thinking !== undefined)
    result.thinking = thinking
  return result
}

/** The object parts of a list a gateway may have left out or filled with `null`s. */
function listOf<T>(value: readonly T[] | null | undefined): T[] {
  return Array.isArray(value) ? value.filter(isObject) : []
}

/** Summary parts an item may hold; a larger index is a gateway's garbage, read as the first part. */
const MAX_SUMMARY_PARTS = 1024

/** A summary delta without a usable index belongs to the first summary part. */
function summaryIndex(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < MAX_SUMMARY_PARTS ? value : 0
}

function isObject<T>(value: T): value is T & object {
  return typeof value === 'object' && value !== null
}

/** An object that is not a list: what a response may be. */
function isRecord<T>(value: T): value is T & object {
  return isObject(value) && !Array.isArray(value)
}

/** `value` when it is a string, else `fallback`. */
function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback
}
