import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Provider } from '../../src'
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentProviderError, ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { MAX_ERROR_BODY_BYTES } from '../../src/providers/shared/capped-error-body'
import { MAX_EVENT_STREAM_BODY_BYTES, readEventStream } from '../../src/providers/shared/event-stream'
import { sseFrame } from '../support/sse'

// What a model server sends is bounded on every path: a stream that never ends fails its turn at
// MAX_EVENT_STREAM_BODY_BYTES, and an error answer whose body never ends is cut at MAX_ERROR_BODY_BYTES before the
// SDK reads it. Before, both grew the process until it died (a heap out-of-memory after about 40 s for the
// stream, gigabytes of buffers within a minute for the error body).

const MiB = 1024 * 1024
const encoder = new TextEncoder()

/**
 * A server on 127.0.0.1 that answers every request with `status`, `head` and then `piece` again and again until
 * the client goes away, counting what it wrote.
 */
async function startFloodServer(status: number, contentType: string, head: string, piece: string) {
  const state = { requests: 0, written: 0, closed: 0 }
  const chunk = Buffer.from(piece)
  const server = createServer((request, response: ServerResponse) => {
    request.resume()
    state.requests += 1
    response.writeHead(status, { 'content-type': contentType })
    response.write(head)
    const pump = () => {
      while (!response.destroyed) {
        state.written += chunk.length
        if (!response.write(chunk))
          return
      }
    }
    response.on('drain', pump)
    response.on('close', () => {
      state.closed += 1
    })
    pump()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    state,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

let closeServer: (() => Promise<void>) | undefined
afterEach(async () => {
  await closeServer?.()
  closeServer = undefined
})

async function flood(status: number, contentType: string, head: string, piece: string) {
  const server = await startFloodServer(status, contentType, head, piece)
  closeServer = server.close
  return server
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  }
  catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

/** An Anthropic turn that opens a text block and then streams `deltaChars`-long text deltas for ever. */
function endlessAnthropicText(deltaChars: number) {
  const head = sseFrame({ event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 3, output_tokens: 1 } } } })
    + sseFrame({ event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } })
  const piece = sseFrame({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'y'.repeat(deltaChars) } } })
  return { head, piece }
}

const noRetry = { retry: { maxAttempts: 1 } }

describe('a stream that never ends', () => {
  it('the event-stream reader fails at the body cap, counting bytes, without reading further', async () => {
    const message = encoder.encode('event: ping\ndata: {}\n\n')
    let reads = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        reads += 1
        controller.enqueue(message)
      },
    })
    let messages = 0
    const error = await rejectionOf(readEventStream(endless, () => {
      messages += 1
    }, { provider: 'test', maxBodyBytes: 100 * message.length }))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: false, provider: 'test' })
    expect(error.message).toMatch(/^test streamed a response body longer than [\d.]+ MiB; the response was not read further$/)
    expect(messages).toBe(100)
    expect(reads).toBeLessThanOrEqual(102)
  })

  it('a body of exactly the cap is read whole', async () => {
    const message = encoder.encode('data: {}\n\n')
    let left = 10
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left-- === 0)
          controller.close()
        else
          controller.enqueue(message)
      },
    })
    let messages = 0
    await readEventStream(body, () => {
      messages += 1
    }, { maxBodyBytes: 10 * message.length })
    expect(messages).toBe(10)
  })

  it('an Anthropic turn ends with a typed error at 256 MiB and the process keeps its memory', async () => {
    const { head, piece } = endlessAnthropicText(MiB)
    const server = await flood(200, 'text/event-stream', head, piece)
    const texts: number[] = []
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'k' }), behavior: noRetry })
    agent.hooks.hook('stream:text', (ctx) => {
      texts.push(ctx.delta.length)
    })
    const error = await rejectionOf(agent.run({ prompt: 'hi' }))
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error.message).toContain('anthropic streamed a response body longer than 256 MiB')
    expect((error as AgentProviderError).cause).toMatchObject({ kind: 'server', retryable: false })
    expect(server.state.requests).toBe(1)
    // Everything before the cap reached the host; nothing much past it was sent.
    expect(texts.length).toBeGreaterThan(200)
    expect(server.state.written).toBeLessThan(MAX_EVENT_STREAM_BODY_BYTES + 32 * MiB)
    await expect.poll(() => server.state.closed).toBe(1)
  }, 60_000)

  it('an Anthropic decision reads its stream under the same cap', async () => {
    const head = sseFrame({ event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 3, output_tokens: 1 } } } })
      + sseFrame({ event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'record_answers', input: {} } } })
    const piece = sseFrame({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: ' '.repeat(MiB) } } })
    const server = await flood(200, 'text/event-stream', head, piece)
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'k' }) })
    // 256 MiB takes a few seconds to read on a loaded machine: past the decision's default 5 s, it would end as a timeout.
    const outcome = await agent.decide({ input: 'rm -rf /', questions: { safe: { kind: 'predicate', question: 'Is it safe?' } }, timeoutMs: 50_000 })
    expect(outcome.ok).toBe(false)
    expect(JSON.stringify(outcome)).toContain('longer than 256 MiB')
    expect(server.state.written).toBeLessThan(MAX_EVENT_STREAM_BODY_BYTES + 32 * MiB)
  }, 60_000)

  it('a Chat Completions turn ends the same way', async () => {
    const piece = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta: { content: 'y'.repeat(MiB) }, finish_reason: null }] })}\n\n`
    const server = await flood(200, 'text/event-stream', '', piece)
    const agent = createAgent({ provider: openai({ baseURL: `${server.url}/v1`, apiKey: 'k', api: 'chat' }), behavior: noRetry })
    const error = await rejectionOf(agent.run({ prompt: 'hi' }))
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error.message).toContain('streamed a response body longer than 256 MiB')
    expect(server.state.written).toBeLessThan(MAX_EVENT_STREAM_BODY_BYTES + 32 * MiB)
  }, 60_000)
})

describe('an error answer whose body never ends', () => {
  const providers: [string, (url: string) => Provider][] = [
    ['anthropic', url => anthropic({ baseURL: url, apiKey: 'k' })],
    ['openai chat', url => openai({ baseURL: `${url}/v1`, apiKey: 'k', api: 'chat' })],
    ['openai responses', url => openai({ baseURL: `${url}/v1`, apiKey: 'k', api: 'responses' })],
  ]

  for (const [name, provider] of providers) {
    for (const status of [500, 400]) {
      it(`${name}, ${status}: the SDK gets the first 256 KiB and a note, and the rest is never read`, async () => {
        const server = await flood(status, status === 500 ? 'text/html' : 'application/json', '{"error":{"message":"', 'z'.repeat(MiB))
        const agent = createAgent({ provider: provider(server.url), behavior: noRetry })
        const error = await rejectionOf(agent.run({ prompt: 'hi' }))
        expect(error).toBeInstanceOf(AgentProviderError)
        expect(error.message).toContain(String(status))
        expect(error.message).toContain('[the error body was cut here, at 256 KiB; the rest was not read]')
        expect(error.message.length).toBeLessThan(MAX_ERROR_BODY_BYTES + 1024)
        expect(server.state.requests).toBe(1)
        expect(server.state.written).toBeLessThan(64 * MiB)
        await expect.poll(() => server.state.closed).toBe(1)
      }, 30_000)
    }
  }

  it('a short error body reaches the SDK whole, so its error still reads the API\'s message', async () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } })
    const server = createServer((request, response) => {
      request.resume()
      response.writeHead(400, { 'content-type': 'application/json', 'request-id': 'req_1' })
      response.end(body)
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    closeServer = () => new Promise<void>(resolve => server.close(() => resolve()))
    const agent = createAgent({ provider: anthropic({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' }), behavior: noRetry })
    const error = await rejectionOf(agent.run({ prompt: 'hi' }))
    expect(error.message).toContain('max_tokens: too large')
    expect(error.message).not.toContain('cut here')
    expect((error as AgentProviderError).cause).toMatchObject({ status: 400, retryable: false })
  })
})
