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
 */

import type { SessionContentBlock } from '../../session/content'
import type { StreamCallbacks, ToolCall, TurnResult } from '../types'
import type { ChatWireUsage } from './usage'
import { randomUUID } from 'node:crypto'
import { ToolJsonBuffer } from '../tool-json'
import { generationFailedError, truncatedStreamError } from './errors'
import { ReasoningDetailsCollector } from './reasoning-details'
import { chatFinishReason, chatTurnUsage } from './usage'

/** The parts of a chunk this consumer reads, extensions included. */
interface WireChunk {
  choices?: WireChoice[] | null
  usage?: ChatWireUsage | null
}

interface WireChoice {
  index?: number
  delta?: WireDelta | null
  finish_reason?: string | null
}

interface WireDelta {
  content?: string | null
  refusal?: string | null
  reasoning_content?: string | null
  reasoning?: string | null
  reasoning_details?: unknown
  tool_calls?: WireToolCallDelta[] | null
}

interface WireToolCallDelta {
  index?: number
  id?: string | null
  function?: { name?: string | null, arguments?: string | null } | null
}

interface OpenCall {
  id: string
  name: string
  json: ToolJsonBuffer
  announced: boolean
}

export interface ChatStreamContext {
  /** The model the request named. */
  model: string
  providerName: string
}

/**
 * Consume one response stream. Throws a retryable `network` error when no
 * choice ever said why it stopped, and a retryable `server` error when one
 * said `error` without an error payload (OpenRouter, when an upstream fails).
 */
export async function consumeChatStream(chunks: AsyncIterable<unknown>, callbacks: StreamCallbacks, context: ChatStreamContext): Promise<TurnResult> {
  const text: string[] = []
  const reasoning: string[] = []
  const details = new ReasoningDetailsCollector()
  const calls = new ToolCallCollector(callbacks)
  let usage: ChatWireUsage | undefined
  let finish: string | undefined

  for await (const raw of chunks) {
    const chunk = raw as WireChunk
    if (chunk.usage)
      usage = chunk.usage
    const choice = chunk.choices?.find(isFirstChoice)
    if (!choice)
      continue
    const delta = choice.delta ?? {}

    // Some servers fill both fields with the same text; one of them is enough.
    const thought = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning)
    const detailText = details.push(delta.reasoning_details)
    if (thought) {
      reasoning.push(thought)
      callbacks.onThinking(thought)
    }
    else if (detailText.length > 0) {
      for (const fragment of detailText)
        callbacks.onThinking(fragment)
    }
    else if (delta.reasoning_details !== undefined) {
      callbacks.onActivity?.()
    }

    const visible = nonEmpty(delta.content) ?? nonEmpty(delta.refusal)
    if (visible) {
      text.push(visible)
      callbacks.onText(visible)
    }
    for (const call of delta.tool_calls ?? [])
      calls.push(call)
    if (choice.finish_reason)
      finish = choice.finish_reason
  }
  if (finish === undefined)
    throw truncatedStreamError(context.providerName)
  if (finish === 'error')
    throw generationFailedError(context.providerName)

  const content: SessionContentBlock[] = []
  const merged = details.finish()
  if (merged.length > 0)
    content.push({ type: 'provider_reasoning', producer: 'openrouter', details: merged, model: context.model })
  else if (reasoning.length > 0)
    content.push({ type: 'provider_reasoning', producer: 'vllm', reasoningText: reasoning.join(''), model: context.model })
  if (text.length > 0)
    content.push({ type: 'text', text: text.join('') })
  const toolCalls = calls.finish()
  for (const call of toolCalls)
    content.push({ type: 'tool_call', id: call.id, name: call.name, input: call.input })

  const finishReason = chatFinishReason(finish, toolCalls.length > 0)
  return { content, toolCalls, finishReason, usage: chatTurnUsage(usage, context, finishReason) }
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
    if (piece.id && !call.id)
      call.id = piece.id
    const name = piece.function?.name
    if (name && !call.name)
      call.name = name
    if (!call.announced && call.name)
      this.announce(call)
    const fragment = piece.function?.arguments
    if (fragment) {
      call.json.push(fragment)
      this.callbacks.onActivity?.()
    }
  }

  /** Every call, in the order it began, its arguments parsed once. */
  finish(): ToolCall[] {
    return this.calls.map((call) => {
      if (!call.announced)
        this.announce(call)
      return { id: call.id, name: call.name, input: call.json.finish({}) }
    })
  }

  private callFor(piece: WireToolCallDelta): OpenCall {
    if (typeof piece.index === 'number') {
      const known = this.byIndex.get(piece.index)
      if (known)
        return known
      const call = this.open()
      this.byIndex.set(piece.index, call)
      return call
    }
    const last = this.calls.at(-1)
    const startsNew = !last || (piece.id ? piece.id !== last.id : Boolean(piece.function?.name))
    return startsNew ? this.open() : last
  }

  private open(): OpenCall {
    const call: OpenCall = { id: '', name: '', json: new ToolJsonBuffer(), announced: false }
    this.calls.push(call)
    return call
  }

  /** A call needs an id before anyone hears of it; servers that send none get a fresh one. */
  private announce(call: OpenCall): void {
    call.id ||= `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`
    call.announced = true
    this.callbacks.onToolCallStart?.({ id: call.id, name: call.name })
  }
}

/**
 * One completion per request (`n` is never set); other choices cannot occur.
 * A named function rather than an inline callback: it is used on every chunk.
 */
function isFirstChoice(choice: WireChoice): boolean {
  return (choice.index ?? 0) === 0
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}
