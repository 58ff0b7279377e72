import { describe, expect, it } from 'vitest'
import { FINAL_TEXT } from '../../bench/loop-script'
import { loopSmoke } from '../../bench/loop-smoke'

// The loop-overhead benchmark's loops on a five-turn run: every zidane
// configuration does the floor's work (same turns, tool calls, final answer,
// same conversation on the wire) and persists every turn, or, with nothing
// persisted, leaves no file behind. No timings here:
// those are the benchmark's (npm run bench).

const TURNS = 5

describe.each([
  ['anthropic', 1],
  ['anthropic', 3],
  ['openai-chat', 1],
  ['openai-chat', 3],
  ['openai-responses', 1],
  ['openai-responses', 3],
] as const)('loop-overhead smoke: %s, %i call(s) per turn', (provider, calls) => {
  it('runs the floor and every configuration to the same end, with every turn persisted and with nothing persisted', async () => {
    const result = await loopSmoke(provider, calls, TURNS)
    const toolCalls = (TURNS - 1) * calls
    expect(result.floor).toMatchObject({ turns: TURNS, toolCalls, text: FINAL_TEXT, requests: TURNS })
    // The prompt, then per turn the assistant message and its results (one `tool` message per call on Chat
    // Completions; on Responses a message item, one `function_call` and one `function_call_output` per call).
    const floorMessages = {
      'anthropic': 2 * TURNS,
      'openai-chat': 3 + (TURNS - 1) * (1 + calls),
      'openai-responses': 2 + (TURNS - 1) * (1 + 2 * calls),
    }[provider]
    expect(result.floor.persisted).toBe(floorMessages)
    for (const config of ['defaults', 'policies', 'telemetry'] as const) {
      expect(result.zidane[config], config).toEqual({
        turns: TURNS,
        toolCalls,
        text: FINAL_TEXT,
        requests: TURNS,
        // The prompt, then each turn's assistant turn and (but for the last) its tool-result turn.
        persisted: 2 * TURNS,
        stopReason: 'completed',
        sameConversation: true,
      })
    }
    // With nothing persisted, the same work and the same conversation, and no file left behind.
    expect(result.unpersisted.floor).toEqual({ turns: TURNS, toolCalls, text: FINAL_TEXT, requests: TURNS, persisted: 0 })
    for (const config of ['defaults', 'policies'] as const) {
      expect(result.unpersisted.zidane[config], config).toEqual({
        turns: TURNS,
        toolCalls,
        text: FINAL_TEXT,
        requests: TURNS,
        persisted: 0,
        stopReason: 'completed',
        sameConversation: true,
      })
    }
  })
})
