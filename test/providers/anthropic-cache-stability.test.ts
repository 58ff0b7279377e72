import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildAnthropicRequest } from '../../src/providers/anthropic'
import { streamOptions } from './anthropic-fixtures'

const id = fc.stringMatching(/^toolu_[a-z0-9]{1,6}$/)

const block: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant('tool_call' as const), id, name: fc.constantFrom('read_file', 'shell'), input: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })) }),
  fc.record({ type: fc.constant('tool_result' as const), callId: id, output: fc.string({ maxLength: 12 }), isError: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ type: fc.constant('thinking' as const), text: fc.string({ maxLength: 12 }), signature: fc.string({ minLength: 1, maxLength: 6 }), signatureProducer: fc.constantFrom('anthropic', 'openai') }),
  fc.record({ type: fc.constant('redacted_thinking' as const), data: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ type: fc.constant('image' as const), data: fc.base64String({ minLength: 4, maxLength: 12 }), mediaType: fc.constant('image/png') }),
)

const message: fc.Arbitrary<SessionMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(block, { maxLength: 4 }),
})

const settings = fc.record({
  cacheTtl: fc.constantFrom('5m' as const, '1h' as const),
  thinking: fc.constantFrom('off' as const, 'high' as const, 'adaptive' as const),
})

function request(messages: SessionMessage[], extra: { cacheTtl: '5m' | '1h', thinking: 'off' | 'high' | 'adaptive' }) {
  const tools = [{ name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }, { name: 'shell', description: 'Run', inputSchema: { type: 'object' } }]
  return buildAnthropicRequest(streamOptions({ messages, tools, ...extra })).body
}

/** JSON of a value with every cache breakpoint removed. */
function withoutBreakpoints(value: unknown): string {
  return JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner)
}

describe('prompt-cache stability', () => {
  it('appending a message leaves every earlier byte alone except the moving breakpoint', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), message, settings, (history, next, extra) => {
      const before = request(history, extra)
      const after = request([...history, next], extra)

      // The cached prefix (model settings, system, tools) is unchanged byte for byte.
      expect(JSON.stringify(after.system)).toBe(JSON.stringify(before.system))
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools))
      expect(after.max_tokens).toBe(before.max_tokens)
      expect(JSON.stringify(after.thinking)).toBe(JSON.stringify(before.thinking))

      // Every message before the last one is identical, breakpoints included (only the last carries one).
      const last = before.messages.length - 1
      for (let i = 0; i < last; i++)
        expect(JSON.stringify(after.messages[i])).toBe(JSON.stringify(before.messages[i]))

      // The old last message may only lose its breakpoint, or grow when the new message merges into it.
      if (last >= 0) {
        expect(after.messages[last].role).toBe(before.messages[last].role)
        const oldBlocks = before.messages[last].content as unknown[]
        const newBlocks = after.messages[last].content as unknown[]
        expect(newBlocks.length).toBeGreaterThanOrEqual(oldBlocks.length)
        oldBlocks.forEach((oldBlock, i) => expect(withoutBreakpoints(newBlocks[i])).toBe(withoutBreakpoints(oldBlock)))
      }
      expect(after.messages.length).toBeGreaterThanOrEqual(before.messages.length)
    }), { numRuns: 300 })
  })

  it('the same conversation always serializes to the same bytes', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), settings, (history, extra) => {
      expect(JSON.stringify(request(structuredClone(history), extra))).toBe(JSON.stringify(request(history, extra)))
    }), { numRuns: 100 })
  })
})

/** Breakpoints inside the messages of a request body. */
function messageBreakpoints(body: { messages: unknown }): number {
  let count = 0
  JSON.stringify(body.messages, (key, inner) => {
    if (key === 'cache_control')
      count++
    return inner
  })
  return count
}

describe('converted messages are remembered across requests', () => {
  it('a request built from remembered messages equals one built cold, with one message breakpoint', () => {
    const extra = { cacheTtl: '5m' as const, thinking: 'off' as const }
    fc.assert(fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(message, { minLength: 1, maxLength: 4 }), (history, appended) => {
      const first = request(history, extra)
      const warm = request([...history, ...appended], extra)
      // Fresh objects: nothing remembered applies, so this is the conversion done from scratch.
      const cold = request(structuredClone([...history, ...appended]), extra)
      expect(JSON.stringify(warm)).toBe(JSON.stringify(cold))
      // The earlier request's breakpoint was never written into what later requests reuse.
      expect(messageBreakpoints(warm)).toBeLessThanOrEqual(1)
      expect(messageBreakpoints(first)).toBeLessThanOrEqual(1)
    }))
  })

  it('a message whose content array gets a new block is converted again', () => {
    const extra = { cacheTtl: '5m' as const, thinking: 'off' as const }
    const content: SessionContentBlock[] = [{ type: 'text', text: 'first' }]
    const messages: SessionMessage[] = [{ role: 'user', content }]
    expect(JSON.stringify(request(messages, extra).messages)).toContain('first')
    content.push({ type: 'text', text: 'second' })
    expect(JSON.stringify(request(messages, extra).messages)).toContain('second')
  })
})
