/**
 * How the fake model server writes one scripted turn on the wire: the
 * server-sent events of the Anthropic Messages API and the chunks of the
 * OpenAI Chat Completions API, in the order and shape the real APIs stream
 * them, so the official clients parse them as they parse a live answer.
 */

/** One scripted answer of the fake model server. */
export interface FakeModelTurn {
  /** Text to stream; an array streams one delta per element. */
  text?: string | string[]
  /** Reasoning streamed before the text (Anthropic: a thinking block; Chat Completions: `reasoning_content`). */
  thinking?: string
  /** Tool calls the model makes; ids are generated when omitted. Arguments stream in several pieces. */
  toolCalls?: { name: string, input: Record<string, unknown>, id?: string }[]
  /** Tokens the answer reports. Default: 10 in, 5 out. */
  usage?: { inputTokens?: number, outputTokens?: number }
  /** Wait this long before answering. */
  delayMs?: number
}

/** Characters per streamed piece of a tool call's arguments. */
const ARGUMENT_PIECE = 16

function pieces(text: string | string[] | undefined): string[] {
  if (text === undefined)
    return []
  return typeof text === 'string' ? [text] : text
}

function argumentPieces(input: Record<string, unknown>): string[] {
  const json = JSON.stringify(input)
  const out: string[] = []
  for (let start = 0; start < json.length; start += ARGUMENT_PIECE)
    out.push(json.slice(start, start + ARGUMENT_PIECE))
  return out
}

/** One `event:` + `data:` frame; the Anthropic client ignores frames without the event line. */
function eventFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/** A `data:` frame, as Chat Completions servers send them. */
function dataFrame(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
}

/** The SSE body of one turn as `POST /v1/messages` streams it. `n` makes the message and call ids unique. */
export function anthropicFrames(turn: FakeModelTurn, model: string, n: number): string[] {
  const blocks: string[][] = []
  const delta = (index: number, body: unknown) => eventFrame('content_block_delta', { type: 'content_block_delta', index, delta: body })
  const start = (index: number, block: unknown) => eventFrame('content_block_start', { type: 'content_block_start', index, content_block: block })
  const stop = (index: number) => eventFrame('content_block_stop', { type: 'content_block_stop', index })

  if (turn.thinking !== undefined) {
    const i = blocks.length
    blocks.push([
      start(i, { type: 'thinking', thinking: '', signature: '' }),
      delta(i, { type: 'thinking_delta', thinking: turn.thinking }),
      // A real signature is opaque; the fake one only has to round-trip.
      delta(i, { type: 'signature_delta', signature: `fake-signature-${n}` }),
      stop(i),
    ])
  }
  const text = pieces(turn.text)
  if (text.length > 0) {
    const i = blocks.length
    blocks.push([start(i, { type: 'text', text: '' }), ...text.map(piece => delta(i, { type: 'text_delta', text: piece })), stop(i)])
  }
  for (const [k, call] of (turn.toolCalls ?? []).entries()) {
    const i = blocks.length
    blocks.push([
      start(i, { type: 'tool_use', id: call.id ?? `toolu_fake_${n}_${k + 1}`, name: call.name, input: {} }),
      ...argumentPieces(call.input).map(piece => delta(i, { type: 'input_json_delta', partial_json: piece })),
      stop(i),
    ])
  }

  const usage = turn.usage ?? {}
  const stopReason = (turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn'
  return [
    eventFrame('message_start', {
      type: 'message_start',
      message: {
        id: `msg_fake_${n}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.inputTokens ?? 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
    ...blocks.flat(),
    eventFrame('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.outputTokens ?? 5 } }),
    eventFrame('message_stop', { type: 'message_stop' }),
  ]
}

/** The SSE body of one turn as `POST /v1/chat/completions` streams it, `[DONE]` included. */
export function chatFrames(turn: FakeModelTurn, model: string, n: number, includeUsage: boolean): string[] {
  const id = `chatcmpl-fake-${n}`
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  if (turn.thinking !== undefined)
    chunks.push(chunk({ reasoning_content: turn.thinking }))
  for (const piece of pieces(turn.text))
    chunks.push(chunk({ content: piece }))
  for (const [k, call] of (turn.toolCalls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index: k, id: call.id ?? `call_fake_${n}_${k + 1}`, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const piece of argumentPieces(call.input))
      chunks.push(chunk({ tool_calls: [{ index: k, function: { arguments: piece } }] }))
  }
  chunks.push(chunk({}, (turn.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop'))
  if (includeUsage) {
    const input = turn.usage?.inputTokens ?? 10
    const output = turn.usage?.outputTokens ?? 5
    chunks.push({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })
  }
  return [...chunks.map(dataFrame), dataFrame('[DONE]')]
}
