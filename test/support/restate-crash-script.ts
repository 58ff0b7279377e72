/**
 * The scripted run of the Restate crash test: what the fake model answers
 * and which tools it calls. The model's answer to a request is a pure
 * function of that request (the `next=` marker of the last tool result, or a
 * summary request), so a worker that dies and asks again gets the same
 * answer, and a request asked twice shows in the fake server's log.
 * Free of test-runner imports: the worker process imports it too.
 */
import type { FakeResponse, RecordedRequest } from './fake-anthropic'

/** A turn: its text and its tool calls (a batch runs in parallel). */
interface ScriptTurn {
  text: string
  calls: { name: 'lookup' | 'charge' | 'audit', input: Record<string, unknown> }[]
  /** Input tokens the turn reports: a large one makes the next boundary compact. */
  inputTokens?: number
}

/** 12 model turns, 16 tool calls (4 parallel batches), one compaction: 29 model and tool steps, about 60 journal entries with the session writes. */
export const CRASH_SCRIPT: readonly ScriptTurn[] = [
  { text: 'Looking the order up.', calls: [{ name: 'lookup', input: { order: 'A-1' } }] },
  { text: 'Charging and auditing together.', calls: [{ name: 'charge', input: { order: 'A-1', cents: 500 } }, { name: 'audit', input: { order: 'A-1', slowMs: 200 } }] },
  { text: 'One more charge.', calls: [{ name: 'charge', input: { order: 'A-2', cents: 125 } }] },
  { text: 'Two lookups at once.', calls: [{ name: 'lookup', input: { order: 'A-2' } }, { name: 'lookup', input: { order: 'A-3' } }] },
  { text: 'Charging A-3.', calls: [{ name: 'charge', input: { order: 'A-3', cents: 900 } }], inputTokens: 7_000 },
  { text: 'After the summary: audit.', calls: [{ name: 'audit', input: { order: 'A-3', slowMs: 20 } }] },
  { text: 'A batch of three.', calls: [{ name: 'charge', input: { order: 'B-1', cents: 10 } }, { name: 'lookup', input: { order: 'B-1' } }, { name: 'audit', input: { order: 'B-1', slowMs: 60 } }] },
  { text: 'Charging B-2.', calls: [{ name: 'charge', input: { order: 'B-2', cents: 20 } }] },
  { text: 'Looking B-2 up.', calls: [{ name: 'lookup', input: { order: 'B-2' } }] },
  { text: 'Last batch: two slow audits.', calls: [{ name: 'audit', input: { order: 'B-3', slowMs: 80 } }, { name: 'audit', input: { order: 'B-4', slowMs: 80 } }] },
  { text: 'Checking B-3.', calls: [{ name: 'lookup', input: { order: 'B-3' } }] },
  { text: 'All orders are charged and audited.', calls: [] },
]

/** The context window the worker's auto-compaction measures against (turn 4's input tokens cross it). */
export const CRASH_CONTEXT_WINDOW = 8_000

export const SUMMARY_TEXT = 'SUMMARY: orders A-1..A-3 looked up, charged and audited.'

/** The marker a tool result carries: the turn the model answers next. */
export function nextMarker(turn: number): string {
  return `next=${turn}`
}

const NEXT_MARKER = /next=(\d+)/

/** The fake model: a pure function of the request. */
export function answer(request: RecordedRequest): FakeResponse {
  const body = request.body as { messages?: { role: string, content: unknown }[] }
  if (isSummaryRequest(request))
    return { type: 'turn', turn: { text: SUMMARY_TEXT, usage: { input_tokens: 300, output_tokens: 20 } } }
  const text = JSON.stringify(body.messages?.at(-1)?.content ?? '')
  const marker = NEXT_MARKER.exec(text)
  const index = marker ? Number(marker[1]) : 0
  const turn = CRASH_SCRIPT[index]
  return {
    type: 'turn',
    turn: {
      // Two deltas, so a live stream shows as more than one event.
      text: [turn.text.slice(0, 6), turn.text.slice(6)],
      toolCalls: turn.calls.map((call, j) => ({ id: `toolu_${index}_${j}`, name: call.name, input: { ...call.input, turn: index } })),
      usage: { input_tokens: turn.inputTokens ?? 1_000 + index * 100, output_tokens: 30 },
    },
  }
}

/** Whether a recorded request is a compaction summary request. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  const body = request.body as { messages?: { content: unknown }[] }
  return JSON.stringify(body.messages?.at(-1)?.content ?? '').includes('about to be compacted')
}
