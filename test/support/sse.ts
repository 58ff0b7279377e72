/**
 * Anthropic Messages SSE, written by hand: a scripted turn → the exact event
 * sequence the API streams. Free of test-runner imports so a child process
 * (the benchmark) can use it too.
 */

export interface ScriptedAnthropicTurn {
  /** One string streams as one delta; an array streams one delta per element. */
  text?: string | string[]
  thinking?: { text: string, signature: string }
  redactedThinking?: string
  /** `rawJson` replaces the serialized `input` (e.g. to send truncated JSON). It is streamed in several fragments. */
  toolCalls?: { id?: string, name: string, input: unknown, rawJson?: string }[]
  /** Default: `tool_use` when there are tool calls, else `end_turn`. */
  stopReason?: string
  usage?: { input_tokens?: number, output_tokens?: number, cache_read_input_tokens?: number, cache_creation_input_tokens?: number }
  /** The model named in `message_start`. Default: the request's model (or `claude-test` without a request). */
  model?: string
  /** `message.input_transformations` of `message_start` (the thinking-binding beta's report); omitted when unset. */
  inputTransformations?: unknown[]
}

export interface SseEvent {
  event: string
  data: unknown
}

/** One SSE frame. The `event:` line is required: the SDK drops data-only frames. */
export function sseFrame(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`
}

/** Split text into `count` pieces of roughly equal length (fewer for short text), never empty. */
export function splitIntoPieces(text: string, count: number): string[] {
  if (text.length <= 1)
    return text ? [text] : []
  const size = Math.max(1, Math.ceil(text.length / count))
  const pieces: string[] = []
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size))
  return pieces
}

/**
 * The event list of one scripted turn, block by block, in the order the API
 * sends them: thinking, redacted thinking, text, then tool calls. Each block
 * is `content_block_start`, its deltas, `content_block_stop`; a `ping` follows
 * the first block, as on the real API.
 */
export function anthropicEvents(turn: ScriptedAnthropicTurn, msgId = 'msg_fake_01', fallbackModel = 'claude-test'): SseEvent[] {
  const blocks: SseEvent[][] = []
  const index = () => blocks.length

  if (turn.thinking) {
    const i = index()
    blocks.push([
      { event: 'content_block_start', data: { type: 'content_block_start', index: i, content_block: { type: 'thinking', thinking: '', signature: '' } } },
      ...splitIntoPieces(turn.thinking.text, 2).map(piece => delta(i, { type: 'thinking_delta', thinking: piece })),
      delta(i, { type: 'signature_delta', signature: turn.thinking.signature }),
      stop(i),
    ])
  }
  if (turn.redactedThinking !== undefined) {
    const i = index()
    blocks.push([
      { event: 'content_block_start', data: { type: 'content_block_start', index: i, content_block: { type: 'redacted_thinking', data: turn.redactedThinking } } },
      stop(i),
    ])
  }
  if (turn.text !== undefined) {
    const i = index()
    const pieces = typeof turn.text === 'string' ? [turn.text] : turn.text
    blocks.push([
      { event: 'content_block_start', data: { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } } },
      ...pieces.map(piece => delta(i, { type: 'text_delta', text: piece })),
      stop(i),
    ])
  }
  for (const [n, call] of (turn.toolCalls ?? []).entries()) {
    const i = index()
    const json = call.rawJson ?? JSON.stringify(call.input)
    blocks.push([
      { event: 'content_block_start', data: { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: call.id ?? `toolu_fake_${n + 1}`, name: call.name, input: {} } } },
      ...splitIntoPieces(json, 3).map(piece => delta(i, { type: 'input_json_delta', partial_json: piece })),
      stop(i),
    ])
  }

  const usage = turn.usage ?? {}
  const events: SseEvent[] = [{
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: turn.model ?? fallbackModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens ?? 10,
          output_tokens: 1,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        },
        ...(turn.inputTransformations ? { input_transformations: turn.inputTransformations } : {}),
      },
    },
  }]
  for (const [n, block] of blocks.entries()) {
    events.push(...block)
    if (n === 0)
      events.push({ event: 'ping', data: { type: 'ping' } })
  }
  const stopReason = turn.stopReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn')
  events.push(
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens ?? 20 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  )
  return events
}

/**
 * The non-streaming answer to the same turn: the Message its events add up to,
 * as the API returns it when a request does not ask for a stream.
 */
export function anthropicMessage(turn: ScriptedAnthropicTurn, msgId?: string, fallbackModel?: string): Record<string, unknown> {
  let message: Record<string, unknown> = {}
  const content: Array<Record<string, unknown>> = []
  const partialJson: string[] = []
  for (const { data } of anthropicEvents(turn, msgId, fallbackModel)) {
    const event = data as Record<string, any>
    if (event.type === 'message_start') {
      message = { ...event.message }
    }
    else if (event.type === 'content_block_start') {
      content[event.index] = { ...event.content_block }
    }
    else if (event.type === 'content_block_delta') {
      const block = content[event.index]
      const piece = event.delta
      if (piece.type === 'text_delta')
        block.text = `${block.text as string}${piece.text}`
      else if (piece.type === 'thinking_delta')
        block.thinking = `${block.thinking as string}${piece.thinking}`
      else if (piece.type === 'signature_delta')
        block.signature = piece.signature
      else if (piece.type === 'input_json_delta')
        partialJson[event.index] = `${partialJson[event.index] ?? ''}${piece.partial_json}`
    }
    else if (event.type === 'content_block_stop' && partialJson[event.index] !== undefined) {
      content[event.index].input = JSON.parse(partialJson[event.index])
    }
    else if (event.type === 'message_delta') {
      message = { ...message, ...event.delta, usage: { ...(message.usage as object), ...event.usage } }
    }
  }
  return { ...message, content }
}

/** The full SSE body of one scripted turn. */
export function anthropicSse(turn: ScriptedAnthropicTurn, msgId?: string): string {
  return anthropicEvents(turn, msgId).map(sseFrame).join('')
}

function delta(index: number, body: Record<string, unknown>): SseEvent {
  return { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: body } }
}

function stop(index: number): SseEvent {
  return { event: 'content_block_stop', data: { type: 'content_block_stop', index } }
}
