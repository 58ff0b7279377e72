import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildResponsesRequest, encodeReasoningSignature } from '../../src/providers/openai/responses'
import { responsesOptions } from './openai-responses-fixtures'

const callId = fc.oneof(fc.stringMatching(/^call_[a-z0-9]{1,6}$/), fc.stringMatching(/^toolu_[a-z0-9]{1,6}$/))

const reasoning: fc.Arbitrary<SessionContentBlock> = fc.record({
  id: fc.stringMatching(/^rs_[a-z0-9]{1,6}$/),
  next: fc.option(fc.oneof(
    fc.constant({ type: 'message' as const }),
    callId.map(id => ({ type: 'function_call' as const, callId: id })),
  ), { nil: undefined }),
  text: fc.string({ maxLength: 8 }),
}).map(({ id, next, text }) => ({
  type: 'thinking' as const,
  text,
  signature: encodeReasoningSignature({ id, encryptedContent: `enc-${id}`, next }),
  signatureProducer: 'openai',
}))

const block: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant('tool_call' as const), id: callId, name: fc.constantFrom('read_file', 'shell'), input: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })) }),
  fc.record({ type: fc.constant('tool_result' as const), callId, output: fc.string({ maxLength: 12 }), isError: fc.option(fc.boolean(), { nil: undefined }) }),
  reasoning,
  fc.record({ type: fc.constant('thinking' as const), text: fc.string({ maxLength: 8 }), signature: fc.string({ minLength: 1, maxLength: 6 }), signatureProducer: fc.constant('anthropic') }),
  fc.record({ type: fc.constant('image' as const), data: fc.base64String({ minLength: 4, maxLength: 12 }), mediaType: fc.constant('image/png') }),
)

const message: fc.Arbitrary<SessionMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(block, { maxLength: 5 }),
})

const thinking = fc.constantFrom('off' as const, 'low' as const, 'high' as const)

function request(messages: SessionMessage[], level: 'off' | 'low' | 'high') {
  const tools = [{ name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }, { name: 'shell', description: 'Run', inputSchema: { type: 'object' } }]
  return buildResponsesRequest(responsesOptions({ messages, tools, thinking: level }), { providerName: 'openai' })
}

describe('prompt-cache stability', () => {
  it('appending a message leaves every earlier byte of the request unchanged', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), message, thinking, (history, next, level) => {
      const before = request(history, level)
      const after = request([...history, next], level)
      const { input: beforeInput, ...beforeRest } = before
      const { input: afterInput, ...afterRest } = after

      expect(JSON.stringify(afterRest)).toBe(JSON.stringify(beforeRest))
      expect(JSON.stringify(afterInput.slice(0, beforeInput.length))).toBe(JSON.stringify(beforeInput))
    }), { numRuns: 300 })
  })

  it('the same conversation always serializes to the same bytes', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), thinking, (history, level) => {
      expect(JSON.stringify(request(structuredClone(history), level))).toBe(JSON.stringify(request(history, level)))
    }), { numRuns: 100 })
  })
})
