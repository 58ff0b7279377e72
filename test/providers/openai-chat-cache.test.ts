import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildChatRequest } from '../../src/providers/openai-chat'
import { openaiCompatDialect } from '../../src/providers/openai-compat'
import { openrouterDialect } from '../../src/providers/openrouter'
import { assistant, chatOptions, dialect, PNG, READ_TOOL, SHELL_TOOL, text, user } from './openai-chat-fixtures'

const EPHEMERAL = { type: 'ephemeral' }
const tools = [READ_TOOL, SHELL_TOOL]
const conversation = [
  user(text('Read a')),
  assistant(text('ok'), { type: 'tool_call', id: 'call_1', name: 'read_file', input: { path: 'a' } }),
  user({ type: 'tool_result', callId: 'call_1', output: 'contents of a' }),
]

/** JSON of a value with every cache breakpoint removed. */
function withoutBreakpoints(value: unknown): string {
  return JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner)
}

describe('cache breakpoints', () => {
  const compat = openaiCompatDialect({ cacheBreakpoints: true })

  it('mark the system prompt, the last tool and the last message part, using part arrays', () => {
    const body = buildChatRequest(chatOptions({ messages: conversation, tools }), compat)
    expect(body.messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'You are terse.', cache_control: EPHEMERAL }] })
    expect(body.tools?.map(tool => tool.cache_control)).toEqual([undefined, EPHEMERAL])
    expect(body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'contents of a', cache_control: EPHEMERAL }] })
    // Exactly three breakpoints: earlier messages carry none, but keep the part-array shape.
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(3)
    expect(body.messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Read a' }] })
  })

  it('put the one-hour TTL on every breakpoint when the run asks for it', () => {
    const body = buildChatRequest(chatOptions({ messages: conversation, tools, cacheTtl: '1h' }), compat)
    const marks = JSON.stringify(body).match(/"cache_control":\{[^}]*\}/g)
    expect(marks).toEqual(Array.from({ length: 3 }).fill('"cache_control":{"type":"ephemeral","ttl":"1h"}'))
  })

  it('mark the last part of a companion message, which may be an image', () => {
    const messages = [user(text('shoot')), assistant({ type: 'tool_call', id: 'c', name: 'shot', input: {} }), user({ type: 'tool_result', callId: 'c', output: [{ type: 'image', data: PNG, mediaType: 'image/png' }] })]
    const last = buildChatRequest(chatOptions({ messages }), compat).messages.at(-1) as unknown as { content: Array<Record<string, unknown>> }
    expect(last.content.at(-1)).toMatchObject({ type: 'image_url', cache_control: EPHEMERAL })
  })

  it('are left out when the run turns caching off, and plain strings come back', () => {
    const body = buildChatRequest(chatOptions({ messages: conversation, tools, cache: false }), compat)
    expect(JSON.stringify(body)).not.toContain('cache_control')
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' })
  })

  it('are never sent by dialects that cache on their own (OpenAI, compat by default, non-Anthropic OpenRouter routes)', () => {
    for (const [model, target] of [['gpt-5.2', dialect()], ['qwen3', openaiCompatDialect({})], ['openai/gpt-5.2', openrouterDialect()]] as const)
      expect(JSON.stringify(buildChatRequest(chatOptions({ model, messages: conversation, tools }), target))).not.toContain('cache_control')
  })

  it('are sent on OpenRouter\'s Anthropic routes, TTL included', () => {
    const body = buildChatRequest(chatOptions({ model: 'anthropic/claude-sonnet-4.5', messages: conversation, tools, cacheTtl: '1h' }), openrouterDialect())
    expect(body.messages[0].content).toEqual([{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }])
    expect(body.tools?.at(-1)?.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
  })
})

const id = fc.oneof(fc.stringMatching(/^call_[a-z0-9]{1,6}$/), fc.string({ maxLength: 50 }))
const block: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant('tool_call' as const), id, name: fc.constantFrom('read_file', 'shell'), input: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })) }),
  fc.record({ type: fc.constant('tool_result' as const), callId: id, output: fc.oneof(fc.string({ maxLength: 12 }), fc.constant<ToolResultContent[]>([{ type: 'image', data: PNG, mediaType: 'image/png' }])) }),
  fc.record({ type: fc.constant('thinking' as const), text: fc.string({ maxLength: 12 }), signature: fc.string({ minLength: 1, maxLength: 6 }) }),
  fc.record({ type: fc.constant('provider_reasoning' as const), producer: fc.constant('vllm' as const), reasoningText: fc.string({ maxLength: 8 }), model: fc.constant('m') }),
  fc.record({ type: fc.constant('image' as const), data: fc.base64String({ minLength: 4, maxLength: 12 }), mediaType: fc.constant('image/png') }),
)
const message: fc.Arbitrary<SessionMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(block, { maxLength: 4 }),
})
const settings = fc.record({
  cacheBreakpoints: fc.boolean(),
  cacheTtl: fc.constantFrom('5m' as const, '1h' as const),
  thinking: fc.constantFrom('off' as const, 'high' as const, 'adaptive' as const),
  toolResultImages: fc.constantFrom('inline' as const, 'companion' as const),
  replayReasoning: fc.constantFrom(undefined, 'reasoning_content' as const),
})

type Settings = typeof settings extends fc.Arbitrary<infer T> ? T : never

function request(messages: SessionMessage[], extra: Settings) {
  const target = openaiCompatDialect({ cacheBreakpoints: extra.cacheBreakpoints, toolResultImages: extra.toolResultImages, replayReasoning: extra.replayReasoning })
  return buildChatRequest(chatOptions({ model: 'm', messages, tools, cacheTtl: extra.cacheTtl, thinking: extra.thinking }), target)
}

describe('prompt-cache stability', () => {
  it('appending a message leaves every earlier byte alone except the moving breakpoint', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), message, settings, (history, next, extra) => {
      const before = request(history, extra)
      const after = request([...history, next], extra)

      // Everything outside the messages (model, tools, reasoning, streaming) is unchanged byte for byte.
      const { messages: beforeMessages, ...beforeRest } = before
      const { messages: afterMessages, ...afterRest } = after
      expect(JSON.stringify(afterRest)).toBe(JSON.stringify(beforeRest))

      // The earlier messages are a prefix of the new ones, apart from where the breakpoint sat.
      expect(afterMessages.length).toBeGreaterThanOrEqual(beforeMessages.length)
      for (let i = 0; i < beforeMessages.length; i++)
        expect(withoutBreakpoints(afterMessages[i])).toBe(withoutBreakpoints(beforeMessages[i]))
      const marked = (messages: unknown[]) => messages.flatMap((entry, i) => JSON.stringify(entry).includes('cache_control') ? [i] : [])
      // Only the system message and one conversation message carry breakpoints; the conversation's may only move forward.
      const [, beforeMark] = marked(beforeMessages)
      const [, afterMark] = marked(afterMessages)
      if (beforeMark !== undefined && afterMark !== undefined)
        expect(afterMark).toBeGreaterThanOrEqual(beforeMark)
      for (let i = 1; i < beforeMessages.length; i++) {
        if (i !== beforeMark)
          expect(JSON.stringify(afterMessages[i])).toBe(JSON.stringify(beforeMessages[i]))
      }
    }), { numRuns: 300 })
  })

  it('the same conversation always serializes to the same bytes', () => {
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), settings, (history, extra) => {
      expect(JSON.stringify(request(structuredClone(history), extra))).toBe(JSON.stringify(request(history, extra)))
    }), { numRuns: 100 })
  })
})
