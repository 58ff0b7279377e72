/**
 * The usage of `message_start` and `message_delta` comes from the server or
 * a proxy. Only its known fields are read, and only from an object: a usage
 * that was a string of megabytes was copied into the turn's usage one
 * property per character (about 2.4 s per MB on `message_delta`), and an own
 * `__proto__` key replaced the usage's prototype, whose fields were then read
 * as the turn's counts.
 */

import type { LocalServer } from '../support/local-http'
import type { SseEvent } from '../support/sse'
import { afterEach, describe, expect, it } from 'vitest'
import { anthropic } from '../../src/providers/anthropic'
import { startLocalServer } from '../support/local-http'
import { anthropicEvents, sseFrame } from '../support/sse'
import { recordCallbacks, streamOptions } from './anthropic-fixtures'

let raw: LocalServer | undefined

afterEach(async () => {
  await raw?.close()
  raw = undefined
})

/** One turn through the provider, against a server that writes `body` as it is. */
async function streamRaw(body: string) {
  raw = await startLocalServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.end(body)
  })
  return anthropic({ baseURL: raw.url(), apiKey: 'k' }).stream(streamOptions(), recordCallbacks().callbacks)
}

const EVENTS = anthropicEvents({ text: 'hi' })
const START = EVENTS[0]
const DELTA_AT = EVENTS.findIndex(event => event.event === 'message_delta')

/** The text turn with its `message_start` usage, then its `message_delta` usage, written as JSON text. */
function turnWithUsage(startUsage: string, deltaUsage: string): string {
  const startMessage = { ...(START.data as { message: Record<string, unknown> }).message }
  delete startMessage.usage
  const start = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: startMessage }).slice(0, -2)},"usage":${startUsage}}}\n\n`
  const delta = `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":${deltaUsage}}\n\n`
  const middle = EVENTS.slice(1, DELTA_AT).map((event: SseEvent) => sseFrame(event)).join('')
  return `${start}${middle}${delta}${EVENTS.slice(DELTA_AT + 1).map(event => sseFrame(event)).join('')}`
}

describe('a usage that is not an object of counts', () => {
  it('a string of 8 MB on message_delta is ignored, in well under the test\'s time', async () => {
    const result = await streamRaw(turnWithUsage('{"input_tokens":12,"output_tokens":1}', JSON.stringify('x'.repeat(8_000_000))))
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(result.usage).toMatchObject({ input: 12, output: 1 })
  })

  it('a string of 16 MB on message_start is ignored too', async () => {
    const result = await streamRaw(turnWithUsage(JSON.stringify('x'.repeat(16_000_000)), '{"output_tokens":4}'))
    expect(result.usage).toMatchObject({ input: 0, output: 4 })
  })

  it('counts under a __proto__ key are not the turn\'s counts', async () => {
    const result = await streamRaw(turnWithUsage('{"__proto__":{"input_tokens":500000}}', '{"__proto__":{"output_tokens":900000}}'))
    expect(result.usage).toMatchObject({ input: 0, output: 0 })
  })

  it('a list is ignored, and null counts on message_delta keep the start\'s', async () => {
    const result = await streamRaw(turnWithUsage('{"input_tokens":12,"output_tokens":1}', '[7,8,9]'))
    expect(result.usage).toMatchObject({ input: 12, output: 1 })
    const again = await streamRaw(turnWithUsage('{"input_tokens":12,"output_tokens":1}', '{"input_tokens":null,"output_tokens":6}'))
    expect(again.usage).toMatchObject({ input: 12, output: 6 })
  })
})
