import type { SessionContentBlock } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { buildAnthropicRequest } from '../../src/providers/anthropic'
import { assistant, streamOptions, text, user } from './anthropic-fixtures'

const tools = [
  { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'shell', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
]

const toolCall: SessionContentBlock = { type: 'tool_call', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }
const toolResult: SessionContentBlock = { type: 'tool_result', callId: 'toolu_1', output: 'file body' }

function build(overrides: Parameters<typeof streamOptions>[0] = {}) {
  return buildAnthropicRequest(streamOptions(overrides))
}

function countCacheControl(value: unknown): number {
  return JSON.stringify(value).split('"cache_control"').length - 1
}

describe('request shape', () => {
  it('sends system as text parts, tools with input_schema, and messages as content arrays', () => {
    const { body } = build({ tools, cache: false, messages: [user(text('Read a.txt')), assistant(text('Sure.'), toolCall), user(toolResult)] })

    expect(body.system).toEqual([{ type: 'text', text: 'You are terse.' }])
    expect(body.tools).toEqual([
      { name: 'read_file', description: 'Read a file', input_schema: tools[0].inputSchema },
      { name: 'shell', description: 'Run a command', input_schema: tools[1].inputSchema },
    ])
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }, { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file body' }] },
    ])
    expect(body.model).toBe('claude-sonnet-5-5')
  })

  it('omits system and tools when there are none', () => {
    const { body } = build({ system: '' })
    expect(body).not.toHaveProperty('system')
    expect(body).not.toHaveProperty('tools')
  })

  it('serializes the same input to the same bytes', () => {
    // Two equal but separately built inputs.
    const options = () => streamOptions({ tools: structuredClone(tools), messages: [user(text('a')), assistant(toolCall), user(toolResult)], thinking: 'high', cacheTtl: '1h' })
    expect(JSON.stringify(buildAnthropicRequest(options()))).toBe(JSON.stringify(buildAnthropicRequest(options())))
  })

  it('merges consecutive messages of the same role', () => {
    const { body } = build({ cache: false, messages: [user(toolResult), user(text('Also, hurry.')), assistant(text('a')), assistant(text('b'))] })
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file body' }, { type: 'text', text: 'Also, hurry.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
    ])
  })

  it('drops empty text blocks, and messages left empty, merging their neighbours', () => {
    const { body } = build({ cache: false, messages: [user(text('one'), text('')), assistant(text('')), user(text('two'))] })
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] }])
  })

  it('passes only known model switches: fast → speed with its beta', () => {
    const fast = build({ modelOptions: { fast: true, somethingElse: 1 } })
    expect(fast.body.speed).toBe('fast')
    expect(fast.betas).toContain('fast-mode-2026-02-01')
    expect(fast.body).not.toHaveProperty('somethingElse')

    const plain = build({ modelOptions: { somethingElse: 1 } })
    expect(plain.body).not.toHaveProperty('speed')
    expect(plain.betas).toEqual([])
  })

  it('sends server-side context management with its beta', () => {
    const contextManagement = { edits: [{ type: 'clear_tool_uses_20250919' as const }] }
    const { body, betas } = buildAnthropicRequest(streamOptions(), { contextManagement })
    expect(body.context_management).toEqual(contextManagement)
    expect(betas).toContain('context-management-2025-06-27')
  })
})

describe('cache breakpoints', () => {
  it('marks the last system part, the last tool and the last block of the last message, and nothing else', () => {
    const { body, betas } = build({ tools, messages: [user(text('first')), assistant(text('reply')), user(text('second'), text('third'))] })

    expect(body.system).toEqual([{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }])
    expect(body.tools?.[0]).not.toHaveProperty('cache_control')
    expect(body.tools?.[1]).toMatchObject({ name: 'shell', cache_control: { type: 'ephemeral' } })
    expect(body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'second' },
      { type: 'text', text: 'third', cache_control: { type: 'ephemeral' } },
    ])
    expect(countCacheControl(body)).toBe(3)
    expect(betas).toEqual([])
  })

  it('marks nothing when caching is off', () => {
    const { body } = build({ tools, cache: false, messages: [user(text('a')), assistant(text('b')), user(text('c'))] })
    expect(countCacheControl(body)).toBe(0)
  })

  it('puts a 1-hour TTL on every breakpoint and asks for the extended-TTL beta', () => {
    const { body, betas } = build({ tools, cacheTtl: '1h' })
    const oneHour = { type: 'ephemeral', ttl: '1h' }
    expect(body.system?.[0]).toMatchObject({ cache_control: oneHour })
    expect(body.tools?.[1]).toMatchObject({ cache_control: oneHour })
    expect(body.messages[0].content).toEqual([{ type: 'text', text: 'Hello?', cache_control: oneHour }])
    expect(betas).toEqual(['extended-cache-ttl-2025-04-11'])
  })

  it('keeps the system block and each tool as the same objects from request to request, breakpoint by breakpoint', () => {
    // The request's JSON reuses a piece per object, so an object kept must also be right for the new request.
    const first = build({ tools, messages: [user(text('a'))] }).body
    const second = build({ tools, messages: [user(text('a')), assistant(text('b')), user(text('c'))] }).body
    expect(second.system?.[0]).toBe(first.system?.[0])
    expect(second.tools?.[0]).toBe(first.tools?.[0])
    expect(second.tools?.[1]).toBe(first.tools?.[1])

    const hour = build({ tools, cacheTtl: '1h' }).body
    expect(hour.system?.[0]).not.toBe(first.system?.[0])
    expect(hour.system?.[0]).toMatchObject({ cache_control: { type: 'ephemeral', ttl: '1h' } })
    expect(hour.tools?.[0]).toBe(first.tools?.[0])
    expect(hour.tools?.[1]).toMatchObject({ name: 'shell', cache_control: { type: 'ephemeral', ttl: '1h' } })

    const off = build({ tools, cache: false }).body
    expect(countCacheControl(off)).toBe(0)
    // The last tool unmarked is the very object sent unmarked before it, when it was not last.
    const reordered = build({ tools: [tools[1], tools[0]], cache: false }).body
    expect(reordered.tools?.[1]).toBe(first.tools?.[0])
    // One breakpoint is remembered per tool (a run keeps one TTL): back on 5 minutes, the new object is kept in turn.
    const backBody = build({ tools }).body
    const back = backBody.tools?.[1]
    expect(back).toEqual(first.tools?.[1])
    expect(build({ tools }).body.tools?.[1]).toBe(back)

    // Another prompt is another block; the first one is still remembered.
    const other = build({ system: 'You are verbose.' }).body
    expect(other.system?.[0]).toMatchObject({ text: 'You are verbose.', cache_control: { type: 'ephemeral' } })
    expect(build({ tools }).body.system?.[0]).toBe(backBody.system?.[0])
  })

  it('skips thinking blocks, which cannot carry a breakpoint', () => {
    const signed: SessionContentBlock = { type: 'thinking', text: 'hmm', signature: 'sig', signatureProducer: 'anthropic' }
    const { body } = build({ messages: [user(text('q')), assistant(text('partial answer'), signed)] })
    expect(body.messages[1].content).toEqual([
      { type: 'text', text: 'partial answer', cache_control: { type: 'ephemeral' } },
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
    ])
  })
})

describe('max_tokens', () => {
  it.each([
    ['claude-sonnet-5-5', 128_000],
    ['claude-sonnet-4-6', 64_000],
    ['claude-haiku-4-5-20251001', 64_000],
    ['some-proxy-alias', 16_384],
  ])('defaults to the model\'s max output: %s → %i', (model, expected) => {
    expect(build({ model }).body.max_tokens).toBe(expected)
  })

  it('uses maxTokens when the run sets it', () => {
    expect(build({ maxTokens: 2048 }).body.max_tokens).toBe(2048)
  })
})

describe('thinking replay', () => {
  it('replays Anthropic-signed thinking and redacted thinking, drops everything it cannot verify', () => {
    const blocks: SessionContentBlock[] = [
      { type: 'thinking', text: 'mine', signature: 'sig-a', signatureProducer: 'anthropic' },
      { type: 'thinking', text: 'legacy', signature: 'sig-b' },
      { type: 'thinking', text: 'foreign', signature: 'enc', signatureProducer: 'openai' },
      { type: 'thinking', text: 'unsigned' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'other model' },
      { type: 'text', text: 'answer', signature: 'gemini-sig', signatureProducer: 'gemini' },
    ]
    const { body } = build({ cache: false, messages: [user(text('q')), assistant(...blocks), user(text('next'))] })
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'mine', signature: 'sig-a' },
      { type: 'thinking', thinking: 'legacy', signature: 'sig-b' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'answer' },
    ])
  })
})

describe('multimodal content', () => {
  const png = Buffer.from('fake png bytes').toString('base64')
  const pdf = Buffer.from('%PDF-1.7 fake').toString('base64')

  it('sends images as base64 sources and PDFs as native documents', () => {
    const { body } = build({ cache: false, messages: [user(
      text('Compare these.'),
      { type: 'image', data: png, mediaType: 'image/png', name: 'shot.png' },
      { type: 'document', data: pdf, encoding: 'base64', mediaType: 'application/pdf', name: 'spec.pdf' },
    )] })
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'spec.pdf' },
    ])
  })

  it('inlines text documents under a header that names them, decoding base64 text', () => {
    const { body } = build({ cache: false, messages: [user(
      { type: 'document', data: '# Notes\nline two', encoding: 'text', mediaType: 'text/markdown', name: 'notes.md' },
      { type: 'document', data: Buffer.from('a,b\n1,2').toString('base64'), encoding: 'base64', mediaType: 'text/csv', name: 'table.csv' },
    )] })
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: '<attached-document name="notes.md" media-type="text/markdown">\n# Notes\nline two\n</attached-document>' },
      { type: 'text', text: '<attached-document name="table.csv" media-type="text/csv">\na,b\n1,2\n</attached-document>' },
    ])
  })

  it.each<[string, SessionContentBlock]>([
    ['audio', { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' }],
    ['video', { type: 'video', data: 'AAAA', mediaType: 'video/mp4' }],
    ['an image reference', { type: 'image', ref: 'attachment://1', mediaType: 'image/png' }],
    ['an unsupported image type', { type: 'image', data: 'AAAA', mediaType: 'image/bmp' }],
    ['a binary document', { type: 'document', data: 'AAAA', encoding: 'base64', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }],
  ])('refuses %s with a non-retryable unsupported error', (_, block) => {
    let thrown: unknown
    try {
      build({ messages: [user(text('look'), block)] })
    }
    catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ClassifiedError)
    expect(thrown).toMatchObject({ kind: 'unsupported', retryable: false, provider: 'anthropic' })
  })
})

describe('tool results', () => {
  it('carries the error flag, and structured output with images as content blocks', () => {
    const png = Buffer.from('screenshot').toString('base64')
    const { body } = build({ cache: false, messages: [
      user(text('go')),
      assistant(toolCall, { type: 'tool_call', id: 'toolu_2', name: 'shell', input: { command: 'false' } }),
      user(
        { type: 'tool_result', callId: 'toolu_1', output: [{ type: 'text', text: 'Here it is:' }, { type: 'image', data: png, mediaType: 'image/png' }, { type: 'text', text: '' }] },
        { type: 'tool_result', callId: 'toolu_2', output: 'exit 1', isError: true },
      ),
    ] })
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [
        { type: 'text', text: 'Here it is:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ] },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'exit 1', is_error: true },
    ])
  })

  it('replaces tool output this API cannot carry with a note instead of failing the session', () => {
    const { body } = build({ cache: false, messages: [user({ type: 'tool_result', callId: 'toolu_1', output: [{ type: 'audio', data: 'AAAA', mediaType: 'audio/wav' }] })] })
    expect(body.messages[0].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '[audio omitted: audio/wav is not supported here]' }] },
    ])
  })
})
