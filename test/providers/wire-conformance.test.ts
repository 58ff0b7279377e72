/**
 * What every wire builder must do with the same conversation, as one suite
 * run against each of them, the way the store conformance suite runs against
 * every store: Anthropic's Messages API, Chat Completions under each dialect,
 * and the Responses API get the neutral corpus of `./wire-corpus`, and the
 * rules of `src/providers/shared` must hold on every wire.
 */

import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import type { ChatDialect } from '../../src/providers/openai-chat'
import type { StreamOptions } from '../../src/providers/types'
import type { CorpusCase } from './wire-corpus'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { buildAnthropicRequest } from '../../src/providers/anthropic'
import { cerebrasDialect } from '../../src/providers/cerebras'
import { OPENAI_CHAT_DIALECT } from '../../src/providers/openai'
import { buildChatRequest } from '../../src/providers/openai-chat'
import { openaiCompatDialect } from '../../src/providers/openai-compat'
import { buildResponsesRequest } from '../../src/providers/openai/responses'
import { openrouterDialect } from '../../src/providers/openrouter'
import { cacheControlFor } from '../../src/providers/shared/cache-control'
import { ACCEPTED_IMAGE_MEDIA_TYPES, TOOL_ERROR_MARKER } from '../../src/providers/shared/content-rules'
import { deepFreeze, SIGNATURES, WHOLE_CORPUS, WIRE_CORPUS } from './wire-corpus'

type Input = Omit<StreamOptions, 'signal'>

/** One event of the conversation as the wire shows it: a call, a result, or other user content. */
type WireEvent = { kind: 'call', id: string } | { kind: 'result', id: string, error: boolean, text: string } | { kind: 'content' }

/** How the suite reads one builder's body; everything else is shared. */
interface WireBuilder {
  name: string
  model: string
  /** The producer whose signatures this API may receive back, if any. */
  ownSignatures?: string
  /** Tool-call ids the API accepts. */
  idPattern: RegExp
  build: (input: Input) => unknown
  events: (body: any) => WireEvent[]
}

const STANDARD_ID = /^[\w-]{1,40}$/

/** The text of a Chat Completions message content: a string, or the text parts joined. */
function chatText(content: string | { type: string, text?: string }[]): string {
  return typeof content === 'string' ? content : content.flatMap(part => part.type === 'text' ? [part.text] : []).join('\n')
}

function chatBuilder(name: string, dialect: ChatDialect, model: string, idPattern = STANDARD_ID): WireBuilder {
  return {
    name,
    model,
    idPattern,
    build: input => buildChatRequest(input, dialect),
    events: body => body.messages.flatMap((message: any): WireEvent[] => {
      if (message.role === 'assistant')
        return (message.tool_calls ?? []).map((wire: any) => ({ kind: 'call', id: wire.id }))
      if (message.role === 'tool')
        return [{ kind: 'result', id: message.tool_call_id, error: chatText(message.content).startsWith(TOOL_ERROR_MARKER), text: chatText(message.content) }]
      return message.role === 'user' ? [{ kind: 'content' }] : []
    }),
  }
}

const BUILDERS: readonly WireBuilder[] = [
  {
    name: 'anthropic',
    model: 'claude-sonnet-4-5',
    ownSignatures: 'anthropic',
    idPattern: /^[\w-]{1,64}$/,
    build: input => buildAnthropicRequest(input).body,
    events: body => body.messages.flatMap((message: any) => message.content.flatMap((block: any): WireEvent[] => {
      if (block.type === 'tool_use')
        return [{ kind: 'call', id: block.id }]
      if (block.type === 'tool_result')
        return [{ kind: 'result', id: block.tool_use_id, error: block.is_error === true, text: stringsOf(block.content).join('\n') }]
      return message.role === 'user' ? [{ kind: 'content' }] : []
    })),
  },
  chatBuilder('chat: openai', OPENAI_CHAT_DIALECT, 'gpt-5.2'),
  chatBuilder('chat: openrouter, companion images, cache breakpoints', openrouterDialect('companion'), 'anthropic/claude-sonnet-4.5'),
  chatBuilder('chat: openrouter, inline images', openrouterDialect('inline'), 'google/gemini-2.5-pro'),
  chatBuilder('chat: cerebras with images', cerebrasDialect(true), 'gpt-oss-120b'),
  chatBuilder('chat: mistral ids', openaiCompatDialect({ name: 'mistral', toolCallIds: 'mistral' }), 'mistral-large-latest', /^[A-Z0-9]{9}$/i),
  {
    name: 'responses',
    model: 'gpt-5.2',
    ownSignatures: 'openai',
    idPattern: /^[\w-]{1,64}$/,
    build: input => buildResponsesRequest(input, { providerName: 'openai' }),
    events: body => body.input.flatMap((item: any): WireEvent[] => {
      if (item.type === 'function_call')
        return [{ kind: 'call', id: item.call_id }]
      if (item.type === 'function_call_output')
        return [{ kind: 'result', id: item.call_id, error: item.output.startsWith(TOOL_ERROR_MARKER), text: item.output }]
      return item.type === 'message' && item.role === 'user' ? [{ kind: 'content' }] : []
    }),
  },
]

const TOOLS = deepFreeze([
  { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
])

function inputFor(builder: WireBuilder, messages: readonly SessionMessage[]): Input {
  return deepFreeze({ model: builder.model, system: 'You are terse.', messages: messages as SessionMessage[], tools: TOOLS as Input['tools'], thinking: 'off' as const })
}

/**
 * Every run of calls is answered by a run of results with the same wire ids in
 * the same order, before any other user content; no result answers nothing.
 */
function expectPairedInOrder(events: readonly WireEvent[]): void {
  let calls: string[] = []
  let results: string[] = []
  let phase: 'idle' | 'calls' | 'results' = 'idle'
  const flush = () => {
    expect(results, 'results answer the calls before them, in call order').toEqual(calls)
    calls = []
    results = []
  }
  for (const event of events) {
    if (event.kind === 'call') {
      if (phase !== 'calls')
        flush()
      phase = 'calls'
      calls.push(event.id)
    }
    else if (event.kind === 'result') {
      expect(phase, `result ${event.id} follows calls`).not.toBe('idle')
      phase = 'results'
      results.push(event.id)
    }
    else {
      expect(phase, 'no user content between calls and their results').not.toBe('calls')
      if (phase === 'results')
        flush()
      phase = 'idle'
    }
  }
  flush()
}

/** Every string in the body, and every object, depth first. */
function walk(value: unknown, visit: (node: unknown) => void): void {
  visit(value)
  if (Array.isArray(value)) {
    for (const item of value)
      walk(item, visit)
  }
  else if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value))
      walk(inner, visit)
  }
}

function stringsOf(body: unknown): string[] {
  const out: string[] = []
  walk(body, node => typeof node === 'string' && out.push(node))
  return out
}

/** Media types of the images on the wire: Anthropic `source.media_type`, OpenAI data URLs. */
function imageTypesOf(body: unknown): string[] {
  const out: string[] = []
  walk(body, (node) => {
    if (typeof node === 'string' && node.startsWith('data:image/'))
      out.push(node.slice('data:'.length, node.indexOf(';')))
    else if (typeof node === 'object' && node !== null && (node as { type?: unknown }).type === 'image')
      out.push((node as { source: { media_type: string } }).source.media_type)
  })
  return out
}

function cacheMarkersOf(body: unknown): unknown[] {
  const out: unknown[] = []
  walk(body, (node) => {
    if (typeof node === 'object' && node !== null && !Array.isArray(node) && 'cache_control' in node)
      out.push((node as { cache_control: unknown }).cache_control)
  })
  return out
}

/** Text parts with nothing in them, which several APIs reject with a 400. */
function emptyTextsOf(body: unknown): unknown[] {
  const out: unknown[] = []
  walk(body, (node) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node))
      return
    const record = node as Record<string, unknown>
    if (typeof record.type === 'string' && record.type.endsWith('text') && record.text === '')
      out.push(node)
    if ((record.role === 'user' || record.role === 'assistant') && (record.content === '' || (Array.isArray(record.content) && record.content.length === 0)))
      out.push(node)
    if (record.role === 'assistant' && record.content === null && !record.tool_calls)
      out.push(node)
  })
  return out
}

const LONE_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/i

function expectConformant(builder: WireBuilder, messages: readonly SessionMessage[], expectations: CorpusCase['expect'] = {}): void {
  const input = inputFor(builder, messages)
  const before = JSON.stringify(input)
  const body = builder.build(input)
  const bytes = JSON.stringify(body)

  // Deterministic: the same bytes from the same input, and from an equal copy of it.
  expect(JSON.stringify(builder.build(input))).toBe(bytes)
  expect(JSON.stringify(builder.build(structuredClone(input)))).toBe(bytes)
  // The input is frozen to its leaves, so an in-place edit would have thrown; nothing changed either.
  expect(JSON.stringify(input)).toBe(before)

  const events = builder.events(body)
  expectPairedInOrder(events)
  for (const event of events) {
    if (event.kind !== 'content')
      expect(event.id, `${event.id} is a valid ${builder.name} id`).toMatch(builder.idPattern)
    // A failed result says so (a flag where the API has one, the shared marker where not); no other does.
    if (event.kind === 'result')
      expect(event.error, `result ${JSON.stringify(event.text)} is marked failed exactly when it failed`).toBe((expectations.errors ?? []).some(text => event.text.includes(text)))
  }

  for (const mediaType of imageTypesOf(body))
    expect(ACCEPTED_IMAGE_MEDIA_TYPES.has(mediaType), `${mediaType} is an accepted image type`).toBe(true)
  for (const mediaType of expectations.images ?? [])
    expect(imageTypesOf(body)).toContain(mediaType)

  const strings = stringsOf(body)
  for (const expected of expectations.texts ?? [])
    expect(strings.some(value => value.includes(expected)), `the body carries ${JSON.stringify(expected)}`).toBe(true)

  for (const { producer, marker } of SIGNATURES) {
    if (producer !== builder.ownSignatures)
      expect(bytes.includes(marker), `no ${producer} signature reaches ${builder.name}`).toBe(false)
  }

  const marker = cacheControlFor(input)
  for (const found of cacheMarkersOf(body))
    expect(found).toEqual(marker)
  expect(cacheMarkersOf(body).length).toBeLessThanOrEqual(4)

  expect(emptyTextsOf(body)).toEqual([])
  expect(LONE_SURROGATE.test(bytes), 'no lone surrogate on the wire').toBe(false)
}

describe.each(BUILDERS)('wire conformance: $name', (builder) => {
  it.each(WIRE_CORPUS)('$name', (entry) => {
    expectConformant(builder, entry.messages, entry.expect)
  })

  it('the whole corpus as one conversation', () => {
    expectConformant(builder, WHOLE_CORPUS, { texts: WIRE_CORPUS.flatMap(entry => entry.expect?.texts ?? []), errors: WIRE_CORPUS.flatMap(entry => entry.expect?.errors ?? []) })
  })

  it('replays its own signatures', () => {
    const entry = WIRE_CORPUS.find(item => item.name === 'thinking signed by three producers')!
    const bytes = JSON.stringify(builder.build(inputFor(builder, entry.messages)))
    for (const { producer, marker } of SIGNATURES)
      expect(bytes.includes(marker)).toBe(producer === builder.ownSignatures)
  })

  it('refuses prompt content it cannot carry with an `unsupported` error', () => {
    const refused: SessionContentBlock[] = [
      { type: 'image', data: 'AAAA', mediaType: 'image/tiff' },
      { type: 'image', ref: 'blob:lost', mediaType: 'image/png' },
      { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' },
      { type: 'document', data: 'AAAA', encoding: 'base64', mediaType: 'application/zip' },
    ]
    for (const block of refused) {
      const build = () => builder.build(inputFor(builder, [{ role: 'user', content: [block] }]))
      expect(build).toThrow(ClassifiedError)
      expect(build).toThrow(expect.objectContaining({ kind: 'unsupported' }))
    }
  })

  it('pairs any calls with their results, in call order, whatever their ids', () => {
    const anyId = fc.string({ unit: fc.integer({ min: 0, max: 0xFFFF }).map(code => String.fromCharCode(code)), maxLength: 80 })
    const conversation = fc.uniqueArray(anyId, { minLength: 1, maxLength: 6 }).chain(ids => fc.record({
      ids: fc.constant(ids),
      order: fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }),
    }))
    fc.assert(fc.property(conversation, ({ ids, order }) => {
      const messages = deepFreeze([
        { role: 'assistant' as const, content: ids.map((id): SessionContentBlock => ({ type: 'tool_call', id, name: 'read_file', input: {} })) },
        { role: 'user' as const, content: order.map((id): SessionContentBlock => ({ type: 'tool_result', callId: id, output: `out ${id.length}` })) },
      ])
      expectConformant(builder, messages)
      // Distinct session ids stay distinct on the wire.
      const wireIds = builder.events(builder.build(inputFor(builder, messages))).filter(event => event.kind === 'call').map(event => (event as { id: string }).id)
      expect(new Set(wireIds).size).toBe(ids.length)
    }), { numRuns: 60 })
  })
})
