/**
 * A neutral conversation corpus: session messages as any provider could have
 * recorded them, with the awkward cases every wire builder must handle the
 * same way. `wire-conformance.test.ts` runs each case through every builder.
 * The corpus is frozen to its leaves, so a builder that edits its input in
 * place throws instead of passing.
 */

import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../src/core/content'
import { encodeReasoningSignature } from '../../src/providers/openai/responses'
import { compactSummaryText, omittedUnresolved, omittedUnsupported } from '../../src/providers/shared/content-rules'

/** A 1x1 PNG, base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='
/** A tiny PDF header, base64: enough for a builder, which never parses it. */
export const PDF = Buffer.from('%PDF-1.4\n%EOF\n').toString('base64')

/** Signatures by producer, so the suite can tell whose reasoning reached which wire. */
export const ANTHROPIC_SIGNATURE = 'EqQBCkYIBxgCKkDanthropic-signature-bytes'
export const GEMINI_SIGNATURE = 'gemini-thought-signature-Cs4BAVSoXO'
export const OPENAI_ENCRYPTED = 'gAAAAABopenai-encrypted-reasoning'
export const OPENAI_SIGNATURE = encodeReasoningSignature({ id: 'rs_0001', encryptedContent: OPENAI_ENCRYPTED, next: { type: 'function_call', callId: 'call_think' } })

/** Every signature in the corpus with the producer that made it. */
export const SIGNATURES: ReadonlyArray<{ producer: string, marker: string }> = [
  { producer: 'anthropic', marker: ANTHROPIC_SIGNATURE },
  { producer: 'gemini', marker: GEMINI_SIGNATURE },
  { producer: 'openai', marker: OPENAI_ENCRYPTED },
]

/** What a case expects every builder to show, in its own wire shape. */
export interface CorpusExpectations {
  /** Texts that must appear verbatim somewhere in the body (notes, summaries, inlined documents). */
  texts?: readonly string[]
  /** Media types of images that must reach the wire as images. */
  images?: readonly string[]
  /** Text in the output of every failed tool result: those, and only those, must be marked failed. */
  errors?: readonly string[]
}

export interface CorpusCase {
  name: string
  messages: readonly SessionMessage[]
  expect?: CorpusExpectations
}

function user(...content: SessionContentBlock[]): SessionMessage {
  return { role: 'user', content }
}

function assistant(...content: SessionContentBlock[]): SessionMessage {
  return { role: 'assistant', content }
}

function text(value: string): SessionContentBlock {
  return { type: 'text', text: value }
}

function call(id: string, name = 'read_file', input: Record<string, unknown> = { path: 'a.txt' }): SessionContentBlock {
  return { type: 'tool_call', id, name, input }
}

function result(callId: string, output: string | ToolResultContent[], isError?: boolean): SessionContentBlock {
  return { type: 'tool_result', callId, output, ...(isError ? { isError } : {}) }
}

const LONG_ID = `toolu_${'x'.repeat(190)}`
const ODD_ID = 'call.odd:id/1'
const UNICODE_ID = 'appel-é-🔧'

const CASES: CorpusCase[] = [
  {
    name: 'plain text',
    messages: [user(text('Hello?')), assistant(text('Hi.')), user(text('Bye.'))],
    expect: { texts: ['Hello?', 'Hi.', 'Bye.'] },
  },
  {
    name: 'an image and documents in a prompt',
    messages: [user(
      text('Look:'),
      { type: 'image', data: PNG, mediaType: 'image/png', name: 'dot.png' },
      { type: 'document', data: 'line one', encoding: 'text', mediaType: 'text/plain', name: 'notes.txt' },
      { type: 'document', data: Buffer.from('{"a":1}').toString('base64'), encoding: 'base64', mediaType: 'application/json', name: 'a.json' },
    )],
    expect: { images: ['image/png'], texts: ['line one', '{"a":1}'] },
  },
  {
    name: 'one call and its result',
    messages: [user(text('Read a.txt')), assistant(text('Reading.'), call('call_1')), user(result('call_1', 'contents of a'))],
    expect: { texts: ['contents of a'] },
  },
  {
    name: 'several results, recorded out of call order, one an error',
    messages: [
      user(text('Read three files')),
      assistant(call('call_a'), call('call_b'), call('call_c')),
      user(result('call_c', 'c'), result('call_a', 'no such file', true), result('call_b', 'b')),
      assistant(text('Done.')),
    ],
    expect: { texts: ['no such file'], errors: ['no such file'] },
  },
  {
    name: 'a failed result with text and an image',
    messages: [
      assistant(call('call_shot')),
      user(result('call_shot', [{ type: 'text', text: 'disk full' }, { type: 'image', data: PNG, mediaType: 'image/png' }], true)),
    ],
    expect: { texts: ['disk full'], images: ['image/png'], errors: ['disk full'] },
  },
  {
    name: 'results before the user text that follows them',
    messages: [
      assistant(call('call_x'), call('call_y')),
      user(text('Also, hurry.'), result('call_y', 'y'), result('call_x', 'x')),
    ],
    expect: { texts: ['Also, hurry.'] },
  },
  {
    name: 'a call id used twice in one message',
    messages: [
      assistant(call('dup', 'read_file', { path: '1' }), call('call_mid'), call('dup', 'read_file', { path: '2' })),
      user(result('call_mid', 'mid'), result('dup', 'first'), result('dup', 'second')),
    ],
  },
  {
    name: 'ids no API takes as they are',
    messages: [
      assistant(call(LONG_ID), call(ODD_ID), call(UNICODE_ID), call('')),
      user(result(UNICODE_ID, 'u'), result('', 'e'), result(LONG_ID, 'l'), result(ODD_ID, 'o')),
    ],
  },
  {
    name: 'tool-result media: accepted, unsupported and unresolved',
    messages: [
      assistant(call('call_media')),
      user(result('call_media', [
        { type: 'text', text: 'Here they are.' },
        { type: 'image', data: PNG, mediaType: 'image/png', name: 'ok.png' },
        { type: 'image', data: PNG, mediaType: 'image/tiff', name: 'scan.tiff' },
        { type: 'image', ref: 'blob:lost', mediaType: 'image/png', name: 'lost.png' },
        { type: 'document', ref: 'blob:gone', encoding: 'base64', mediaType: 'application/pdf', name: 'gone.pdf' },
        { type: 'document', data: PNG, encoding: 'base64', mediaType: 'application/zip', name: 'a.zip' },
        { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' },
        { type: 'video', data: 'AAAA', mediaType: 'video/mp4' },
      ])),
    ],
    expect: {
      texts: [
        'Here they are.',
        omittedUnsupported('image', 'image/tiff'),
        omittedUnresolved('image', { name: 'lost.png' }),
        omittedUnresolved('document', { name: 'gone.pdf' }),
        omittedUnsupported('document', 'application/zip'),
        omittedUnsupported('audio', 'audio/wav'),
        omittedUnsupported('video', 'video/mp4'),
      ],
    },
  },
  {
    name: 'thinking signed by three producers',
    messages: [
      user(text('Think.')),
      assistant(
        { type: 'thinking', text: 'anthropic thoughts', signature: ANTHROPIC_SIGNATURE, signatureProducer: 'anthropic' },
        { type: 'thinking', text: 'gemini thoughts', signature: GEMINI_SIGNATURE, signatureProducer: 'gemini' },
        { type: 'thinking', text: 'openai thoughts', signature: OPENAI_SIGNATURE, signatureProducer: 'openai' },
        { type: 'thinking', text: 'unsigned thoughts' },
        call('call_think'),
      ),
      user(result('call_think', 'thought through')),
    ],
  },
  {
    name: 'a compaction summary',
    messages: [user({ type: 'compact-summary', summary: 'We read a.txt.', model: 'm', compactedAt: 1, replacesTurnIds: ['t1'], usage: { input: 1, output: 1 } }), user(text('Go on.'))],
    expect: { texts: [compactSummaryText('We read a.txt.')] },
  },
  {
    name: 'empty turns and empty text',
    messages: [user(text('')), assistant(), user(text('Still there?')), assistant(text('')), user()],
    expect: { texts: ['Still there?'] },
  },
  {
    name: 'unicode, a lone surrogate included',
    messages: [user(text('naïve 日本語 👩🏽‍💻 \u202Eltr')), assistant(text('half \uD83D of an emoji')), user(text('ok'))],
    expect: { texts: ['naïve 日本語 👩🏽‍💻 \u202Eltr', 'half \uFFFD of an emoji'] },
  },
]

/** Freeze `value` and everything it holds, so an in-place edit throws (ESM is strict). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value))
      deepFreeze((value as Record<PropertyKey, unknown>)[key])
  }
  return value
}

/** The corpus, frozen to its leaves. */
export const WIRE_CORPUS: readonly CorpusCase[] = deepFreeze(CASES)

/** Every case at once, as one long conversation: what a session sends after many turns. */
export const WHOLE_CORPUS: readonly SessionMessage[] = deepFreeze(CASES.flatMap(entry => entry.messages.map(message => structuredClone(message))))
