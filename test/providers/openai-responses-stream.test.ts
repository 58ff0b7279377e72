import type { FakeOpenAI } from '../support/fake-openai'
import type { ScriptedResponsesTurn } from '../support/openai-responses-sse'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeReasoningSignature } from '../../src/providers/openai/responses'
import { invalidToolInput } from '../../src/providers/tool-json'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { recordCallbacks, responsesOptions, streamAgainst } from './openai-responses-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

async function turn(script: ScriptedResponsesTurn) {
  fake.enqueue({ type: 'sse', events: responsesEvents(script) })
  const recorded = recordCallbacks()
  const result = await streamAgainst(fake, responsesOptions(), recorded.callbacks)
  return { result, recorded }
}

describe('streaming callbacks', () => {
  it('forwards text deltas as they arrive and keeps the joined text', async () => {
    const { result, recorded } = await turn({ text: ['Hel', 'lo ', 'there'] })
    expect(recorded.texts).toEqual(['Hel', 'lo ', 'there'])
    expect(result.content).toEqual([{ type: 'text', text: 'Hello there' }])
    expect(result.finishReason).toBe('stop')
  })

  it('streams reasoning summaries as thinking, one paragraph per summary part', async () => {
    const { result, recorded } = await turn({
      reasoning: { summary: ['First idea.', 'Second idea.'], encryptedContent: 'enc-1' },
      text: 'Answer',
    })
    expect(recorded.thinking.join('')).toBe('First idea.\n\nSecond idea.')
    expect(result.content[0]).toMatchObject({ type: 'thinking', text: 'First idea.\n\nSecond idea.', signatureProducer: 'openai' })
    // Thinking arrives before the answer, in stream order.
    expect(recorded.timeline.findIndex(entry => entry.startsWith('thinking:'))).toBeLessThan(recorded.timeline.indexOf('text:Answer'))
  })

  it('streams raw reasoning text when the model sends no summary', async () => {
    const { result, recorded } = await turn({ reasoning: { reasoningText: 'Step by step.' }, text: 'ok' })
    expect(recorded.thinking.join('')).toBe('Step by step.')
    expect(result.content[0]).toEqual({ type: 'thinking', text: 'Step by step.' })
  })

  it('announces each function call by call_id and name, then reports argument fragments as activity', async () => {
    const { result, recorded } = await turn({
      toolCalls: [{ name: 'read_file', input: { path: 'src/index.ts', limit: 20 }, callId: 'call_a1' }],
    })
    expect(recorded.toolStarts).toEqual([{ id: 'call_a1', name: 'read_file' }])
    const start = recorded.timeline.indexOf('tool:read_file')
    expect(recorded.timeline.slice(start + 1, start + 4)).toEqual(['activity', 'activity', 'activity'])
    expect(result.toolCalls).toEqual([{ id: 'call_a1', name: 'read_file', input: { path: 'src/index.ts', limit: 20 } }])
    expect(result.content).toEqual([{ type: 'tool_call', id: 'call_a1', name: 'read_file', input: { path: 'src/index.ts', limit: 20 } }])
    expect(result.finishReason).toBe('tool-calls')
  })

  it('keeps parallel calls in output order with their own arguments', async () => {
    const { result } = await turn({
      toolCalls: [
        { name: 'grep', input: { pattern: 'a' }, callId: 'call_1' },
        { name: 'grep', input: { pattern: 'b' }, callId: 'call_2' },
      ],
    })
    expect(result.toolCalls.map(call => [call.id, call.input])).toEqual([['call_1', { pattern: 'a' }], ['call_2', { pattern: 'b' }]])
  })

  it('marks arguments that do not parse instead of guessing', async () => {
    const { result } = await turn({ toolCalls: [{ name: 'shell', rawJson: '{"command": "ls', callId: 'call_x' }] })
    expect(invalidToolInput(result.toolCalls[0].input)).toMatchObject({ raw: '{"command": "ls' })
  })

  it('takes text, reasoning and arguments from output_item.done when no deltas were streamed', async () => {
    const events = responsesEvents({
      reasoning: { summary: ['Quiet thought.'], encryptedContent: 'enc-q' },
      text: 'Quiet answer',
      toolCalls: [{ name: 'ls', input: { path: '.' }, callId: 'call_q' }],
    }).filter(event => !event.event.endsWith('.delta'))
    fake.enqueue({ type: 'sse', events })
    const recorded = recordCallbacks()
    const result = await streamAgainst(fake, responsesOptions(), recorded.callbacks)
    expect(recorded.texts).toEqual(['Quiet answer'])
    expect(recorded.thinking).toEqual(['Quiet thought.'])
    expect(result.content.map(block => block.type)).toEqual(['thinking', 'text', 'tool_call'])
    expect(result.toolCalls[0].input).toEqual({ path: '.' })
  })
})

describe('reasoning blocks', () => {
  it('signs reasoning with its id, encrypted content and the call that followed it', async () => {
    const { result } = await turn({
      reasoning: { id: 'rs_abc', summary: ['Plan.'], encryptedContent: 'gAAAA-secret' },
      toolCalls: [{ name: 'ls', input: {}, callId: 'call_next' }],
    })
    const thinking = result.content[0]
    expect(thinking.type).toBe('thinking')
    if (thinking.type !== 'thinking')
      return
    expect(decodeReasoningSignature(thinking.signature)).toEqual({
      id: 'rs_abc',
      encryptedContent: 'gAAAA-secret',
      next: { type: 'function_call', callId: 'call_next' },
    })
  })

  it('records a message follower, and no follower when the turn ends inside the reasoning', async () => {
    const { result } = await turn({
      output: [
        { type: 'reasoning', id: 'rs_1', encryptedContent: 'e1' },
        { type: 'message', text: 'Let me look.' },
        { type: 'reasoning', id: 'rs_2', encryptedContent: 'e2' },
      ],
      incomplete: 'max_output_tokens',
    })
    const signatures = result.content.flatMap(block => block.type === 'thinking' ? [decodeReasoningSignature(block.signature)] : [])
    expect(signatures).toEqual([
      { id: 'rs_1', encryptedContent: 'e1', next: { type: 'message' } },
      { id: 'rs_2', encryptedContent: 'e2', next: undefined },
    ])
  })

  it('keeps a reasoning item with an empty summary when it carries encrypted content', async () => {
    const { result } = await turn({ reasoning: { encryptedContent: 'e-only' }, text: 'hi' })
    expect(result.content[0]).toMatchObject({ type: 'thinking', text: '', signatureProducer: 'openai' })
  })

  it('keeps reasoning without encrypted content as unsigned thinking, and drops it when it has no text either', async () => {
    const shown = await turn({ reasoning: { summary: ['Visible.'] }, text: 'a' })
    expect(shown.result.content[0]).toEqual({ type: 'thinking', text: 'Visible.' })
    const empty = await turn({ reasoning: {}, text: 'b' })
    expect(empty.result.content).toEqual([{ type: 'text', text: 'b' }])
  })
})

describe('usage and finish reasons', () => {
  it('splits cached input from the rest and reports reasoning tokens', async () => {
    const { result } = await turn({
      text: 'x',
      usage: { input_tokens: 1000, cached_tokens: 800, output_tokens: 150, reasoning_tokens: 100 },
      model: 'gpt-test-2026',
    })
    expect(result.usage).toEqual({
      input: 200,
      output: 150,
      cacheRead: 800,
      thinking: 100,
      modelId: 'gpt-test-2026',
      provider: 'openai',
      finishReason: 'stop',
    })
  })

  it('reports cache writes separately when the API counts them', async () => {
    const { result } = await turn({ text: 'x', usage: { input_tokens: 1000, cached_tokens: 100, cache_write_tokens: 600 } })
    expect(result.usage).toMatchObject({ input: 300, cacheRead: 100, cacheCreation: 600 })
  })

  it.each([
    [{ text: 'done' }, 'stop'],
    [{ toolCalls: [{ name: 'ls', input: {} }] }, 'tool-calls'],
    [{ text: 'cut o', incomplete: 'max_output_tokens' }, 'length'],
    [{ text: 'blocked', incomplete: 'content_filter' }, 'content-filter'],
    [{ output: [{ type: 'message', text: 'I cannot help with that.', refusal: true }] }, 'content-filter'],
  ] as [ScriptedResponsesTurn, string][])('%j finishes with %s', async (script, reason) => {
    const { result } = await turn(script)
    expect(result.finishReason).toBe(reason)
    expect(result.usage.finishReason).toBe(reason)
  })

  it('keeps the partial output of an incomplete response', async () => {
    const { result } = await turn({ text: ['Partial ', 'answer'], incomplete: 'max_output_tokens' })
    expect(result.content).toEqual([{ type: 'text', text: 'Partial answer' }])
  })
})
