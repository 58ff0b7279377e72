import type { SessionMessage } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { pushAll } from '../../src/core/push-all'
import { SkillValidationError } from '../../src/errors/skills-and-plugins'
import { buildChatRequest } from '../../src/providers/openai-chat/wire'
import { responsesInput } from '../../src/providers/openai/responses/wire'
import { openrouterDialect } from '../../src/providers/openrouter'
import { parseSkill } from '../../src/skills/validate'
import { repairToolPairing } from '../../src/wire/pairing'

/**
 * Lengths that come from outside (a model's reasoning details or tool calls, a
 * skill file's lines) past what a spread argument holds: on Node 20,
 * `push(...items)` and `Math.min(...items)` overflow the stack somewhere
 * between 100,000 and 200,000 items. A `RangeError` while building a request
 * would fail every later request of the session.
 */
const LONG = 250_000

describe('arrays longer than a spread argument holds', () => {
  it('pushAll appends every item in order', () => {
    const target = [0]
    pushAll(target, Array.from({ length: LONG }, (_, i) => i + 1))
    expect(target.length).toBe(LONG + 1)
    expect(target[LONG]).toBe(LONG)
    expect(pushAll([1], new Set([2, 3]))).toEqual([1, 2, 3])
  })

  it('a Chat Completions request replays an OpenRouter reasoning block with that many details', () => {
    const details = Array.from({ length: LONG }, (_, index) => ({ type: 'reasoning.text', index, text: '' }))
    const messages: SessionMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'provider_reasoning', producer: 'openrouter', details, model: 'vendor/model' }, { type: 'text', text: 'done' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]
    const body = buildChatRequest({ model: 'vendor/model', system: '', messages, tools: [], thinking: 'off', maxTokens: 100, cache: false }, openrouterDialect())
    const assistant = body.messages.find(message => message.role === 'assistant') as { reasoning_details?: unknown[] }
    expect(assistant.reasoning_details).toHaveLength(LONG)
  })

  it('a Responses request and the pairing repair take a message with that many tool calls', () => {
    const calls = Array.from({ length: LONG }, (_, i) => ({ type: 'tool_call' as const, id: `c${i}`, name: 'read', input: {} }))
    const messages: SessionMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: calls },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c0', output: 'first' }] },
    ]
    // Every call but the first has no result: the repair adds one for each, after the one that is there.
    const repaired = repairToolPairing(messages)
    const results = repaired.messages[2].content
    expect(results).toHaveLength(LONG)
    expect(results[0]).toMatchObject({ callId: 'c0', output: 'first' })
    expect(results[LONG - 1]).toMatchObject({ callId: `c${LONG - 1}`, isError: true })
    const items = responsesInput(repaired.messages, 'openai')
    expect(items.filter(item => (item as { type?: string }).type === 'function_call_output')).toHaveLength(LONG)
  })

  it('a skill file whose block scalar has that many lines is judged, not a stack overflow', () => {
    const block = Array.from({ length: LONG }).fill(' a').join('\n')
    const text = `---\nname: long\ndescription: |\n${block}\n---\nBody.\n`
    expect(() => parseSkill(text)).toThrow(SkillValidationError)
    expect(() => parseSkill(text)).toThrow(/description/)
  })
})
