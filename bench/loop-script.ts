/**
 * The scripted conversation of the loop benchmark and the fake server that
 * plays it, for either wire format. `fake-server.ts` runs it in a child
 * process for timing (so its CPU is not charged to the loops); the smoke
 * test runs it in-process with `keepRequests`, to compare what the loops sent.
 *
 * Every answer is derived from the request alone, so every loop sees
 * byte-identical streams: the turn number is one more than the assistant
 * messages already sent. Turns before the last stream six text deltas and
 * `callsPerTurn` calls of `read_note`; the last answers with text only.
 */

import type { RecordedRequest, ScriptedAnthropicTurn } from '../test/support/fake-anthropic'
import type { ScriptedChatTurn } from '../test/support/fake-openai'
import type { ScriptedResponsesTurn } from '../test/support/openai-responses-sse'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { startFakeOpenAI } from '../test/support/fake-openai'
import { responsesEvents } from '../test/support/openai-responses-sse'

/** Which fake API is served: the Anthropic Messages API, OpenAI Chat Completions or the OpenAI Responses API. */
export type BenchProvider = 'anthropic' | 'openai-chat' | 'openai-responses'

/** A running scripted server. */
export interface BenchServer {
  url: string
  /** The requests received, in order; empty unless started with `keepRequests`. */
  requests: readonly RecordedRequest[]
  close: () => Promise<void>
}

/** A short sentence streamed as several deltas, as a model streams a few tokens at a time. */
const THINKING_ALOUD = ['Let me ', 'look at ', 'the next ', 'file before ', 'I change ', 'anything.']
const FINAL_ANSWER = ['All files ', 'are checked; ', 'nothing else ', 'to do.']

/** The text of the last turn, as a loop that streamed it whole should report it. */
export const FINAL_TEXT = FINAL_ANSWER.join('')

interface BenchCall {
  id: string
  name: string
  input: Record<string, unknown>
}

/** Turn `turn` (1-based) of the scripted conversation, whatever the wire format. */
function benchTurn(provider: BenchProvider, turn: number, total: number, calls: number): { text: string[], calls: BenchCall[], outputTokens: number } {
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

/** One more than the assistant messages in the request (`messages`, or the Responses API's `input` items). */
function turnOf(request: RecordedRequest): number {
  const messages: unknown = request.body?.messages ?? request.body?.input
  if (!Array.isArray(messages))
    return 1
  return messages.filter(message => (message as { role?: unknown })?.role === 'assistant').length + 1
}

/**
 * Serve a `turns`-turn conversation with `callsPerTurn` tool calls per turn.
 * Without `keepRequests` the recorded requests are dropped as they come, so
 * a long benchmark keeps the server's memory flat.
 */
export async function startBenchServer(provider: BenchProvider, turns: number, callsPerTurn: number, options: { keepRequests?: boolean } = {}): Promise<BenchServer> {
  const keep = options.keepRequests === true
  if (provider === 'anthropic') {
    const server = await startFakeAnthropic({
      fallback: (request) => {
        if (!keep)
          server.requests.length = 0
        const script = benchTurn(provider, turnOf(request), turns, callsPerTurn)
        const turn: ScriptedAnthropicTurn = {
          text: script.text,
          ...(script.calls.length > 0 ? { toolCalls: script.calls } : {}),
          usage: { input_tokens: 1200, output_tokens: script.outputTokens },
        }
        return { type: 'turn', turn }
      },
    })
    return server
  }
  if (provider === 'openai-responses') {
    const server = await startFakeOpenAI({
      fallback: (request) => {
        if (!keep)
          server.requests.length = 0
        // Same script as Responses events: the text as one message item, then one function_call item per call.
        const script = benchTurn(provider, turnOf(request), turns, callsPerTurn)
        const turn: ScriptedResponsesTurn = {
          text: script.text,
          ...(script.calls.length > 0 ? { toolCalls: script.calls.map(call => ({ name: call.name, input: call.input, callId: call.id })) } : {}),
          usage: { input_tokens: 1200, output_tokens: script.outputTokens },
          model: 'gpt-5.2',
        }
        return { type: 'sse', events: responsesEvents(turn) }
      },
    })
    return server
  }
  const server = await startFakeOpenAI({
    fallback: (request) => {
      if (!keep)
        server.requests.length = 0
      // Same script as Chat Completions chunks: each call's arguments also stream in three fragments.
      const script = benchTurn(provider, turnOf(request), turns, callsPerTurn)
      const turn: ScriptedChatTurn = {
        text: script.text,
        ...(script.calls.length > 0 ? { toolCalls: script.calls } : {}),
        usage: { prompt_tokens: 1200, completion_tokens: script.outputTokens },
      }
      return { type: 'turn', turn }
    },
  })
  return server
}
