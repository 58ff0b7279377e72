/**
 * How an attempt's signal reaches the HTTP request. The default client sets it
 * on the fetch itself, so the SDK never arms its abandonment backstop (a
 * `FinalizationRegistry` entry that keeps the request's controller, listener
 * and signal alive until a full garbage collection); a client with the SDK's
 * own timeout or retries hands it to the SDK as before. Either way an abort
 * must close the connection, before the headers and in the middle of the body.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AnthropicParams } from '../../src/providers/anthropic'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { anthropic } from '../../src/providers/anthropic'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

type Mode = 'complete' | 'stall-before-headers' | 'stall-mid-body'

interface StallServer {
  url: string
  mode: Mode
  /** Resolves once the server holds a request without answering it. */
  holding: () => Promise<void>
  /** Resolves when the client has closed the request the server is holding. */
  closed: () => Promise<void>
}

const EVENTS = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
]
const ENDING = [
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
]

function frame(event: { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}

let server: Server
let stall: StallServer

beforeEach(async () => {
  let held: IncomingMessage | undefined
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      if (stall.mode === 'stall-before-headers') {
        held = req
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(EVENTS.map(frame).join(''))
      if (stall.mode === 'stall-mid-body') {
        held = req
        return
      }
      res.end(ENDING.map(frame).join(''))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  stall = {
    url: `http://127.0.0.1:${port}`,
    mode: 'complete',
    holding: () => vi.waitFor(() => expect(held).toBeDefined()),
    closed: async () => {
      await stall.holding()
      const request = held!
      if (!request.socket.destroyed)
        await once(request.socket, 'close')
    },
  }
})

afterEach(async () => {
  server.closeAllConnections()
  server.close()
  vi.restoreAllMocks()
})

const CLIENTS: [string, Partial<AnthropicParams>][] = [
  ['the default client (signal on the fetch)', {}],
  ['a client with the SDK timeout (signal through the SDK)', { timeoutMs: 60_000 }],
  ['a client with SDK retries (signal through the SDK)', { maxRetries: 2 }],
]

describe.each(CLIENTS)('%s', (_label, params) => {
  const provider = () => anthropic({ baseURL: stall.url, apiKey: 'test-key', ...params })

  it('streams a turn', async () => {
    const recorded = recordCallbacks()
    const turn = await provider().stream(streamOptions(), recorded.callbacks)
    expect(recorded.texts).toEqual(['Hi'])
    expect(turn.finishReason).toBe('stop')
  })

  it('closes the connection on an abort before the headers', async () => {
    stall.mode = 'stall-before-headers'
    const controller = new AbortController()
    const pending = rejectionOf(provider().stream(streamOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    await stall.holding()
    controller.abort()
    await stall.closed()
    expect(await pending).toMatchObject({ kind: 'aborted', retryable: false })
  })

  it('closes the connection on an abort in the middle of the body', async () => {
    stall.mode = 'stall-mid-body'
    const controller = new AbortController()
    const recorded = recordCallbacks()
    recorded.callbacks.onText = () => controller.abort()
    const error = await rejectionOf(provider().stream(streamOptions({ signal: controller.signal }), recorded.callbacks))
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
    await stall.closed()
  })
})

/** The held values of every `FinalizationRegistry` registration made while `work` runs. */
async function registrationsDuring(work: () => Promise<unknown>): Promise<unknown[]> {
  const held: unknown[] = []
  const original = FinalizationRegistry.prototype.register
  vi.spyOn(FinalizationRegistry.prototype, 'register').mockImplementation(function (this: FinalizationRegistry<unknown>, target, value, token) {
    held.push(value)
    return original.call(this, target, value, token)
  })
  try {
    await work()
  }
  finally {
    vi.restoreAllMocks()
  }
  return held
}

describe('the SDK\'s abandonment backstop', () => {
  const threeTurns = (params: Partial<AnthropicParams>) => async () => {
    const provider = anthropic({ baseURL: stall.url, apiKey: 'test-key', ...params })
    for (let i = 0; i < 3; i++)
      await provider.stream(streamOptions(), recordCallbacks().callbacks)
  }

  it('is never armed for the default client', async () => {
    const held = await registrationsDuring(threeTurns({}))
    expect(held.filter(value => value instanceof AbortController)).toEqual([])
  })

  it('is armed once per request when the signal goes through the SDK (the spy sees it)', async () => {
    const held = await registrationsDuring(threeTurns({ timeoutMs: 60_000 }))
    expect(held.filter(value => value instanceof AbortController)).toHaveLength(3)
  })
})
