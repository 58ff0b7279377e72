/**
 * Chat Completions streaming chunks, written by hand: a scripted turn → the
 * chunk sequence a Chat Completions server streams (`data: {...}` frames, then
 * `data: [DONE]`). Free of test-runner imports so a child process can use it.
 */

import { splitIntoPieces } from './sse'

export interface ScriptedChatToolCall {
  id?: string
  name: string
  input: unknown
  /** Replaces the serialized `input` (e.g. truncated JSON). Streamed in several fragments. */
  rawJson?: string
}

export interface ScriptedChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  cached_tokens?: number
  /** OpenRouter's cache writes. */
  cache_write_tokens?: number
  reasoning_tokens?: number
  /** OpenRouter's provider-reported cost in USD. */
  cost?: number
}

export interface ScriptedChatTurn {
  /** One string streams as one delta; an array streams one delta per element. */
  text?: string | string[]
  /** Plain reasoning text, one delta per element, in `reasoningField`. */
  reasoning?: string | string[]
  /** Default `reasoning_content` (vLLM style); OpenRouter, Groq and Cerebras use `reasoning`. */
  reasoningField?: 'reasoning_content' | 'reasoning'
  /** OpenRouter structured reasoning: `reasoning` text with matching `reasoning_details` pieces. */
  reasoningDetails?: { text: string[], signature?: string, encrypted?: string, format?: string }
  toolCalls?: ScriptedChatToolCall[]
  /** Default `tool_calls` when there are tool calls, else `stop`. `null` sends no finish chunk at all. */
  finishReason?: string | null
  /** The usage chunk. `null` sends none (a server that ignores `include_usage`). */
  usage?: ScriptedChatUsage | null
  /** The model named in every chunk. Default: the request's model. */
  model?: string
  /** End with `data: [DONE]`. Default `true`. */
  done?: boolean
}

/** One SSE frame. Chat Completions frames carry no `event:` line. */
export function dataFrame(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
}

/** Every chunk of one scripted turn, in the order a server sends them. */
export function chatChunks(turn: ScriptedChatTurn, id = 'chatcmpl-fake-1', fallbackModel = 'gpt-test'): unknown[] {
  const model = turn.model ?? fallbackModel
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })

  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  const field = turn.reasoningField ?? 'reasoning_content'
  for (const piece of pieces(turn.reasoning))
    chunks.push(chunk({ [field]: piece }))

  const details = turn.reasoningDetails
  if (details) {
    const format = details.format ?? 'anthropic-claude-v1'
    for (const piece of details.text)
      chunks.push(chunk({ reasoning: piece, reasoning_details: [{ type: 'reasoning.text', text: piece, format, index: 0 }] }))
    if (details.signature !== undefined)
      chunks.push(chunk({ reasoning: null, reasoning_details: [{ type: 'reasoning.text', text: '', signature: details.signature, format, index: 0 }] }))
    if (details.encrypted !== undefined)
      chunks.push(chunk({ reasoning: null, reasoning_details: [{ type: 'reasoning.encrypted', data: details.encrypted, format, index: 1 }] }))
  }

  for (const piece of pieces(turn.text))
    chunks.push(chunk({ content: piece }))

  for (const [n, call] of (turn.toolCalls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index: n, id: call.id ?? `call_fake_${n + 1}`, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const fragment of splitIntoPieces(call.rawJson ?? JSON.stringify(call.input), 3))
      chunks.push(chunk({ tool_calls: [{ index: n, function: { arguments: fragment } }] }))
  }

  const finishReason = turn.finishReason === undefined
    ? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop')
    : turn.finishReason
  if (finishReason !== null)
    chunks.push(chunk({}, finishReason))

  if (turn.usage !== null)
    chunks.push({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: null, choices: [], usage: usageOf(turn.usage ?? {}) })
  return chunks
}

/** The full SSE body of one scripted turn. */
export function chatSse(turn: ScriptedChatTurn, id?: string): string {
  const frames = chatChunks(turn, id).map(dataFrame)
  if (turn.done !== false)
    frames.push(dataFrame('[DONE]'))
  return frames.join('')
}

function pieces(value: string | string[] | undefined): string[] {
  if (value === undefined)
    return []
  return typeof value === 'string' ? [value] : value
}

function usageOf(usage: ScriptedChatUsage): Record<string, unknown> {
  const prompt = usage.prompt_tokens ?? 10
  const completion = usage.completion_tokens ?? 20
  const wire: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: {
      cached_tokens: usage.cached_tokens ?? 0,
      ...(usage.cache_write_tokens !== undefined ? { cache_write_tokens: usage.cache_write_tokens } : {}),
    },
  }
  if (usage.reasoning_tokens !== undefined)
    wire.completion_tokens_details = { reasoning_tokens: usage.reasoning_tokens }
  if (usage.cost !== undefined)
    wire.cost = usage.cost
  return wire
}
