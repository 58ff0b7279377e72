/**
 * The fake Anthropic server the benchmarks talk to, run as its own process so
 * that its CPU is never charged to the loop being measured.
 *
 *   node --import tsx bench/fake-server.ts <turns> <callsPerTurn>
 *
 * Prints its base URL as the first line on stdout, then serves until its
 * stdin closes (the parent exiting) or it receives SIGTERM. Every answer is
 * derived from the request alone, so both loops see byte-identical streams:
 * the turn number is one more than the assistant messages already sent.
 */

import type { RecordedRequest, ScriptedAnthropicTurn } from '../test/support/fake-anthropic'
import { startFakeAnthropic } from '../test/support/fake-anthropic'

const turns = positiveInt(process.argv[2], 'turns')
const callsPerTurn = positiveInt(process.argv[3], 'callsPerTurn')

/** A short sentence streamed as several deltas, as a model streams a few tokens at a time. */
const THINKING_ALOUD = ['Let me ', 'look at ', 'the next ', 'file before ', 'I change ', 'anything.']
const FINAL_ANSWER = ['All files ', 'are checked; ', 'nothing else ', 'to do.']

/** Turn `turn` (1-based) of the scripted conversation. */
function benchTurn(turn: number, total: number, calls: number): ScriptedAnthropicTurn {
  if (turn >= total)
    return { text: FINAL_ANSWER, usage: { input_tokens: 1200, output_tokens: 12 } }
  return {
    text: THINKING_ALOUD,
    toolCalls: Array.from({ length: calls }, (_, n) => ({
      id: `toolu_bench_${turn}_${n + 1}`,
      name: 'read_note',
      input: { path: `src/module-${turn}-${n + 1}.ts`, maxLines: 40 },
    })),
    usage: { input_tokens: 1200, output_tokens: 40 },
  }
}

function turnOf(request: RecordedRequest): number {
  const messages: unknown = request.body?.messages
  if (!Array.isArray(messages))
    return 1
  return messages.filter(message => (message as { role?: unknown })?.role === 'assistant').length + 1
}

function positiveInt(value: string | undefined, name: string): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`fake-server: <${name}> must be a positive integer, got ${value}`)
  return parsed
}

const server = await startFakeAnthropic({
  fallback: (request) => {
    // The recorded requests are not needed here; dropping them keeps the child's memory flat.
    server.requests.length = 0
    return { type: 'turn', turn: benchTurn(turnOf(request), turns, callsPerTurn) }
  },
})

async function shutdown(): Promise<void> {
  await server.close()
  process.exit(0)
}

process.on('SIGTERM', () => void shutdown())
process.stdin.on('end', () => void shutdown())
process.stdin.on('close', () => void shutdown())
process.stdin.resume()
process.stdout.write(`${server.url}\n`)
