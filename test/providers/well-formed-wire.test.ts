import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildAnthropicRequest } from '../../src/providers/anthropic'
import { buildChatRequest } from '../../src/providers/openai-chat'
import { buildResponsesRequest } from '../../src/providers/openai/responses'
import { wellFormedBlock, wellFormedValue } from '../../src/providers/well-formed'
import { wellFormedText } from '../../src/text/well-formed-text'
import { loneSurrogateAt } from '../support/strict-wire'
import { streamOptions } from './anthropic-fixtures'
import { chatOptions, dialect } from './openai-chat-fixtures'
import { responsesOptions } from './openai-responses-fixtures'

/** Text with lone surrogates, whole pairs, ASCII and other code points mixed in. */
const broken = fc.string({ unit: fc.oneof(fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '😀', 'é', 'a', ' ', '"', '\\'), fc.string({ unit: 'binary', maxLength: 2 })), maxLength: 16 })

/** An unpaired surrogate escape in the JSON text: `\ud800`–`\udfff` not part of a pair, not itself escaped. */
const LONE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:d[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|d[c-f][0-9a-f]{2})/i

function expectWellFormedBody(body: unknown): void {
  const json = JSON.stringify(body)
  expect(loneSurrogateAt(JSON.parse(json))).toBeUndefined()
  // A leading high escape is only allowed when a low one follows; a low escape never stands alone.
  expect(stripPairs(json)).not.toMatch(LONE_ESCAPE)
}

/** The JSON text with every escaped surrogate pair removed, so what remains of a surrogate escape is unpaired. */
function stripPairs(json: string): string {
  return json.replace(/\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}/gi, '')
}

const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof({ maxDepth: 3 }, broken, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(broken, tie('value'), { maxKeys: 3 })),
})).value

const block: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: broken }),
  fc.record({ type: fc.constant('tool_call' as const), id: broken, name: broken, input: fc.dictionary(broken, json, { maxKeys: 3 }) }),
  fc.record({
    type: fc.constant('tool_result' as const),
    callId: broken,
    output: fc.oneof(broken, fc.array(fc.record({ type: fc.constant('text' as const), text: broken }), { maxLength: 3 })),
    isError: fc.option(fc.boolean(), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('thinking' as const), text: broken, signature: fc.constant('SIG'), signatureProducer: fc.constant('anthropic') }),
  fc.record({ type: fc.constant('document' as const), data: broken, encoding: fc.constant('text' as const), mediaType: fc.constant('text/plain'), name: broken }),
)

const messages: fc.Arbitrary<SessionMessage[]> = fc.array(fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(block, { minLength: 1, maxLength: 4 }),
}), { minLength: 1, maxLength: 6 })

const tools = fc.array(fc.record({ name: broken, description: broken, inputSchema: fc.record({ type: fc.constant('object'), properties: fc.dictionary(broken, fc.record({ description: broken })) }) }), { maxLength: 3 })

const request = fc.record({ messages, tools, system: broken })

describe('request bodies never carry a lone surrogate', () => {
  it('anthropic', () => {
    fc.assert(fc.property(request, (input) => {
      expectWellFormedBody(buildAnthropicRequest(streamOptions(input)).body)
    }), { numRuns: 300 })
  })

  it('chat completions, model options included', () => {
    fc.assert(fc.property(request, broken, (input, stop) => {
      expectWellFormedBody(buildChatRequest(chatOptions({ ...input, modelOptions: { stop: [stop], user: stop } }), dialect()))
    }), { numRuns: 300 })
  })

  it('responses', () => {
    fc.assert(fc.property(request, (input) => {
      expectWellFormedBody(buildResponsesRequest(responsesOptions(input), { providerName: 'openai' }))
    }), { numRuns: 300 })
  })
})

describe('well-formed text', () => {
  it('replaces each lone surrogate with U+FFFD and keeps whole pairs', () => {
    expect(wellFormedText('a\uD800b\uDC00c😀')).toBe('a\uFFFDb\uFFFDc😀')
    expect(wellFormedText('\uDBFF\uDFFF')).toBe('\uDBFF\uDFFF')
  })

  it('hands clean values back unchanged, the same object', () => {
    const value = { a: ['x', { b: 'é😀' }], n: 1 }
    expect(wellFormedValue(value)).toBe(value)
    const block: SessionContentBlock = { type: 'tool_call', id: 'call_1', name: 'f', input: { k: 'v' } }
    expect(wellFormedBlock(block)).toBe(block)
  })

  it('turns what JSON cannot carry into text: a bigint, a value that contains itself', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const shared = { x: 1 }
    const clean = wellFormedValue({ big: 12345678901234567890n, cyclic, a: shared, b: shared })
    expect(JSON.stringify(clean)).toBe('{"big":"12345678901234567890","cyclic":{"name":"loop","self":"[circular reference]"},"a":{"x":1},"b":{"x":1}}')
  })

  it('copies only what changed, keeping key order, and leaves the call id to the id mapping', () => {
    const block: SessionContentBlock = { type: 'tool_call', id: 'id\uD800', name: 'f', input: { a: 1, [`b\uDC00`]: 'x', c: ['ok', 'no\uD800'] } }
    const clean = wellFormedBlock(block) as Extract<SessionContentBlock, { type: 'tool_call' }>
    expect(clean).not.toBe(block)
    expect(clean.id).toBe('id\uD800')
    expect(Object.keys(clean.input)).toEqual(['a', 'b\uFFFD', 'c'])
    expect(clean.input.c).toEqual(['ok', 'no\uFFFD'])
    expect(wellFormedBlock(block)).toBe(clean)
    // The session block is untouched.
    expect(Object.keys(block.input)).toEqual(['a', 'b\uDC00', 'c'])
  })
})
