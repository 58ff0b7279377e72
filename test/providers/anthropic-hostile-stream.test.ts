/**
 * An Anthropic Messages stream from a hostile or broken server (or a proxy in
 * front of it): events without the object they carry, fields of the wrong
 * type, indexes reused, events after `message_stop`, `error` events of odd
 * shapes. Each one ends as a turn the loop can record and replay, or as a
 * `ClassifiedError`; never as an untyped `TypeError`, a tool run with
 * arguments the model never sent, or a session the API refuses to continue.
 */

import type { ServerResponse } from 'node:http'
import type { ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { LocalServer } from '../support/local-http'
import type { SseEvent } from '../support/sse'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { MAX_ERROR_BODY_BYTES } from '../../src/providers/shared/capped-error-body'
import { INVALID_TOOL_INPUT_KEY } from '../../src/providers/tool-json'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startLocalServer } from '../support/local-http'
import { anthropicEvents } from '../support/sse'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

let fake: FakeAnthropic
let raw: LocalServer | undefined

beforeEach(async () => {
  fake = await startFakeAnthropic()
})

afterEach(async () => {
  await fake.close()
  await raw?.close()
  raw = undefined
})

const MODEL = 'claude-sonnet-4-5'

const start = (index: unknown, block: unknown): SseEvent => ({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } })
const delta = (index: unknown, body: unknown): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: body } })
const stop = (index: unknown): SseEvent => ({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
const MESSAGE_STOP: SseEvent = { event: 'message_stop', data: { type: 'message_stop' } }

/** `message_start`, then `blocks`, then `message_delta` (with `stopReason`) and `message_stop`. */
function message(blocks: SseEvent[], stopReason = 'tool_use'): SseEvent[] {
  return [
    anthropicEvents({})[0],
    ...blocks,
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 7 } } },
    MESSAGE_STOP,
  ]
}

/** A `tool_use` block at `index` whose arguments stream as `fragments`. */
function toolUse(index: number, block: Record<string, unknown>, fragments: unknown[] = []): SseEvent[] {
  return [
    start(index, { type: 'tool_use', id: `toolu_${index}`, name: 'lookup', input: {}, ...block }),
    ...fragments.map(fragment => delta(index, { type: 'input_json_delta', partial_json: fragment })),
    stop(index),
  ]
}

/** A tool whose parameters are all optional (so `{}` would run it), counting the calls that ran. */
function optionalTool(): { tool: ToolDef, ran: unknown[] } {
  const ran: unknown[] = []
  const tool: ToolDef = {
    spec: { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } },
    execute: (input) => {
      ran.push(input)
      return `looked up ${String(input.word)}`
    },
  }
  return { tool, ran }
}

/** A run with the optional lookup tool whose first turn streams `events`, then a turn of plain text. */
async function runWith(events: SseEvent[]) {
  fake.enqueue({ type: 'sse', events })
  fake.enqueue({ type: 'turn', turn: { text: 'Done.' } })
  const { tool, ran } = optionalTool()
  const session = await createSession()
  const agent = createAgent({
    provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: MODEL }),
    session,
    tools: { lookup: tool },
    behavior: { retry: { maxAttempts: 1 } },
  })
  const stats = await agent.run({ prompt: 'Look it up.' })
  return { stats, session, ran }
}

/** One turn through the provider, against a server that writes `body` as it is. */
async function streamRaw(body: string) {
  raw = await startLocalServer((_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_raw' })
    response.end(body)
  })
  return anthropic({ baseURL: raw.url(), apiKey: 'k' }).stream(streamOptions(), recordCallbacks().callbacks)
}

function frame(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`
}

/** The first two events of a text turn, written as frames. */
const HEAD = anthropicEvents({ text: 'hi' }).slice(0, 2).map(event => frame(event.event, JSON.stringify(event.data))).join('')

describe('an event without the object it carries', () => {
  const text = anthropicEvents({ text: 'hi' })
  it.each<[string, SseEvent[]]>([
    ['message_start without message', [{ event: 'message_start', data: { type: 'message_start' } }, ...text.slice(1)]],
    ['message_start whose message is null', [{ event: 'message_start', data: { type: 'message_start', message: null } }, ...text.slice(1)]],
    ['content_block_start without content_block', [...text.slice(0, -2), { event: 'content_block_start', data: { type: 'content_block_start', index: 5 } }, stop(5), ...text.slice(-2)]],
    ['content_block_start whose content_block is null', [...text.slice(0, -2), start(5, null), stop(5), ...text.slice(-2)]],
    ['content_block_delta without delta', [...text.slice(0, -3), { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0 } }, ...text.slice(-3)]],
    ['content_block_delta whose delta is null', [...text.slice(0, -3), delta(0, null), ...text.slice(-3)]],
    ['message_delta without delta', [...text.slice(0, -2), { event: 'message_delta', data: { type: 'message_delta', usage: { output_tokens: 9 } } }, MESSAGE_STOP]],
    ['data that is null', [...text.slice(0, 1), { event: 'content_block_start', data: null }, ...text.slice(1)]],
  ])('%s is ignored: the run completes with the rest of the turn', async (_name, events) => {
    const { stats, session } = await runWith(events)
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('hi')
    expect(session.turns[1].content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('a message_start without message leaves the requested model; a message_delta without delta still brings its usage', async () => {
    const events = [{ event: 'message_start', data: { type: 'message_start' } }, ...anthropicEvents({ text: 'hi' }).slice(1, -2), { event: 'message_delta', data: { type: 'message_delta', usage: { output_tokens: 9 } } }, MESSAGE_STOP]
    const { session } = await runWith(events)
    expect(session.turns[1].usage).toMatchObject({ modelId: MODEL, output: 9, finishReason: 'other' })
  })
})

describe('a message that is not JSON', () => {
  it('fails the turn with a retryable server error quoting its start', async () => {
    const error = await rejectionOf(streamRaw(`${HEAD}${frame('content_block_delta', `{"type":"content_block_delta",${'x'.repeat(1000)}`)}`))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'anthropic' })
    expect(error.message).toContain('anthropic streamed a message that is not JSON: {"type":"content_block_delta",')
    expect(error.message.length).toBeLessThan(300)
  })
})

describe('an error event of an odd shape', () => {
  const errorEvent = (error: unknown) => `${HEAD}${frame('error', JSON.stringify({ type: 'error', error }))}`

  it('a message that is an object fails the turn with a ClassifiedError of the error\'s type', async () => {
    const error = await rejectionOf(streamRaw(errorEvent({ type: 'invalid_request_error', message: { detail: 'x' } })))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false })
  })

  it('a message whose toString is not a function: a retryable server error for an api_error', async () => {
    const error = await rejectionOf(streamRaw(errorEvent({ type: 'api_error', message: { toString: 1 } })))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: true })
  })

  it('a body nested 20,000 levels deep keeps its type', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`
    const error = await rejectionOf(streamRaw(`${HEAD}${frame('error', `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded","details":${deep}}}`)}`))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, message: 'Overloaded' })
  })

  it('a message of 20 MB is cut at the error-body limit', async () => {
    const error = await rejectionOf(streamRaw(errorEvent({ type: 'api_error', message: 'x'.repeat(20_000_000) })))
    expect(error).toMatchObject({ kind: 'server', retryable: true })
    expect(error.message.length).toBe(MAX_ERROR_BODY_BYTES + 1)
    expect(error.message.endsWith('x…')).toBe(true)
  })

  it('a body of null still fails the turn with a ClassifiedError that says so', async () => {
    const error = await rejectionOf(streamRaw(`${HEAD}${frame('error', 'null')}`))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.message).toBe('the stream sent an error event without a readable message')
  })
})

describe('tool_use blocks of the wrong shape', () => {
  it.each<[string, unknown]>([
    ['a string', 'rm -rf /'],
    ['an array', [{ word: 'alpha' }]],
    ['a number', 5],
    ['null', null],
  ])('an input that is %s, with no deltas, is not run with {}: the model gets an error result', async (_name, input) => {
    const { stats, session, ran } = await runWith(message(toolUse(0, { input })))
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([])
    const call = session.turns[1].content[0] as { type: string, input: Record<string, unknown> }
    expect(call.input).toEqual({ [INVALID_TOOL_INPUT_KEY]: { raw: '', error: 'arguments are not a JSON object' } })
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', callId: 'toolu_0', isError: true })
    expect(JSON.stringify(session.turns[2].content[0])).toContain('arguments are not a JSON object')
  })

  it('an input that is an object is still taken when no deltas come', async () => {
    const { ran } = await runWith(message(toolUse(0, { input: { word: 'alpha' } })))
    expect(ran).toEqual([{ word: 'alpha' }])
  })

  it.each<[string, unknown]>([
    ['a number', 5],
    ['an object', { word: 'beta' }],
    ['null', null],
  ])('a partial_json that is %s is not skipped: the call gets an error result', async (_name, fragment) => {
    // Skipping the odd fragment would leave `{"word":"alpha"}`, arguments the server never sent as such.
    const { stats, session, ran } = await runWith(message(toolUse(0, {}, ['{"word":"alpha"', fragment, '}'])))
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([])
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', callId: 'toolu_0', isError: true })
    expect(JSON.stringify(session.turns[2].content[0])).toContain('a fragment that is not text')
  })

  it('two calls whose ids are not strings get ids of their own: both run, and both go back on the next request', async () => {
    const { stats, session, ran } = await runWith(message([
      ...toolUse(0, { id: 5 }, ['{"word":"alpha"}']),
      ...toolUse(1, { id: undefined }, ['{"word":"beta"}']),
    ]))
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([{ word: 'alpha' }, { word: 'beta' }])
    const ids = session.turns[1].content.map(block => (block as { id: string }).id)
    expect(ids).toHaveLength(2)
    expect(new Set(ids).size).toBe(2)
    expect(session.turns[2].content.map(block => (block as { callId: string }).callId)).toEqual(ids)
    const sent = fake.requests[1].body.messages as { role: string, content: { type: string, id?: string, tool_use_id?: string }[] }[]
    expect(sent[1].content.filter(block => block.type === 'tool_use').map(block => block.id)).toEqual(ids)
    expect(sent[2].content.map(block => block.tool_use_id)).toEqual(ids)
  })
})

describe('blocks the API would refuse to get back', () => {
  it('a redacted_thinking block whose data is not a string is not recorded, so the next request is not refused', async () => {
    const { stats, session } = await runWith(message([start(0, { type: 'redacted_thinking', data: 42 }), stop(0), ...toolUse(1, {}, ['{"word":"alpha"}'])]))
    expect(stats.stopReason).toBe('completed')
    expect(session.turns[1].content.map(block => block.type)).toEqual(['tool_call'])
    const sent = fake.requests[1].body.messages as { content: { type: string }[] }[]
    expect(sent[1].content.map(block => block.type)).toEqual(['tool_use'])
  })

  it.each<[string, SseEvent[]]>([
    ['a signature_delta that is not a string', [delta(0, { type: 'signature_delta', signature: 'EqQBCg' }), delta(0, { type: 'signature_delta', signature: 7 })]],
    ['a thinking_delta that is not a string', [delta(0, { type: 'thinking_delta', thinking: { text: 'lost' } }), delta(0, { type: 'signature_delta', signature: 'EqQBCg' })]],
  ])('%s leaves the thinking unsigned: kept in the session, not sent back with a signature that no longer matches', async (_name, deltas) => {
    const { stats, session } = await runWith(message([
      start(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'Let me look.' }),
      ...deltas,
      stop(0),
      ...toolUse(1, {}, ['{"word":"alpha"}']),
    ]))
    expect(stats.stopReason).toBe('completed')
    expect(session.turns[1].content[0]).toEqual({ type: 'thinking', text: 'Let me look.' })
    const sent = fake.requests[1].body.messages as { content: { type: string }[] }[]
    expect(sent[1].content.map(block => block.type)).toEqual(['tool_use'])
  })

  it.each<[string, unknown]>([
    ['an object', { name: 'web_search_tool_result' }],
    ['an object whose toString is not a function', { toString: 1 }],
  ])('a server tool result whose type is %s is ignored', async (_name, type) => {
    const { stats, session } = await runWith(message([start(0, { type, tool_use_id: 'srvtoolu_1', content: [] }), stop(0), ...anthropicEvents({ text: 'hi' }).slice(1, 4)], 'end_turn'))
    expect(stats.stopReason).toBe('completed')
    expect(session.turns[1].content).toEqual([{ type: 'text', text: 'hi' }])
  })
})

describe('indexes and order', () => {
  it('a content_block_start for an index still open keeps the block that was open: the call runs', async () => {
    const { stats, session, ran } = await runWith(message([
      start(0, { type: 'tool_use', id: 'toolu_0', name: 'lookup', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"word":"alpha"}' }),
      start(0, { type: 'text', text: 'second' }),
      stop(0),
    ]))
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([{ word: 'alpha' }])
    expect(session.turns[1].content).toEqual([
      { type: 'tool_call', id: 'toolu_0', name: 'lookup', input: { word: 'alpha' } },
      { type: 'text', text: 'second' },
    ])
  })

  it('events after message_stop are not part of the turn: a call appended there is not run', async () => {
    const events = [...anthropicEvents({ text: 'hi' }), ...toolUse(1, {}, ['{"word":"late"}']), { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 99 } } }]
    fake.enqueue({ type: 'sse', events })
    const { tool, ran } = optionalTool()
    const session = await createSession()
    const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: MODEL }), session, tools: { lookup: tool } })
    const stats = await agent.run({ prompt: 'Look it up.' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('hi')
    expect(ran).toEqual([])
    expect(session.turns[1].content).toEqual([{ type: 'text', text: 'hi' }])
    expect(session.turns[1].usage).toMatchObject({ output: 20, finishReason: 'stop' })
    expect(fake.requests).toHaveLength(1)
  })
})
