/**
 * The SDK's raw stream events → streaming callbacks plus one `TurnResult`.
 * Deltas are forwarded the moment they arrive; each block is assembled from
 * its pieces once, when it stops.
 */

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { SessionContentBlock } from '../../core/content'
import type { TurnFinishReason, TurnUsage } from '../../core/stats'
import type { InvalidToolInput } from '../tool-json'
import type { ProviderInputTransformation, StreamCallbacks, ToolCall, TurnResult } from '../types'
import { refuseOverDeepValue } from '../shared/over-deep'
import { servedId } from '../shared/served-id'
import { optionalTokenCount, tokenCount } from '../shared/token-count'
import { freshToolCallId } from '../tool-call-ids'
import { INVALID_TOOL_INPUT_KEY, ToolJsonBuffer } from '../tool-json'
import { PROVIDER_NAME, truncatedStreamError } from './errors'
import { anthropicTurnCost, findAnthropicModel } from './models'

/**
 * A block between its `content_block_start` and `content_block_stop`.
 * `unsigned`: a piece of the thinking or its signature was not text, so the
 * signature no longer matches what is kept. `invalid`: why the arguments
 * cannot be trusted, when a fragment was not text.
 */
type OpenBlock
  = | { kind: 'text', parts: string[] }
    | { kind: 'thinking', parts: string[], signature: string[], unsigned: boolean }
    | { kind: 'redacted_thinking', data: string }
    | OpenCall
    | { kind: 'server_tool_result', block: Record<string, unknown>, toolUseId: string }
    | { kind: 'ignored' }

/** A `tool_use` or `server_tool_use` block being streamed. */
interface OpenCall {
  kind: 'tool_use' | 'server_tool_use'
  id: string
  name: string
  initialInput: unknown
  json: ToolJsonBuffer
  invalid?: string
}

/** Usage as the API reports it, merged across `message_start` and `message_delta`. */
interface WireUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
  cache_creation?: { ephemeral_5m_input_tokens?: number, ephemeral_1h_input_tokens?: number } | null
  output_tokens_details?: { thinking_tokens?: number } | null
}

export interface StreamContext {
  /** The model asked for; used when the stream does not name the model that served it. */
  model: string
  /** Where cache writes are billed when the API does not split them by TTL. */
  cacheTtl: '5m' | '1h'
}

const FINISH_REASONS: ReadonlyMap<string, TurnFinishReason> = new Map([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['tool_use', 'tool-calls'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['refusal', 'content-filter'],
  ['pause_turn', 'pause'],
])

/** Anthropic's `stop_reason` → the normalized finish reason; unknown or missing → `'other'`. */
export function anthropicFinishReason(stopReason: string | null | undefined): TurnFinishReason {
  return (stopReason && FINISH_REASONS.get(stopReason)) || 'other'
}

/** Consume one response stream. Throws a retryable `network` error when the stream ends before `message_stop`. */
export async function consumeAnthropicStream(
  events: AsyncIterable<RawMessageStreamEvent>,
  callbacks: StreamCallbacks,
  context: StreamContext,
): Promise<TurnResult> {
  const turn = new AnthropicTurnReader(callbacks, context)
  for await (const event of events)
    turn.handle(event)
  return turn.finish()
}

/**
 * One turn's stream events, taken one at a time (`handle`) as they are
 * parsed, then the `TurnResult` they add up to (`finish`). The provider feeds
 * it straight from the body's event stream; `consumeAnthropicStream` feeds it
 * from any iterable of events.
 */
export class AnthropicTurnReader {
  private readonly open = new Map<number, OpenBlock>()
  private readonly finished: Array<{ index: number, block: SessionContentBlock }> = []
  private readonly serverToolNames = new Map<string, string>()
  private readonly usage: WireUsage = {}
  private servedModel: string | undefined
  private responseId: string | undefined
  private stopReason: string | undefined
  private stopped = false
  // Final in `message_start`; a `message_delta` carries it only after a server-side fallback, and then replaces it.
  private transformations: unknown

  constructor(private readonly callbacks: StreamCallbacks, private readonly context: StreamContext) {}

  /**
   * Take one event; unknown event types are ignored. So is an event without
   * the object it should carry (a start without its block or message, a delta
   * without its delta): the server or a proxy broke it, and reading its fields
   * would fail the turn with a `TypeError`. Nothing after `message_stop`
   * belongs to the message (a proxy that appends a second answer, a replayed
   * event), so it is ignored too.
   */
  handle(event: RawMessageStreamEvent): void {
    if (this.stopped)
      return
    switch (event.type) {
      case 'message_start': {
        const message = fields(event.message)
        this.servedModel = servedId(message.model) ?? this.servedModel
        this.responseId = servedId(message.id) ?? this.responseId
        mergeUsage(this.usage, message.usage)
        this.transformations = message.input_transformations ?? this.transformations
        break
      }
      case 'content_block_start':
        // A start for an index still open: the earlier block is kept as it stands rather than lost.
        if (this.open.has(event.index))
          this.close(event.index)
        this.open.set(event.index, startBlock(fields(event.content_block), this.callbacks))
        break
      case 'content_block_delta':
        applyDelta(this.open.get(event.index), fields(event.delta), this.callbacks)
        break
      case 'content_block_stop':
        this.close(event.index)
        break
      case 'message_delta': {
        const stopReason = fields(event.delta).stop_reason
        // Only a string names a reason; anything else leaves the earlier one (or none: `'other'`).
        if (typeof stopReason === 'string')
          this.stopReason = stopReason
        mergeUsage(this.usage, event.usage)
        this.transformations = (event as { input_transformations?: unknown }).input_transformations ?? this.transformations
        break
      }
      case 'message_stop':
        this.stopped = true
        break
    }
  }

  /** The turn, once the stream is over. Throws a retryable `network` error when it never reached `message_stop`. */
  finish(): TurnResult {
    if (!this.stopped)
      throw truncatedStreamError()
    for (const index of [...this.open.keys()])
      this.close(index)

    // Blocks may stop out of order; the transcript keeps the order the API numbered them in.
    const content = this.finished.sort((a, b) => a.index - b.index).map(entry => entry.block)
    const toolCalls: ToolCall[] = []
    for (const block of content) {
      if (block.type === 'tool_call')
        toolCalls.push({ id: block.id, name: block.name, input: block.input })
    }
    const finishReason = anthropicFinishReason(this.stopReason)
    const result: TurnResult = { content, toolCalls, finishReason, usage: turnUsage(this.usage, this.servedModel ?? this.context.model, this.context, finishReason) }
    if (this.responseId !== undefined)
      result.responseId = this.responseId
    // Almost every turn reports nothing: no list to build then.
    const reported = this.transformations === undefined ? undefined : inputTransformations(this.transformations)
    if (reported && reported.length > 0) {
      result.inputTransformations = reported
      const dropped = reported.filter(entry => entry.type === 'thinking_dropped').length
      if (dropped > 0)
        result.usage.thinkingDropped = dropped
    }
    return result
  }

  private close(index: number): void {
    const block = this.open.get(index)
    this.open.delete(index)
    const done = block && finishBlock(block, this.serverToolNames)
    if (done)
      this.finished.push({ index, block: done })
  }
}

/** The entries of `input_transformations` that have a type; unknown types pass through, malformed entries are skipped. */
function inputTransformations(raw: unknown): ProviderInputTransformation[] {
  if (!Array.isArray(raw))
    return []
  const entries: ProviderInputTransformation[] = []
  for (const item of raw) {
    if (typeof item !== 'object' || item === null || typeof (item as { type?: unknown }).type !== 'string')
      continue
    const { type, path, reason } = item as Record<string, unknown>
    const entry: ProviderInputTransformation = { type: type as string }
    if (typeof path === 'string')
      entry.path = path
    if (typeof reason === 'string')
      entry.reason = reason
    entries.push(entry)
  }
  return entries
}

function startBlock(block: Record<string, unknown>, callbacks: StreamCallbacks): OpenBlock {
  switch (block.type) {
    case 'text': {
      const text = stringField(block, 'text')
      if (text)
        callbacks.onText(text)
      return { kind: 'text', parts: text ? [text] : [] }
    }
    case 'thinking': {
      const text = stringField(block, 'thinking')
      const signature = stringField(block, 'signature')
      if (text)
        callbacks.onThinking(text)
      return { kind: 'thinking', parts: text ? [text] : [], signature: signature ? [signature] : [], unsigned: notText(block.thinking) || notText(block.signature) }
    }
    case 'redacted_thinking': {
      // Without its data the block cannot be sent back: the API would refuse every later request of the session.
      const data = stringField(block, 'data')
      if (!data)
        return { kind: 'ignored' }
      callbacks.onActivity?.()
      return { kind: 'redacted_thinking', data }
    }
    case 'tool_use':
    case 'server_tool_use': {
      const id = block.type === 'tool_use' ? callId(block.id) : stringField(block, 'id')
      const name = stringField(block, 'name')
      if (block.type === 'tool_use')
        callbacks.onToolCallStart?.({ id, name })
      else if (callbacks.onServerToolUse)
        callbacks.onServerToolUse({ id, name })
      else
        callbacks.onActivity?.()
      return { kind: block.type, id, name, initialInput: block.input, json: new ToolJsonBuffer() }
    }
  }
  // A block of a type the API may add is progress; a start without a block (`null`) is not.
  if (typeof block.type === 'string')
    callbacks.onActivity?.()
  // Server tools (web search, code execution…) answer with a block naming the call it belongs to. It is sent
  // back as it came, so one whose `type` is not a string (no block the API knows) is ignored.
  if (typeof block.tool_use_id === 'string' && typeof block.type === 'string')
    return { kind: 'server_tool_result', block, toolUseId: block.tool_use_id }
  return { kind: 'ignored' }
}

/**
 * Take one delta into its open block. Only a delta that carries something
 * counts as activity for the idle watchdog: an empty signature or argument
 * fragment, a delta for an index that is not open, or one without a type is
 * what a stalled server could send for ever to keep the watchdog quiet.
 */
function applyDelta(block: OpenBlock | undefined, delta: Record<string, unknown>, callbacks: StreamCallbacks): void {
  switch (delta.type) {
    case 'text_delta': {
      const text = stringField(delta, 'text')
      if (block?.kind === 'text' && text) {
        block.parts.push(text)
        callbacks.onText(text)
      }
      return
    }
    case 'thinking_delta': {
      const text = stringField(delta, 'thinking')
      if (block?.kind === 'thinking') {
        block.unsigned ||= notText(delta.thinking)
        if (text) {
          block.parts.push(text)
          callbacks.onThinking(text)
        }
      }
      return
    }
    case 'signature_delta': {
      const signature = stringField(delta, 'signature')
      if (block?.kind === 'thinking') {
        block.unsigned ||= notText(delta.signature)
        block.signature.push(signature)
        if (signature)
          callbacks.onActivity?.()
      }
      return
    }
    case 'input_json_delta': {
      if (block?.kind !== 'tool_use' && block?.kind !== 'server_tool_use')
        return
      // A fragment that is not text cannot be part of the arguments' JSON; skipping it could leave other
      // valid arguments (`{"a":1` + 2 + `}`), so the call is answered with an error instead.
      if (notText(delta.partial_json))
        block.invalid ??= 'the arguments were streamed with a fragment that is not text'
      const fragment = stringField(delta, 'partial_json')
      block.json.push(fragment)
      if (!fragment)
        return
      if (block.kind === 'tool_use' && callbacks.onToolCallDelta)
        callbacks.onToolCallDelta({ id: block.id, name: block.name }, fragment)
      else
        callbacks.onActivity?.()
      return
    }
  }
  // A kind of delta the API may add (citations), into an open block.
  if (block && typeof delta.type === 'string')
    callbacks.onActivity?.()
}

function finishBlock(block: OpenBlock, serverToolNames: Map<string, string>): SessionContentBlock | undefined {
  switch (block.kind) {
    case 'text': {
      const text = block.parts.join('')
      return text ? { type: 'text', text } : undefined
    }
    case 'thinking': {
      const text = block.parts.join('')
      // A signature over text that lost a piece would make the API refuse the block on replay; unsigned, it is not sent.
      const signature = block.unsigned ? '' : block.signature.join('')
      // A signed block with no visible text (display: omitted) must still be kept for replay.
      if (!text && !signature)
        return undefined
      return signature
        ? { type: 'thinking', text, signature, signatureProducer: 'anthropic' }
        : { type: 'thinking', text }
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data }
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, input: toolInput(block) }
    case 'server_tool_use':
      serverToolNames.set(block.id, block.name)
      // The server ran it already: its input is only sent back, as it parsed.
      return { type: 'server_tool_use', producer: 'anthropic', id: block.id, name: block.name, input: block.json.finish(block.initialInput) }
    case 'server_tool_result':
      refuseOverDeepValue(block.block, PROVIDER_NAME, 'a server tool result')
      return {
        type: 'server_tool_result',
        producer: 'anthropic',
        toolUseId: block.toolUseId,
        toolName: serverToolNames.get(block.toolUseId) ?? block.block.type as string,
        content: block.block,
      }
    case 'ignored':
      return undefined
  }
}

/**
 * A call's arguments: the streamed JSON, else the block's own `input`. The
 * API always starts a block with an object there (`{}`, then the deltas); a
 * string, an array, a number or `null` are not arguments, and running the
 * tool with `{}` in their place would do what the model never asked. Such a
 * call, and one with a fragment that was not text, gets the marker of
 * arguments that did not parse (`../tool-json.ts`): the loop answers it with
 * an error result. No text of it is known, so the marker's `raw` is empty.
 */
function toolInput(block: OpenCall): Record<string, unknown> {
  const notArguments = block.json.empty && block.initialInput !== undefined && !isRecord(block.initialInput)
  const invalid = block.invalid ?? (notArguments ? 'arguments are not a JSON object' : undefined)
  if (invalid === undefined)
    return block.json.finish(block.initialInput)
  const marker: InvalidToolInput = { raw: '', error: invalid }
  return { [INVALID_TOOL_INPUT_KEY]: marker }
}

function turnUsage(usage: WireUsage, modelId: string, context: StreamContext, finishReason: TurnFinishReason): TurnUsage {
  const input = tokenCount(usage.input_tokens)
  const output = tokenCount(usage.output_tokens)
  const cacheRead = tokenCount(usage.cache_read_input_tokens)
  const cacheCreation = tokenCount(usage.cache_creation_input_tokens)
  const split = typeof usage.cache_creation === 'object' && usage.cache_creation !== null ? usage.cache_creation : undefined
  const cacheWrite1h = split ? tokenCount(split.ephemeral_1h_input_tokens) : context.cacheTtl === '1h' ? cacheCreation : 0
  const cacheWrite5m = split ? tokenCount(split.ephemeral_5m_input_tokens) : cacheCreation - cacheWrite1h
  // Price by the model that served the turn; fall back to the one asked for if the table does not know it.
  const pricedModel = findAnthropicModel(modelId) ? modelId : context.model
  const cost = anthropicTurnCost(pricedModel, { input, output, cacheRead, cacheWrite5m, cacheWrite1h })

  const result: TurnUsage = { input, output, cacheRead, cacheCreation, modelId, provider: 'anthropic', finishReason }
  const thinking = optionalTokenCount((usage.output_tokens_details as { thinking_tokens?: unknown } | null | undefined)?.thinking_tokens)
  if (thinking !== undefined)
    result.thinking = thinking
  if (cost !== undefined)
    result.cost = cost
  return result
}

/** The usage fields read from `message_start` and `message_delta`. */
const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cache_creation', 'output_tokens_details'] as const

/**
 * Take the usage fields of `source` into `target`. `message_delta` usage
 * repeats fields as `null` when it has nothing new; only real values replace
 * the start's. Only the known fields of an object are read: a usage that is
 * a string of megabytes was copied one property per character (seconds of
 * work for 5 MB), and an own `__proto__` key replaced the target's prototype.
 */
function mergeUsage(target: WireUsage, source: unknown): void {
  if (typeof source !== 'object' || source === null || Array.isArray(source))
    return
  for (const key of USAGE_FIELDS) {
    const value = (source as Record<string, unknown>)[key]
    if (value !== null && value !== undefined && Object.hasOwn(source, key))
      (target as Record<string, unknown>)[key] = value
  }
}

function stringField(value: Record<string, unknown>, key: string): string {
  const field = value[key]
  return typeof field === 'string' ? field : ''
}

/**
 * A `tool_use` block's id, or one of the call's own when the server sent none
 * (or not a string): the session and the next request pair each result with
 * its call by id, and two calls that shared the empty id became one on the
 * wire, which dropped the other.
 */
function callId(value: unknown): string {
  return typeof value === 'string' && value ? value : freshToolCallId('toolu')
}

/** Present, but not a string. */
function notText(value: unknown): boolean {
  return value !== undefined && typeof value !== 'string'
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What `fields` gives for a value that is no object: nothing is ever written to it. */
const NO_FIELDS: Record<string, unknown> = Object.freeze({})

/** The fields of what should be an object; none when it is anything else. Checked inline: it runs for every event. */
function fields(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : NO_FIELDS
}
