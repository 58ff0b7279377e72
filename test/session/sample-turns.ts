import type { SessionTurn } from '../../src/core/content'
import type { SessionRun } from '../../src/session/types'

/** A user prompt turn. */
export function userTurn(id: string, text: string, extra: Partial<SessionTurn> = {}): SessionTurn {
  return { id, role: 'user', content: [{ type: 'text', text }], createdAt: 1_764_460_800_000, ...extra }
}

/** An assistant turn with thinking, text and a tool call, the shape most turns of a tool loop have. */
export function assistantTurn(id: string, runId = 'run_1'): SessionTurn {
  return {
    id,
    role: 'assistant',
    runId,
    createdAt: 1_764_460_801_000,
    content: [
      { type: 'thinking', text: `Reading the file before editing (${id}).`, signature: 'EqQBCkYIBxgCKkD3', signatureProducer: 'anthropic' },
      { type: 'text', text: 'Let me look at the test first.' },
      { type: 'tool_call', id: `call_${id}`, name: 'read_file', input: { path: 'src/index.ts', offset: 1, limit: 200 } },
    ],
    usage: { input: 1200, output: 85, cacheRead: 1000, modelId: 'claude-sonnet-5-5', provider: 'anthropic', finishReason: 'tool-calls' },
  }
}

/** The user turn answering `assistantTurn(id)`'s tool call. */
export function toolResultTurn(id: string, callId: string, output = 'export const x = 1\n'): SessionTurn {
  return {
    id,
    role: 'user',
    runId: 'run_1',
    createdAt: 1_764_460_802_000,
    content: [{ type: 'tool_result', callId, output, durationMs: 12 }],
  }
}

export function run(id: string, extra: Partial<SessionRun> = {}): SessionRun {
  return { id, status: 'running', startedAt: 1_764_460_800_000, ...extra }
}

/** Text made of every kind of string JSON must carry through unchanged. */
export const AWKWARD_TEXT = [
  'emoji 🧑‍💻🚀👍🏽 flags 🇸🇮',
  'CJK 漢字かなカナ 한국어',
  'RTL שלום مرحبا',
  'combining é (e + U+0301)',
  'controls \u0000 \u0001 \t \r\n end',
  'separators \u2028 \u2029',
  'quotes " \' ` and backslash \\ and slash /',
  'lone surrogates \uD800 \uDFFF \uDBFF\uDBFF',
  'non-characters \uFFFE \uFFFF',
].join('\n')
