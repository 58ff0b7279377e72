/**
 * The fake model server of `stream-deltas`, run as its own process so its CPU
 * is never charged to the loop being measured.
 *
 *   node --import tsx bench/delta-server.ts <anthropic|openai-chat>
 *
 * The first turn of a conversation answers with one call of the request's
 * first tool, its argument (`delta-payload.ts`, of the size the prompt names)
 * streamed in `DELTA_CHARS`-character deltas: `input_json_delta` events on
 * the Messages API, `tool_calls[].function.arguments` chunks on Chat
 * Completions. Any later turn answers with a short text. Prints its base URL
 * as the first line on stdout, then serves until its stdin closes or it gets
 * SIGTERM, like `fake-server.ts`.
 */

import type { RecordedRequest } from '../test/support/fake-anthropic'
import type { SseEvent } from '../test/support/sse'
import type { DeltaProvider } from './delta-payload'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { startFakeOpenAI } from '../test/support/fake-openai'
import { bytesOfPrompt, deltaArgument, deltaPieces } from './delta-payload'

const provider = providerArg(process.argv[2])

/** Built once per size: the same argument is streamed many times. */
const piecesBySize = new Map<number, string[]>()

function piecesFor(bytes: number): string[] {
  let pieces = piecesBySize.get(bytes)
  if (!pieces) {
    pieces = deltaPieces(JSON.stringify(deltaArgument(bytes)))
    piecesBySize.set(bytes, pieces)
  }
  return pieces
}

interface WireMessage {
  role?: unknown
  content?: unknown
}

/** What the conversation asks for: the argument size, whether the call was already made, and the tool to call. */
function readRequest(request: RecordedRequest): { bytes: number, answered: boolean, tool: string } {
  const body = request.body ?? {}
  const messages: WireMessage[] = Array.isArray(body.messages) ? body.messages as WireMessage[] : []
  const firstUser = messages.find(message => message.role === 'user')
  const bytes = bytesOfPrompt(textOf(firstUser?.content)) ?? 0
  const answered = messages.some(message => message.role === 'assistant')
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : []
  const first = tools[0] as { name?: unknown, function?: { name?: unknown } } | undefined
  const tool = typeof first?.name === 'string' ? first.name : typeof first?.function?.name === 'string' ? first.function.name : 'none'
  return { bytes, answered, tool }
}

function textOf(content: unknown): string {
  if (typeof content === 'string')
    return content
  if (!Array.isArray(content))
    return ''
  return content.map(part => typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '').join('')
}

function anthropicAnswer(request: RecordedRequest): SseEvent[] {
  const { bytes, answered, tool } = readRequest(request)
  const model = typeof request.body?.model === 'string' ? request.body.model : 'claude-test'
  const events: SseEvent[] = [{
    event: 'message_start',
    data: { type: 'message_start', message: { id: 'msg_delta', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } },
  }]
  const block = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data })
  if (answered) {
    events.push(
      block({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      block({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } }),
      block({ type: 'content_block_stop', index: 0 }),
    )
  }
  else {
    events.push(block({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_delta_1', name: tool, input: {} } }))
    for (const piece of piecesFor(bytes))
      events.push(block({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } }))
    events.push(block({ type: 'content_block_stop', index: 0 }))
  }
  events.push(
    block({ type: 'message_delta', delta: { stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 50 } }),
    block({ type: 'message_stop' }),
  )
  return events
}

function chatAnswer(request: RecordedRequest): unknown[] {
  const { bytes, answered, tool } = readRequest(request)
  const model = typeof request.body?.model === 'string' ? request.body.model : 'gpt-test'
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: 'chatcmpl-delta',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  if (answered) {
    chunks.push(chunk({ content: 'Done.' }), chunk({}, 'stop'))
  }
  else {
    chunks.push(chunk({ tool_calls: [{ index: 0, id: 'call_delta_1', type: 'function', function: { name: tool, arguments: '' } }] }))
    for (const piece of piecesFor(bytes))
      chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }))
    chunks.push(chunk({}, 'tool_calls'))
  }
  chunks.push({ id: 'chatcmpl-delta', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 } })
  return chunks
}

function providerArg(value: string | undefined): DeltaProvider {
  if (value === 'anthropic' || value === 'openai-chat')
    return value
  throw new Error(`delta-server: <provider> must be anthropic or openai-chat, got ${value}`)
}

async function startServer(): Promise<{ url: string, close: () => Promise<void> }> {
  // Recorded requests are dropped as they come: a benchmark sends thousands.
  if (provider === 'anthropic') {
    const server = await startFakeAnthropic({
      fallback: (request) => {
        server.requests.length = 0
        return { type: 'sse', events: anthropicAnswer(request) }
      },
    })
    return server
  }
  const server = await startFakeOpenAI({
    fallback: (request) => {
      server.requests.length = 0
      return { type: 'chunks', chunks: chatAnswer(request) }
    },
  })
  return server
}

const server = await startServer()

async function shutdown(): Promise<void> {
  await server.close()
  process.exit(0)
}

process.on('SIGTERM', () => void shutdown())
process.stdin.on('end', () => void shutdown())
process.stdin.on('close', () => void shutdown())
process.stdin.resume()
process.stdout.write(`${server.url}\n`)
