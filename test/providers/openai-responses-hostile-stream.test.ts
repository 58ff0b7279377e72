/**
 * A Responses stream from a hostile or broken server (or a gateway re-emitting
 * the API): fields of the wrong type, lists built to make the reader do
 * quadratic work, a stream that stays open after its last event. Each one ends
 * as a turn the loop can record and replay, or as a `ClassifiedError`; never
 * as an untyped `TypeError` or `RangeError`, a corrupt session or a hang.
 */

import type { RawSseEvent } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { streamResponses } from '../../src/providers/openai/responses'
import { INVALID_TOOL_INPUT_KEY } from '../../src/providers/tool-json'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { clientAnswering, recordCallbacks, rejectionOf, responsesEvent, responsesOptions, runLookupAgent, streamAgainst } from './openai-responses-fixtures'

let fake: Awaited<ReturnType<typeof startFakeOpenAI>>

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

/** An event written as raw JSON text: for values the fake's own `JSON.stringify` cannot write (20,000 levels deep). */
function rawEvent(type: string, json: string): RawSseEvent {
  return { event: type, data: json }
}

/** JSON text of an object nested `levels` deep. */
function deepJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
}

const COMPLETED = responsesEvent('response.completed', { response: { id: 'resp_1', status: 'completed', model: 'gpt-5.2', output: [], usage: { input_tokens: 5, output_tokens: 3 } } })

function call(index: number, fields: Record<string, unknown>): RawSseEvent[] {
  const item = { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"word":"alpha"}', ...fields }
  return [
    responsesEvent('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } }),
    responsesEvent('response.output_item.done', { output_index: index, item }),
  ]
}

/** A run with the lookup tool whose first turn streams `events` and completes, then a turn of plain text. */
const runWith = (events: RawSseEvent[]) => runLookupAgent(fake, [...events, COMPLETED])

describe('a function call whose call_id or name is not a string', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a number', { call_id: 5 }],
    ['an object', { call_id: { id: 'call_1' } }],
    ['missing', { call_id: undefined }],
    ['empty', { call_id: '' }],
  ])('a call_id that is %s gets an id of its own; the call runs, and the next request is built', async (_name, fields) => {
    const { stats, session } = await runWith(call(0, fields))
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Done.')
    const [callTurn, resultTurn] = session.turns.slice(1, 3)
    const block = callTurn.content[0] as { type: string, id: unknown }
    expect(block.type).toBe('tool_call')
    expect(block.id).toMatch(/^call_\w{24}$/)
    expect(resultTurn.content[0]).toMatchObject({ type: 'tool_result', callId: block.id })
    expect(fake.requests).toHaveLength(2)
    const input = fake.requests[1].body.input as { type: string, call_id?: string }[]
    expect(input.filter(item => item.type === 'function_call').map(item => item.call_id)).toEqual([block.id])
  })

  it('two calls without a call_id get different ids, each paired with its own result', async () => {
    const { stats, session } = await runWith([...call(0, { call_id: undefined }), ...call(1, { call_id: undefined, arguments: '{"word":"beta"}' })])
    expect(stats.stopReason).toBe('completed')
    const ids = session.turns[1].content.map(block => (block as { id: string }).id)
    expect(new Set(ids).size).toBe(2)
    expect(session.turns[2].content.map(block => (block as { callId: string }).callId)).toEqual(ids)
  })

  it.each<[string, Record<string, unknown>]>([
    ['a number', { name: 5 }],
    ['an object', { name: { name: 'lookup' } }],
    ['missing', { name: undefined }],
  ])('a name that is %s is an empty name: the model gets an error result and the run goes on', async (_name, fields) => {
    const { stats, session } = await runWith(call(0, fields))
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Done.')
    expect(session.turns[1].content[0]).toMatchObject({ type: 'tool_call', id: 'call_1', name: '' })
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', callId: 'call_1', isError: true })
    expect(fake.requests).toHaveLength(2)
  })

  it('a call_id or a name nested 20,000 levels deep is read as missing', async () => {
    const item = (field: string) => `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":${field === 'call_id' ? deepJson(20_000) : '"call_1"'},"name":${field === 'name' ? deepJson(20_000) : '"lookup"'},"arguments":"{}"}}`
    for (const field of ['call_id', 'name']) {
      fake.enqueue({ type: 'sse', events: [rawEvent('response.output_item.done', item(field)), COMPLETED] })
      const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
      expect(typeof result.toolCalls[0].id).toBe('string')
      expect(typeof result.toolCalls[0].name).toBe('string')
      expect(JSON.stringify(result.content).length).toBeLessThan(200)
    }
  })
})

describe('function call arguments that are not a string', () => {
  it('an object is taken as the arguments, as a gateway that parsed them meant', async () => {
    const { session } = await runWith(call(0, { arguments: { word: 'alpha' } }))
    expect(session.turns[1].content[0]).toMatchObject({ type: 'tool_call', input: { word: 'alpha' } })
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', output: expect.stringContaining('the word alpha') })
  })

  it.each<[string, unknown]>([
    ['a number', 5],
    ['an array', ['{"word":', '"alpha"}']],
    ['true', true],
  ])('%s is refused: the model gets an error result saying so', async (_name, value) => {
    const { stats, session } = await runWith(call(0, { arguments: value }))
    expect(stats.stopReason).toBe('completed')
    const input = (session.turns[1].content[0] as { input: Record<string, { error: string }> }).input
    expect(input[INVALID_TOOL_INPUT_KEY].error).toMatch(/^arguments are not a JSON object/)
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', isError: true })
  })

  it('an object nested 20,000 levels deep is refused as too deep', async () => {
    fake.enqueue({ type: 'sse', events: [rawEvent('response.output_item.done', `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"call_1","name":"lookup","arguments":${deepJson(20_000)}}}`), COMPLETED] })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect((result.toolCalls[0].input[INVALID_TOOL_INPUT_KEY] as { error: string }).error).toMatch(/nested more than 100 levels/)
  })
})

describe('error and response.failed events with odd bodies', () => {
  it.each<[string, RawSseEvent]>([
    ['an error event whose code is a number', responsesEvent('error', { code: 42, message: 'Upstream broke.' })],
    ['an error event whose code is a list', responsesEvent('error', { code: ['rate_limit_exceeded'], message: 'Upstream broke.' })],
    ['a response.failed whose code is an object', responsesEvent('response.failed', { response: { error: { code: { value: 1 }, message: 'Upstream broke.' } } })],
  ])('%s: a server error with the message', async (_name, failure) => {
    fake.enqueue({ type: 'sse', events: [failure] })
    const error = await rejectionOf(streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.kind).toBe('server')
    expect(error.retryable).toBe(true)
    expect(error.message).toBe('Upstream broke.')
  })

  it.each<[string, RawSseEvent]>([
    ['a message that is a list', responsesEvent('error', { code: 'server_error', message: ['context_length_exceeded'] })],
    ['a message that is a number', responsesEvent('response.failed', { response: { error: { code: 'server_error', message: 404 } } })],
    ['a code and message nested 20,000 levels deep', rawEvent('error', `{"type":"error","code":${deepJson(20_000)},"message":${deepJson(20_000)}}`)],
  ])('%s: the failure without it', async (_name, failure) => {
    fake.enqueue({ type: 'sse', events: [failure] })
    const error = await rejectionOf(streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.kind).toBe('server')
    expect(error.message).toMatch(/^The response failed/)
  })

  it('a message of megabytes is cut to a readable length', async () => {
    fake.enqueue({ type: 'sse', events: [responsesEvent('response.failed', { response: { error: { code: 'server_error', message: 'm'.repeat(5_000_000) } } })] })
    const error = await rejectionOf(streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.kind).toBe('server')
    expect(error.message.length).toBeLessThan(5000)
    expect(error.message).toMatch(/^m+…/)
    expect(JSON.stringify(error.cause).length).toBeLessThan(5000)
  })
})

describe('a reasoning item whose id or encrypted content is not a string', () => {
  it.each<[string, string, string]>([
    ['an id nested 20,000 levels deep', deepJson(20_000), '"enc_1"'],
    ['encrypted content nested 20,000 levels deep', '"rs_1"', deepJson(20_000)],
    ['a numeric id', '5', '"enc_1"'],
    ['encrypted content that is an object', '"rs_1"', '{"data":"enc_1"}'],
  ])('%s: its summary is kept as unsigned thinking, never replayed', async (_name, id, encrypted) => {
    fake.enqueue({
      type: 'sse',
      events: [
        rawEvent('response.output_item.done', `{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":${id},"summary":[{"type":"summary_text","text":"Thinking."}],"encrypted_content":${encrypted}}}`),
        responsesEvent('response.output_item.added', { output_index: 1, item: { type: 'message', content: [] } }),
        responsesEvent('response.output_text.delta', { output_index: 1, delta: 'Hi.' }),
        COMPLETED,
      ],
    })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'thinking', text: 'Thinking.' }, { type: 'text', text: 'Hi.' }])
  })
})

function frames(events: RawSseEvent[]): Uint8Array {
  return new TextEncoder().encode(events.map(e => `event: ${e.event}\ndata: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`).join(''))
}

function streamOf(events: RawSseEvent[], close = true): ReadableStream<Uint8Array> {
  const bytes = frames(events)
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes)
      if (close)
        controller.close()
    },
  })
}

describe('reasoning summaries built for quadratic work', () => {
  // No clock is read: each case is sized so that the quadratic or per-index work it guards against would run
  // far past the test's timeout, while the linear reading takes a fraction of a second.
  it('a finished reasoning item of 400,000 summary parts, the first half empty, is read in linear time', async () => {
    const summary = [
      ...Array.from({ length: 200_000 }).fill({ type: 'summary_text', text: '' }),
      ...Array.from({ length: 200_000 }).fill({ type: 'summary_text', text: 'a' }),
    ]
    const events = [responsesEvent('response.output_item.done', { output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary } }), COMPLETED]
    const rec = recordCallbacks()
    const result = await streamResponses(clientAnswering(() => streamOf(events)), responsesOptions(), rec.callbacks, { providerName: 'openai' })
    const text = Array.from({ length: 200_000 }).fill('a').join('\n\n')
    expect(result.content).toEqual([{ type: 'thinking', text }])
    expect(rec.thinking.join('')).toBe(text)
    // Each part used to search every earlier part for text: about 20 s for half as many parts, 80 s for these.
  }, 30_000)

  it('summary deltas at a summary index of hundreds of millions allocate nothing for the parts skipped', async () => {
    const events: RawSseEvent[] = []
    for (let index = 0; index < 20; index++) {
      events.push(responsesEvent('response.output_item.added', { output_index: index, item: { type: 'reasoning', id: `rs_${index}` } }))
      events.push(responsesEvent('response.reasoning_summary_text.delta', { output_index: index, summary_index: 500_000_000, delta: 'a' }))
    }
    events.push(COMPLETED)
    const result = await streamResponses(clientAnswering(() => streamOf(events)), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' })
    expect(result.content).toHaveLength(20)
    expect(result.content[0]).toEqual({ type: 'thinking', text: 'a' })
    // Each item used to fill every part up to the index first: ten billion arrays for these twenty items.
  }, 30_000)
})

describe('events after the response ended', () => {
  it('a stream that stays open after response.completed ends the turn at that event and lets the connection go', async () => {
    let cancelled = false
    const body = () => {
      const bytes = frames(responsesEvents({ text: 'All done.' }))
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes)
        },
        cancel() {
          cancelled = true
        },
      })
    }
    const turn = streamResponses(clientAnswering(body), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' })
    const stall = new Promise(resolve => setTimeout(resolve, 2000, 'still reading'))
    const result = await Promise.race([turn, stall])
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'All done.' }], finishReason: 'stop' })
    expect(cancelled).toBe(true)
  })

  it('text, calls, a second completion or a failure after response.completed change nothing', async () => {
    fake.enqueue({
      type: 'sse',
      events: [
        ...responsesEvents({ text: 'All done.', usage: { input_tokens: 10, output_tokens: 4 } }),
        responsesEvent('response.output_text.delta', { output_index: 0, delta: ' And more.' }),
        ...call(1, {}),
        responsesEvent('response.completed', { response: { status: 'completed', usage: { input_tokens: 9000, output_tokens: 9000 } } }),
        responsesEvent('response.failed', { response: { error: { code: 'server_error', message: 'late' } } }),
      ],
    })
    const rec = recordCallbacks()
    const result = await streamAgainst(fake, responsesOptions(), rec.callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'All done.' }])
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ input: 10, output: 4 })
    expect(rec.texts.join('')).toBe('All done.')
    expect(rec.toolStarts).toEqual([])
  })
})

describe('response.incomplete whose response is not an object', () => {
  it('a string of megabytes is not copied character by character', async () => {
    const events = [
      responsesEvent('response.output_item.added', { output_index: 0, item: { type: 'message', content: [] } }),
      responsesEvent('response.output_text.delta', { output_index: 0, delta: 'Partial' }),
      responsesEvent('response.incomplete', { response: 'x'.repeat(60_000_000) }),
    ]
    const result = await streamResponses(clientAnswering(() => streamOf(events)), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' })
    expect(result.content).toEqual([{ type: 'text', text: 'Partial' }])
    expect(result.finishReason).toBe('other')
    // `Object.assign({}, string)` made an object of one property per character: about 8 s for 20 million,
    // past the timeout for these 60 million.
  }, 20_000)
})
