import type { ServerResponse } from 'node:http'
import type { LocalServer } from '../support/local-http'
import { afterEach, describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { startLocalServer } from '../support/local-http'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

// The Anthropic provider reads the response body with zidane's event-stream
// parser and hands each event to the turn reader directly. These bodies are
// written the way the API and proxies in front of it write them, cut into
// awkward reads, and must read exactly as they did through the SDK's Stream.

const encoder = new TextEncoder()

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** A Messages endpoint that writes `pieces` one by one, a few milliseconds apart, so each arrives as its own read. */
async function rawMessagesServer(pieces: readonly (string | Uint8Array)[], onClose?: () => void): Promise<LocalServer> {
  return startLocalServer((_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_raw' })
    response.flushHeaders()
    response.on('close', () => onClose?.())
    let at = 0
    const next = () => {
      if (at === pieces.length)
        return response.end()
      response.write(pieces[at++])
      setTimeout(next, 3)
    }
    next()
  })
}

function sse(event: string, data: object, eol = '\n'): string {
  return `event: ${event}${eol}data: ${JSON.stringify(data)}${eol}${eol}`
}

const START = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: null } } }
const textStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
const textDelta = (index: number, text: string) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })
const stop = (index: number) => ({ type: 'content_block_stop', index })
const DELTA = { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9, input_tokens: null } }

const providerAt = (url: () => string) => anthropic({ baseURL: url(), apiKey: 'test-key' })

describe('an Anthropic body read by zidane\'s event-stream parser', () => {
  it('reads a turn written with CRLF, pings, comments, unnamed messages and characters cut between reads', async () => {
    const eol = '\r\n'
    const text = [
      sse('message_start', START, eol),
      sse('ping', { type: 'ping' }, eol),
      `: proxy keep-alive${eol}${eol}`,
      sse('content_block_start', textStart(0), eol),
      sse('content_block_delta', textDelta(0, 'é中😀 one'), eol),
      // No event name: the SDK skips such a message, so must the provider (it would otherwise add text).
      `data: ${JSON.stringify(textDelta(0, 'NOT SENT'))}${eol}${eol}`,
      sse('content_block_delta', textDelta(0, ', two'), eol),
      sse('content_block_stop', stop(0), eol),
      sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01', name: 'read_note', input: {} } }, eol),
      sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"id":' } }, eol),
      sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"é"}' } }, eol),
      sse('content_block_stop', stop(1), eol),
      sse('message_delta', DELTA, eol),
      sse('message_stop', { type: 'message_stop' }, eol),
    ].join('')
    const bytes = encoder.encode(text)
    // Cut every 7 bytes: inside characters, inside CRLFs, inside field names.
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, n) => bytes.subarray(n * 7, n * 7 + 7))
    server = await rawMessagesServer(pieces)
    const recorded = recordCallbacks()
    const result = await providerAt(server.url).stream(streamOptions(), recorded.callbacks)
    expect(recorded.texts).toEqual(['é中😀 one', ', two'])
    expect(result.content).toEqual([
      { type: 'text', text: 'é中😀 one, two' },
      { type: 'tool_call', id: 'toolu_01', name: 'read_note', input: { id: 'é' } },
    ])
    expect(result.toolCalls).toEqual([{ id: 'toolu_01', name: 'read_note', input: { id: 'é' } }])
    expect(result.finishReason).toBe('tool-calls')
    expect(result.usage).toMatchObject({ input: 12, output: 9, cacheRead: 0 })
  })

  it('an error event mid-stream rejects the turn with the API\'s error type, retryable when overloaded, and lets the connection go', async () => {
    let closed = false
    server = await rawMessagesServer([
      sse('message_start', START),
      sse('content_block_start', textStart(0)),
      sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ], () => {
      closed = true
    })
    const error = await rejectionOf(providerAt(server.url).stream(streamOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.retryable).toBe(true)
    expect(error.message).toContain('Overloaded')
    await expect.poll(() => closed).toBe(true)
  })

  it('a body that ends before message_stop is a cut-off turn (retryable network), and a message that is not JSON fails the turn', async () => {
    server = await rawMessagesServer([sse('message_start', START), sse('content_block_start', textStart(0)), sse('content_block_delta', textDelta(0, 'half'))])
    const cut = await rejectionOf(providerAt(server.url).stream(streamOptions(), recordCallbacks().callbacks))
    expect(cut.kind).toBe('network')
    expect(cut.retryable).toBe(true)
    await server.close()

    server = await rawMessagesServer([sse('message_start', START), 'event: content_block_start\ndata: {"type":"content_blo\n\n'])
    const broken = await rejectionOf(providerAt(server.url).stream(streamOptions(), recordCallbacks().callbacks))
    expect(broken).toBeInstanceOf(ClassifiedError)
  })
})
