import type { SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anthropicToolUseId, buildAnthropicRequest } from '../../src/providers/anthropic'
import { buildChatRequest, wireToolCallId } from '../../src/providers/openai-chat'
import { buildResponsesRequest, responsesCallId } from '../../src/providers/openai/responses'
import { streamOptions } from './anthropic-fixtures'
import { chatOptions, dialect } from './openai-chat-fixtures'
import { responsesOptions } from './openai-responses-fixtures'

// Every API has its own rule for tool-call ids; a conversation begun elsewhere
// carries ids of any shape. Each rule must give valid ids, the same bytes every
// time, never one wire id for two session ids, and leave valid ids alone.

interface Rule {
  name: string
  map: (id: string) => string
  valid: RegExp
}

const RULES: Rule[] = [
  { name: 'anthropic', map: anthropicToolUseId, valid: /^[\w-]{1,64}$/ },
  { name: 'chat completions', map: id => wireToolCallId(id), valid: /^[\w-]{1,40}$/ },
  { name: 'chat completions (mistral)', map: id => wireToolCallId(id, 'mistral'), valid: /^[A-Z0-9]{9}$/i },
  { name: 'responses', map: responsesCallId, valid: /^[\w-]{1,64}$/ },
]

/** Any UTF-16 string, lone surrogates included, from empty to well past every limit. */
const anyId = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '-', '.', ':', '/', '|', ' ', 'é', '\uD800', '\uDC00', '😀'), maxLength: 90 }),
  fc.stringMatching(/^[\w-]{1,70}$/),
)

describe.each(RULES)('tool-call ids on $name', ({ map, valid }) => {
  it('maps any id to a valid one, the same every time', () => {
    fc.assert(fc.property(anyId, (id) => {
      const wire = map(id)
      expect(wire).toMatch(valid)
      expect(map(id)).toBe(wire)
    }), { numRuns: 500 })
  })

  it('keeps ids the API accepts byte for byte', () => {
    fc.assert(fc.property(anyId, (id) => {
      if (valid.test(id))
        expect(map(id)).toBe(id)
    }), { numRuns: 500 })
  })

  it('never maps two ids of one conversation to the same wire id', () => {
    fc.assert(fc.property(fc.uniqueArray(anyId, { minLength: 2, maxLength: 40 }), (ids) => {
      expect(new Set(ids.map(map)).size).toBe(ids.length)
    }), { numRuns: 300 })
  })

  it('keeps ids that differ only in a lone surrogate apart', () => {
    expect(map('call_\uD800')).not.toBe(map('call_\uD801'))
  })
})

/** Every `(call id, result id)` pair as each builder sends it, for a conversation of odd ids. */
function conversation(ids: readonly string[]): SessionMessage[] {
  const messages: SessionMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }]
  for (const id of ids) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_call', id, name: 'lookup', input: { id } }] })
    messages.push({ role: 'user', content: [{ type: 'tool_result', callId: id, output: `answer ${id.length}` }] })
  }
  return messages
}

function anthropicPairs(messages: SessionMessage[]): [string[], string[]] {
  const body = buildAnthropicRequest(streamOptions({ messages, cache: false })).body
  const blocks = body.messages.flatMap(m => Array.isArray(m.content) ? m.content : []) as Array<{ type: string, id?: string, tool_use_id?: string }>
  return [blocks.filter(b => b.type === 'tool_use').map(b => b.id!), blocks.filter(b => b.type === 'tool_result').map(b => b.tool_use_id!)]
}

function chatPairs(messages: SessionMessage[]): [string[], string[]] {
  const body = buildChatRequest(chatOptions({ messages }), dialect())
  const wire = body.messages as Array<{ role: string, tool_calls?: { id: string }[], tool_call_id?: string }>
  return [wire.flatMap(m => m.tool_calls?.map(c => c.id) ?? []), wire.flatMap(m => m.role === 'tool' ? [m.tool_call_id!] : [])]
}

function responsesPairs(messages: SessionMessage[]): [string[], string[]] {
  const body = buildResponsesRequest(responsesOptions({ messages }), { providerName: 'openai' })
  const items = body.input as Array<{ type: string, call_id?: string }>
  return [items.filter(i => i.type === 'function_call').map(i => i.call_id!), items.filter(i => i.type === 'function_call_output').map(i => i.call_id!)]
}

describe.each([
  { name: 'anthropic', pairs: anthropicPairs, valid: /^[\w-]{1,64}$/ },
  { name: 'chat completions', pairs: chatPairs, valid: /^[\w-]{1,40}$/ },
  { name: 'responses', pairs: responsesPairs, valid: /^[\w-]{1,64}$/ },
])('request bodies on $name', ({ pairs, valid }) => {
  it('pair every call with its result under one valid, distinct id, and give the same bytes again', () => {
    fc.assert(fc.property(fc.uniqueArray(anyId, { minLength: 1, maxLength: 6 }), (ids) => {
      const [calls, results] = pairs(conversation(ids))
      expect(results).toEqual(calls)
      expect(new Set(calls).size).toBe(ids.length)
      for (const id of calls)
        expect(id).toMatch(valid)
      expect(pairs(structuredClone(conversation(ids)))).toEqual([calls, results])
    }), { numRuns: 150 })
  })

  it('sends `call.odd:id/1` under a valid id', () => {
    const [calls] = pairs(conversation(['call.odd:id/1']))
    expect(calls[0]).toMatch(/^call_odd_id_1_[0-9a-f]{24}$/)
  })
})
