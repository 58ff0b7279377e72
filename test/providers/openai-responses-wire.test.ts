import type { SessionContentBlock } from '../../src/core/content'
import type { ThinkingLevel } from '../../src/providers/thinking'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { buildResponsesRequest, responsesCallId, responsesInput } from '../../src/providers/openai/responses'
import { parseToolInput } from '../../src/providers/tool-json'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { assistant, recordCallbacks, rejectionOf, responsesOptions, streamAgainst, text, user } from './openai-responses-fixtures'

const SETTINGS = { providerName: 'openai' }
const PNG = 'iVBORw0KGgo='

function build(overrides: Parameters<typeof responsesOptions>[0] = {}) {
  return buildResponsesRequest(responsesOptions(overrides), SETTINGS)
}

function input(...messages: Parameters<typeof responsesInput>[0]) {
  return responsesInput(messages, 'openai')
}

describe('request body', () => {
  let fake: FakeOpenAI
  beforeEach(async () => {
    fake = await startFakeOpenAI()
  })
  afterEach(async () => {
    await fake.close()
  })

  it('sends a stateless streaming request with instructions, function tools and encrypted reasoning included', async () => {
    fake.enqueue({ type: 'sse', events: responsesEvents({ text: 'ok' }) })
    const tools = [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }]
    await streamAgainst(fake, responsesOptions({ tools, thinking: 'high', maxTokens: 4096 }), recordCallbacks().callbacks)

    expect(fake.requests[0].body).toEqual({
      model: 'gpt-5.2',
      instructions: 'You are terse.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello?' }] }],
      tools: [{ type: 'function', name: 'read_file', description: 'Read a file', parameters: tools[0].inputSchema, strict: false }],
      include: ['reasoning.encrypted_content'],
      store: false,
      reasoning: { effort: 'high', summary: 'auto' },
      max_output_tokens: 4096,
      stream: true,
    })
  })

  it('refuses audio before any request is made', async () => {
    const options = responsesOptions({ messages: [user({ type: 'audio', data: 'AAAA', mediaType: 'audio/wav' })] })
    const error = await rejectionOf(streamAgainst(fake, options, recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'unsupported', retryable: false, provider: 'openai' })
    expect(fake.requests).toHaveLength(0)
  })
})

describe('options → fields', () => {
  it('leaves out instructions, tools, reasoning and the output cap when there are none', () => {
    const body = build({ system: '', thinking: 'off' })
    expect(Object.keys(body)).toEqual(['model', 'input', 'include', 'store'])
  })

  it.each([
    ['gpt-5', 'minimal', 'minimal'],
    ['gpt-5', 'low', 'low'],
    ['gpt-5', 'medium', 'medium'],
    ['gpt-5', 'high', 'high'],
    ['gpt-5', 'max', 'high'],
    ['gpt-5', 'adaptive', 'medium'],
    ['gpt-5.2', 'minimal', 'low'],
    ['gpt-5.2', 'xhigh', 'xhigh'],
    ['gpt-5.2', 'max', 'xhigh'],
    ['o3', 'xhigh', 'high'],
  ] as [string, ThinkingLevel, string][])('%s at thinking %s asks for effort %s, with summaries', (model, level, effort) => {
    expect(build({ model, thinking: level }).reasoning).toEqual({ effort, summary: 'auto' })
  })

  it.each(['gpt-4.1', 'gpt-4o-mini', 'chatgpt-4o-latest', 'gpt-5-chat-latest', 'gpt-3.5-turbo'])('does not ask %s, which cannot reason, for encrypted reasoning', (model) => {
    expect(build({ model }).include).toBeUndefined()
  })

  it.each(['gpt-5.2', 'o3', 'gpt-7-preview', 'my-gateway-model'])('asks %s for encrypted reasoning, even with thinking off', (model) => {
    expect(build({ model, thinking: 'off' }).include).toEqual(['reasoning.encrypted_content'])
  })

  it('sends no reasoning field to a model without reasoning, or with thinking off', () => {
    expect(build({ model: 'gpt-4.1', thinking: 'high' }).reasoning).toBeUndefined()
    expect(build({ model: 'gpt-5.2', thinking: 'off' }).reasoning).toBeUndefined()
  })
})

describe('user content', () => {
  it('maps text, images, PDFs and text documents to input parts', () => {
    const items = input(user(
      text('Look:'),
      { type: 'image', data: PNG, mediaType: 'image/png' },
      { type: 'document', data: 'JVBERi0=', encoding: 'base64', mediaType: 'application/pdf', name: 'spec.pdf' },
      { type: 'document', data: 'a,b\n1,2', encoding: 'text', mediaType: 'text/csv', name: 'data.csv' },
    ))
    expect(items).toEqual([{
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'Look:' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        { type: 'input_file', filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
        { type: 'input_text', text: '<attached-document name="data.csv" media-type="text/csv">\na,b\n1,2\n</attached-document>' },
      ],
    }])
  })

  it.each<SessionContentBlock>([
    { type: 'video', data: 'AAAA', mediaType: 'video/mp4' },
    { type: 'image', ref: 'blob:1', mediaType: 'image/png' },
    { type: 'image', data: PNG, mediaType: 'image/tiff' },
    { type: 'document', data: 'AAAA', encoding: 'base64', mediaType: 'application/zip' },
  ])('refuses $type ($mediaType) as unsupported', (block) => {
    expect(() => input(user(block))).toThrow(expect.objectContaining({ kind: 'unsupported' }))
  })
})

describe('assistant content', () => {
  it('replays text as output_text messages and calls without item ids', () => {
    const items = input(assistant(text('Reading.'), { type: 'tool_call', id: 'call_1', name: 'read_file', input: { path: 'a' } }))
    expect(items).toEqual([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' },
    ])
  })

  it('replays arguments that did not parse exactly as the model wrote them', () => {
    const items = input(assistant({ type: 'tool_call', id: 'call_1', name: 'shell', input: parseToolInput('{"command": "ls') }))
    expect(items[0]).toMatchObject({ type: 'function_call', arguments: '{"command": "ls' })
  })

  it.each<SessionContentBlock>([
    { type: 'thinking', text: 'Anthropic thought', signature: 'sig-anthropic', signatureProducer: 'anthropic' },
    { type: 'thinking', text: 'Unsigned thought' },
    { type: 'thinking', text: 'Bad signature', signature: 'not json', signatureProducer: 'openai' },
    { type: 'redacted_thinking', data: 'xyz' },
    { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'local thought' },
  ])('never sends $type from elsewhere, not even as text', (block) => {
    const items = input(assistant(block, text('Answer')))
    expect(items).toEqual([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Answer' }] }])
  })
})

describe('tool results', () => {
  it('sends outputs in call order right after the calls, whatever order the results were stored in', () => {
    const items = input(
      assistant(
        { type: 'tool_call', id: 'call_a', name: 'ls', input: {} },
        { type: 'tool_call', id: 'call_b', name: 'ls', input: {} },
      ),
      user(
        { type: 'tool_result', callId: 'call_b', output: 'B' },
        { type: 'tool_result', callId: 'call_a', output: 'A', isError: true },
        text('and also this'),
      ),
    )
    expect(items.slice(2)).toEqual([
      { type: 'function_call_output', call_id: 'call_a', output: '[tool error] A' },
      { type: 'function_call_output', call_id: 'call_b', output: 'B' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and also this' }] },
    ])
  })

  it('sends images from a result in a companion user message that names the call', () => {
    const items = input(
      assistant({ type: 'tool_call', id: 'call_shot', name: 'screenshot', input: {} }),
      user({ type: 'tool_result', callId: 'call_shot', output: [
        { type: 'text', text: 'Captured.' },
        { type: 'image', data: PNG, mediaType: 'image/png', name: 'screen.png' },
        { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' },
      ] }),
    )
    expect(items.slice(1)).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_shot',
        output: 'Captured.\n[attachment 1 (image "screen.png") follows in the next user message]\n[audio omitted: audio/wav is not supported here]',
      },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Tool call call_shot, attachment 1 (image "screen.png"):' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        ],
      },
    ])
  })
})

describe('tool-call ids from other providers', () => {
  it('keeps every id the API accepts and maps the others to stable, valid ids', () => {
    expect(responsesCallId('call_AbC123')).toBe('call_AbC123')
    expect(responsesCallId('toolu_01XYZ')).toBe('toolu_01XYZ')
    expect(responsesCallId('x'.repeat(64))).toBe('x'.repeat(64))
    const mapped = responsesCallId('call.odd:id/1')
    expect(mapped).toMatch(/^call_odd_id_1_[0-9a-f]{24}$/)
    expect(responsesCallId('call.odd:id/1')).toBe(mapped)
    expect(responsesCallId('call.odd:id/2')).not.toBe(mapped)
    const long = responsesCallId(`call_${'x'.repeat(80)}`)
    expect(long).toMatch(/^call_x+_[0-9a-f]{24}$/)
    expect(long).toHaveLength(64)
  })

  it('uses the same mapped id for the call and its output', () => {
    const items = input(
      assistant({ type: 'tool_call', id: 'toolu:01/XYZ', name: 'ls', input: {} }),
      user({ type: 'tool_result', callId: 'toolu:01/XYZ', output: 'files' }),
    )
    const call = items[0] as { call_id: string }
    const output = items[1] as { call_id: string }
    expect(call.call_id).toBe(responsesCallId('toolu:01/XYZ'))
    expect(call.call_id).not.toBe('toolu:01/XYZ')
    expect(output.call_id).toBe(call.call_id)
  })
})
