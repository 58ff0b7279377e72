import type { SessionTurn } from '../../src/core/content'
import type { TurnFinishReason } from '../../src/core/stats'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { autoCompact } from '../../src/policies/auto-compact'
import { messagesBytes, SUMMARY_MAX_OUTPUT_TOKENS, summaryOutputCeiling, utf8Bytes } from '../../src/policies/summary-limits'
import { runPolicyScript } from '../../src/testing'
import { wireMessageOf } from '../../src/wire/messages'

const turn = (id: string, role: SessionTurn['role'], content: SessionTurn['content']): SessionTurn => ({ id, role, content, createdAt: 0 })

describe('the summary limits', () => {
  it('count UTF-8 bytes as the wire encodes them, lone surrogates included', () => {
    fc.assert(fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\uD800', '\uDFFF', '\uD83D\uDE00'), fc.string({ unit: 'binary', maxLength: 1 })) }), (text) => {
      expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'))
    }))
  })

  it('give every window a ceiling of at most a tenth of it and at most 8192 tokens', () => {
    fc.assert(fc.property(fc.integer({ min: 10, max: 10_000_000 }), (window) => {
      const ceiling = summaryOutputCeiling(window)
      expect(ceiling).toBeGreaterThanOrEqual(1)
      expect(ceiling).toBeLessThanOrEqual(Math.min(SUMMARY_MAX_OUTPUT_TOKENS, window / 10))
    }))
    expect(summaryOutputCeiling(undefined)).toBe(SUMMARY_MAX_OUTPUT_TOKENS)
  })

  it('keep a summary only when it is whole, within its ceiling and smaller than what it replaces', async () => {
    const older = (output: string): SessionTurn[] => [
      turn('u0', 'user', [{ type: 'text', text: 'go' }]),
      turn('a1', 'assistant', [{ type: 'tool_call', id: 'c1', name: 'dump', input: {} }]),
      turn('r1', 'user', [{ type: 'tool_result', callId: 'c1', output }]),
      turn('a2', 'assistant', [{ type: 'tool_call', id: 'c2', name: 'dump', input: {} }]),
      turn('r2', 'user', [{ type: 'tool_result', callId: 'c2', output: 'x' }]),
    ]
    const finish = fc.constantFrom<TurnFinishReason>('stop', 'length', 'other', 'tool-calls')
    await fc.assert(fc.asyncProperty(fc.integer({ min: 100, max: 400_000 }), fc.string({ maxLength: 3000 }), fc.string({ maxLength: 3000 }), finish, async (window, output, text, finishReason) => {
      const turns = older(output)
      const script = await runPolicyScript(autoCompact, {
        behavior: { autoCompact: { contextWindow: window, keepTurns: 2, restore: false } },
        turns,
        complete: () => ({ text, usage: { input: 10, output: 10, finishReason }, model: 'm' }),
        steps: [{ phase: 'afterTurn', usage: { input: window }, toolResults: [{ callId: 'c2', output: 'x', isError: false }] }],
      })
      const end = script.events.find(event => event.hook === 'compact:end')!.context as { summary?: string, refused?: string }
      const replaced = messagesBytes(turns.slice(0, 3).map(t => wireMessageOf(t)!))
      const kept = end.summary !== undefined
      expect(kept).toBe(end.refused === undefined)
      expect(script.steps[0].phase === 'afterTurn' && script.steps[0].messages.length).toBe(kept ? 1 : 0)
      if (kept) {
        expect(finishReason).not.toBe('length')
        expect(utf8Bytes(end.summary!)).toBeLessThan(replaced)
        expect(Math.ceil(utf8Bytes(end.summary!) / 4)).toBeLessThanOrEqual(window / 10)
      }
    }), { numRuns: 150 })
  })
})
