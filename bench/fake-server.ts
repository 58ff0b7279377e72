/**
 * The fake model servers the benchmarks talk to, run as their own process so
 * that the server's CPU is never charged to the loop being measured.
 *
 *   node --import tsx bench/fake-server.ts <anthropic|openai-chat> <turns> <callsPerTurn>
 *
 * `anthropic` serves the Messages API (`test/support/fake-anthropic.ts`),
 * `openai-chat` the Chat Completions API (`test/support/fake-openai.ts`). Both
 * play the same scripted conversation. Prints its base URL as the first line
 * on stdout, then serves until its stdin closes (the parent exiting) or it
 * receives SIGTERM. Every answer is derived from the request alone, so both
 * loops see byte-identical streams: the turn number is one more than the
 * assistant messages already sent.
 */

import type { RecordedRequest, ScriptedAnthropicTurn } from '../test/support/fake-anthropic'
import type { ScriptedChatTurn } from '../test/support/fake-openai'
import type { BenchProvider } from './server-process'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { startFakeOpenAI } from '../test/support/fake-openai'

const provider = providerArg(process.argv[2])
const turns = positiveInt(process.argv[3], 'turns')
const callsPerTurn = positiveInt(process.argv[4], 'callsPerTurn')

/** A short sentence streamed as several deltas, as a model streams a few tokens at a time. */
const THINKING_ALOUD = ['Let me ', 'look at ', 'the next ', 'file before ', 'I change ', 'anything.']
const FINAL_ANSWER = ['All files ', 'are checked; ', 'nothing else ', 'to do.']

interface BenchCall {
  id: string
  name: string
  input: Record<string, unknown>
}

/** Turn `turn` (1-based) of the scripted conversation, whatever the wire format. */
function benchTurn(turn: number, total: number, calls: number): { text: string[], calls: BenchCall[], outputTokens: number } {
  if (turn >= total)
    return { text: FINAL_ANSWER, calls: [], outputTokens: 12 }
  return {
    text: THINKING_ALOUD,
    calls: Array.from({ length: calls }, (_, n) => ({
      id: `${provider === 'anthropic' ? 'toolu' : 'call'}_bench_${turn}_${n + 1}`,
      name: 'read_note',
      input: { path: `src/module-${turn}-${n + 1}.ts`, maxLines: 40 },
    })),
    outputTokens: 40,
  }
}

function anthropicTurn(turn: number): ScriptedAnthropicTurn {
  const script = benchTurn(turn, turns, callsPerTurn)
  return {
    text: script.text,
    ...(script.calls.length > 0 ? { toolCalls: script.calls } : {}),
    usage: { input_tokens: 1200, output_tokens: script.outputTokens },
  }
}

/** Same script as Chat Completions chunks: each call's arguments also stream in three fragments. */
function chatTurn(turn: number): ScriptedChatTurn {
  const script = benchTurn(turn, turns, callsPerTurn)
  return {
    text: script.text,
    ...(script.calls.length > 0 ? { toolCalls: script.calls } : {}),
    usage: { prompt_tokens: 1200, completion_tokens: script.outputTokens },
  }
}

function turnOf(request: RecordedRequest): number {
  const messages: unknown = request.body?.messages
  if (!Array.isArray(messages))
    return 1
  return messages.filter(message => (message as { role?: unknown })?.role === 'assistant').length + 1
}

function providerArg(value: string | undefined): BenchProvider {
  if (value === 'anthropic' || value === 'openai-chat')
    return value
  throw new Error(`fake-server: <provider> must be anthropic or openai-chat, got ${value}`)
}

function positiveInt(value: string | undefined, name: string): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`fake-server: <${name}> must be a positive integer, got ${value}`)
  return parsed
}

async function startServer(): Promise<{ url: string, close: () => Promise<void> }> {
  // The recorded requests are not needed here; dropping them keeps the child's memory flat.
  if (provider === 'anthropic') {
    const server = await startFakeAnthropic({
      fallback: (request) => {
        server.requests.length = 0
        return { type: 'turn', turn: anthropicTurn(turnOf(request)) }
      },
    })
    return server
  }
  const server = await startFakeOpenAI({
    fallback: (request) => {
      server.requests.length = 0
      return { type: 'turn', turn: chatTurn(turnOf(request)) }
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
