/**
 * Chat Completions stream chunks → streaming callbacks plus one `TurnResult`.
 * Deltas are forwarded the moment they arrive; text, reasoning and each tool
 * call's arguments are collected in arrays and joined once, at the end.
 *
 * Reasoning. Servers stream visible reasoning in `reasoning_content` (vLLM,
 * DeepSeek, llama.cpp, Fireworks) or `reasoning` (OpenRouter, Groq, Cerebras,
 * Ollama); both are forwarded to `onThinking`. The session keeps it as a
 * `provider_reasoning` block rather than a `thinking` block: it carries the
 * model that produced it, so it can be replayed (where the dialect allows)
 * to that model only, and no other provider ever mistakes it for its own.
 * OpenRouter's structured `reasoning_details` become a block of producer
 * `openrouter`; the plain text is kept (producer `vllm`) only when no details came.
 * Mistral's reasoning models send theirs as typed parts of `delta.content`
 * (`{ type: 'thinking', thinking: [{ type: 'text', text }] }`), which join the
 * plain reasoning text; their `text` parts are answer text.
 *
 * Servers differ in every optional corner of a chunk, and none of it may fail a
 * turn: anything not an object where an object belongs (a `null` chunk, choice,
 * delta or tool-call piece, `choices: null`), unknown fields, empty `choices`
 * and usage-only chunks are skipped over. docs/providers/openai.md lists what is tolerated.
 */

import type { SessionContentBlock } from '../../core/content'
import type { StreamCallbacks, ToolCall, TurnResult } from '../types'
import type { ChatWireUsage } from './usage'
import { refuseOverDeepValue } from '../shared/over-deep'
import { servedId } from '../shared/served-id'
import { freshToolCallId } from '../tool-call-ids'
import { refuseOverDeepInput, ToolJsonBuffer } from '../tool-json'
import { generationFailedError, truncatedStreamError } from './errors'
import { GEMINI_SIGNATURE_PRODUCER } from './gemini-signatures'
import { ReasoningDetailsCollector } from './reasoning-details'
import { chatFinishReason, chatTurnUsage, energyJoulesOf, UsageReader } from './usage'

/** The parts of a chunk this consumer reads, extensions included. */
interface WireChunk {
  /** The completion's id, the same on every chunk. */
  id?: unknown
  choices?: WireChoice[] | null
  usage?: ChatWireUsage | null
  /** Neuralwatt: the request's measured energy (`energy_joules`), on a chunk of servers that send it as data. */
  energy?: unknown
}

interface WireChoice {
  index?: unknown
  delta?: WireDelta | null
  finish_reason?: string | null
}

interface WireDelta {
  /** A string, or (Mistral) an array of typed parts. */
  content?: string | unknown[] | null
  refusal?: string | null
  reasoning_content?: string | null
  reasoning?: string | null
  reasoning_details?: unknown
  tool_calls?: WireToolCallDelta[] | null
}

interface WireToolCallDelta {
  index?: number
  id?: string | null
  /** `arguments` is a JSON text; a few servers send the parsed object instead. */
  function?: { name?: string | null, arguments?: unknown } | null
  /** Gemini's OpenAI-compatible endpoint: the call's thought signature, to send back with the call. */
  extra_content?: { google?: { thought_signature?: unknown } | null } | null
}

/** What a missing or `null` delta reads as; shared, since keep-alive chunks can be frequent. */
const NO_DELTA: WireDelta = Object.freeze({})

interface OpenCall {
  id: string
  name: string
  json: ToolJsonBuffer
  announced: boolean
  /** Whether `id` was made here, the server having sent none before the call was announced. */
  invented: boolean
  /** Gemini's thought signature for the call, when the server sent one. */
  signature?: string
  /** The marker input of arguments sent as an object nested too deep to serialize; it replaces whatever else came. */
  refused?: Record<string, unknown>
}

/** A finished call, with the opaque signature its producer wants back (Gemini), if any. */
interface CollectedCall extends ToolCall {
  signature?: string
}

export interface ChatStreamContext {
  /** The model the request named. */
  model: string
  providerName: string
  /**
   * Dotted paths of chunk fields where the server reports usage besides the
   * standard `usage` (`x_groq.usage`); the standard field wins when both come.
   */
  usageFields?: readonly string[]
  /**
   * Whether the body ended with `data: [DONE]`, asked once the chunks run out.
   * A clean end without any `finish_reason` is then a normal stop. Without it,
   * such a stream counts as cut off.
   */
  sawDone?: () => boolean
  /** Joules the body reported outside its chunks (`: energy` comments, `readChatTurn`), asked once the chunks run out. */
  energyJoules?: () => number | undefined
}

/**
 * Consume one response stream given as an iterator of parsed chunks (see
 * `ChatTurnReader` for what it throws). The provider and its decisions hand each chunk
 * to a reader as it is parsed instead (`readChatTurn`).
 */
export async function consumeChatStream(chunks: AsyncIterable<unknown>, callbacks: StreamCallbacks, context: ChatStreamContext): Promise<TurnResult> {
  const reader = new ChatTurnReader(callbacks, context)
  for await (const chunk of chunks)
    reader.handle(chunk)
  return reader.finish()
}

/**
 * One turn's chunks, handed in one at a time as they arrive, then `finish()`
 * for the `TurnResult`. `finish()` throws a retryable `network` error when no
 * choice ever said why it stopped and the body did not end with `[DONE]`,
 * and a retryable `server` error when a choice said `error` without an error
 * payload (OpenRouter, when an upstream fails).
 */
export class ChatTurnReader {
  private readonly text: string[] = []
  private readonly reasoning: string[] = []
  private readonly details = new ReasoningDetailsCollector()
  private readonly calls: ToolCallCollector
  private readonly usage: UsageReader
  private finishReason: string | undefined = undefined
  private energy: number | undefined = undefined
  private responseId: string | undefined = undefined

  constructor(private readonly callbacks: StreamCallbacks, private readonly context: ChatStreamContext) {
    this.calls = new ToolCallCollector(callbacks)
    this.usage = new UsageReader(context.usageFields)
  }

  /** Take one parsed chunk. */
  handle(raw: unknown): void {
    if (!isObject(raw))
      return
    const chunk = raw as WireChunk
    const callbacks = this.callbacks
    this.usage.read(chunk)
    if (this.responseId === undefined)
      this.responseId = servedId(chunk.id)
    if (chunk.energy !== undefined)
      this.energy = energyJoulesOf(chunk.energy) ?? this.energy
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find(isFirstChoice) : undefined
    if (!choice)
      return
    const delta: WireDelta = isObject(choice.delta) ? choice.delta : NO_DELTA

    // Some servers fill both fields with the same text; one of them is enough.
    const thought = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning)
    const detailText = this.details.push(delta.reasoning_details)
    if (thought) {
      this.reasoning.push(thought)
      callbacks.onThinking(thought)
    }
    else if (detailText.length > 0) {
      for (const fragment of detailText)
        callbacks.onThinking(fragment)
    }
    else if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.some(isObject)) {
      // Encrypted or signed details show no text but are progress. An empty list or `null`, which
      // gateways put on every delta, is not: counted, it kept a stalled stream clear of the idle watchdog.
      callbacks.onActivity?.()
    }

    if (Array.isArray(delta.content)) {
      forwardContentParts(delta.content, this.text, this.reasoning, callbacks)
    }
    else {
      const visible = nonEmpty(delta.content) ?? nonEmpty(delta.refusal)
      if (visible) {
        this.text.push(visible)
        callbacks.onText(visible)
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        if (isObject(call))
          this.calls.push(call)
      }
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason)
      this.finishReason = choice.finish_reason
  }

  /** The turn, once every chunk was handed in. */
  finish(): TurnResult {
    const context = this.context
    const finish = this.finishReason
    // No choice said why it stopped: a body that still reached `[DONE]` ended on purpose (see sse-chunks.ts).
    if (finish === undefined && !context.sawDone?.())
      throw truncatedStreamError(context.providerName)
    if (finish === 'error')
      throw generationFailedError(context.providerName)

    const content: SessionContentBlock[] = []
    const merged = this.details.finish()
    if (merged.length > 0) {
      refuseOverDeepValue(merged, context.providerName, 'reasoning details')
      content.push({ type: 'provider_reasoning', producer: 'openrouter', details: merged, model: context.model })
    }
    else if (this.reasoning.length > 0) {
      content.push({ type: 'provider_reasoning', producer: 'vllm', reasoningText: this.reasoning.join(''), model: context.model })
    }
    if (this.text.length > 0)
      content.push({ type: 'text', text: this.text.join('') })
    const collected = this.calls.finish()
    const toolCalls: ToolCall[] = collected.map(call => ({ id: call.id, name: call.name, input: call.input }))
    for (const call of collected) {
      content.push(call.signature === undefined
        ? { type: 'tool_call', id: call.id, name: call.name, input: call.input }
        : { type: 'tool_call', id: call.id, name: call.name, input: call.input, signature: call.signature, signatureProducer: GEMINI_SIGNATURE_PRODUCER })
    }

    const finishReason = chatFinishReason(finish ?? 'stop', toolCalls.length > 0)
    const turnUsage = chatTurnUsage(this.usage.finish(), context, finishReason)
    // Neuralwatt reports the request's measured energy: in a comment line when streaming, as `energy` on a chunk otherwise.
    const joules = context.energyJoules?.() ?? this.energy
    if (joules !== undefined)
      turnUsage.energyJoules = joules
    const responseId = this.responseId
    return responseId === undefined ? { content, toolCalls, finishReason, usage: turnUsage } : { content, toolCalls, finishReason, usage: turnUsage, responseId }
  }
}

/**
 * Typed content parts, in order: `thinking` parts (their `thinking` is a list
 * of text parts, or a plain string) are reasoning, `text` and `refusal` parts
 * are answer text, other typed parts (references, images) are only a sign of life.
 */
function forwardContentParts(parts: readonly unknown[], text: string[], reasoning: string[], callbacks: StreamCallbacks): void {
  for (const part of parts) {
    if (typeof part === 'string') {
      if (part) {
        text.push(part)
        callbacks.onText(part)
      }
      continue
    }
    if (!isObject(part))
      continue
    const fields = part as Record<string, unknown>
    if (fields.type === 'thinking') {
      for (const thought of thinkingTexts(fields.thinking)) {
        reasoning.push(thought)
        callbacks.onThinking(thought)
      }
      continue
    }
    if (fields.type === 'text' || fields.type === 'refusal') {
      const visible = nonEmpty(fields.type === 'text' ? fields.text : fields.refusal)
      if (visible) {
        text.push(visible)
        callbacks.onText(visible)
      }
    }
    else if (typeof fields.type === 'string') {
      // A part of another kind (a reference, an image) is progress; an empty text part or an untyped one is
      // not: sent on every chunk, it would keep a stalled stream clear of the idle watchdog.
      callbacks.onActivity?.()
    }
  }
}

function thinkingTexts(thinking: unknown): string[] {
  if (typeof thinking === 'string')
    return thinking ? [thinking] : []
  if (!Array.isArray(thinking))
    return []
  const texts: string[] = []
  for (const piece of thinking) {
    const value = typeof piece === 'string' ? piece : isObject(piece) ? (piece as { text?: unknown }).text : undefined
    if (typeof value === 'string' && value)
      texts.push(value)
  }
  return texts
}

/**
 * Tool calls arrive keyed by `index`: the id and name in the first piece, the
 * arguments split over the following ones. A few servers (Gemini's OpenAI
 * endpoint) send whole calls without an index; a piece without one starts a
 * new call when it names a new id or a name, and continues the last call otherwise.
 */
class ToolCallCollector {
  private readonly calls: OpenCall[] = []
  private readonly byIndex = new Map<number, OpenCall>()

  constructor(private readonly callbacks: StreamCallbacks) {}

  push(piece: WireToolCallDelta): void {
    const call = this.callFor(piece)
    if (typeof piece.id === 'string' && piece.id && !call.id)
      call.id = piece.id
    const fn = isObject(piece.function) ? piece.function : undefined
    const name = fn?.name
    if (typeof name === 'string' && name && !call.name)
      call.name = name
    if (!call.announced && call.name)
      this.announce(call)
    const signature = isObject(piece.extra_content) && isObject(piece.extra_content.google) ? piece.extra_content.google.thought_signature : undefined
    if (typeof signature === 'string' && signature)
      call.signature = signature
    const fragment = this.argumentsText(call, fn?.arguments)
    if (fragment) {
      call.json.push(fragment)
      if (call.announced && this.callbacks.onToolCallDelta)
        this.callbacks.onToolCallDelta({ id: call.id, name: call.name }, fragment)
      else
        this.callbacks.onActivity?.()
    }
  }

  /** Every call, in the order it began, its arguments parsed once. */
  finish(): CollectedCall[] {
    return this.calls.map((call) => {
      if (!call.announced)
        this.announce(call)
      const done: CollectedCall = { id: call.id, name: call.name, input: call.refused ?? call.json.finish({}) }
      if (call.signature !== undefined)
        done.signature = call.signature
      return done
    })
  }

  /**
   * The call a piece belongs to. A piece at a known index that names a
   * different id is a new call: some servers put every call at index 0.
   * When the call there has an id made here (its first piece had a name but
   * no id), a served id says nothing unless a name comes with it: it is the
   * server's late id for the same call. Taken as a new call, it split one call
   * in two, the named half run with `{}` and the arguments left to a nameless one.
   */
  private callFor(piece: WireToolCallDelta): OpenCall {
    const id = typeof piece.id === 'string' && piece.id ? piece.id : undefined
    const named = isObject(piece.function) && Boolean(piece.function.name)
    if (typeof piece.index === 'number') {
      const known = this.byIndex.get(piece.index)
      if (known && !(id && known.id && id !== known.id && (!known.invented || named)))
        return known
      const call = this.open()
      this.byIndex.set(piece.index, call)
      return call
    }
    const last = this.calls.at(-1)
    const startsNew = !last || (id ? id !== last.id : named)
    return startsNew ? this.open() : last
  }

  /**
   * Argument text as streamed. A few servers send the parsed arguments instead:
   * an object is serialized once, unless it nests past `MAX_TOOL_INPUT_DEPTH`,
   * where serializing it would overflow the stack and fail the turn; the call's
   * input is then the too-deep marker. Any other value (`5`, `true`) is
   * serialized as well, so the call gets the marker of arguments that are not
   * an object: dropped, it left the call with `{}`, which a tool with only
   * optional parameters runs with. `null` is no arguments, as some servers
   * send with a call's first piece.
   */
  private argumentsText(call: OpenCall, value: unknown): string | undefined {
    if (typeof value === 'string')
      return value
    if (value === null || value === undefined)
      return undefined
    if (isObject(value)) {
      const checked = refuseOverDeepInput(value as Record<string, unknown>)
      if (checked !== value) {
        call.refused ??= checked
        return undefined
      }
    }
    return JSON.stringify(value)
  }

  private open(): OpenCall {
    const call: OpenCall = { id: '', name: '', json: new ToolJsonBuffer(), announced: false, invented: false }
    this.calls.push(call)
    return call
  }

  /** A call needs an id before anyone hears of it; servers that send none get a fresh one. */
  private announce(call: OpenCall): void {
    if (!call.id) {
      call.id = freshToolCallId('call')
      call.invented = true
    }
    call.announced = true
    this.callbacks.onToolCallStart?.({ id: call.id, name: call.name })
  }
}

/**
 * One completion per request (`n` is never set); other choices cannot occur.
 * Only a numeric index other than 0 marks another choice: an index of
 * another type (`"0"`, from a gateway that writes numbers as strings) says
 * nothing, and such choices were dropped, leaving a clean stop with no answer.
 * A named function rather than an inline callback: it is used on every chunk.
 */
function isFirstChoice(choice: WireChoice | null): boolean {
  return isObject(choice) && (typeof choice.index !== 'number' || choice.index === 0)
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}
