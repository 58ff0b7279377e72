import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, describe, expect, it } from 'vitest'
import { openai } from '../../src/providers/openai'
import { chatSse, startFakeOpenAI } from '../support/fake-openai'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

let fake: FakeOpenAI | undefined

afterEach(async () => {
  await fake?.close()
  fake = undefined
})

function provider(server: FakeOpenAI) {
  return openai({ baseURL: server.url, apiKey: 'test-key' })
}

async function post(server: FakeOpenAI, path: string, body: unknown): Promise<{ status: number, type: string | null, text: string }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
}

describe('the fake OpenAI server', () => {
  it('reports a base URL ending in /v1 and answers 500 with a clear message once the queue is empty', async () => {
    fake = await startFakeOpenAI()
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    fake.enqueue({ type: 'turn', turn: { text: 'one' } })
    expect(fake.pending()).toBe(1)
    await provider(fake).stream(chatOptions(), recordCallbacks().callbacks)
    expect(fake.pending()).toBe(0)

    const error = await rejectionOf(provider(fake).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error.status).toBe(500)
    expect(error.message).toContain('no scripted response left')
  })

  it('asks the fallback once the queue is empty, and echoes the requested model in its chunks', async () => {
    const seen: string[] = []
    fake = await startFakeOpenAI({
      fallback: (request) => {
        seen.push(request.body.model)
        return { type: 'turn', turn: { text: 'from fallback' } }
      },
    })
    await provider(fake).stream(chatOptions({ model: 'o3' }), recordCallbacks().callbacks)
    expect(seen).toEqual(['o3'])
    const sse = await post(fake, '/chat/completions', { model: 'gpt-x' })
    expect(sse.text).toContain('"model":"gpt-x"')
  })

  it('closes even with stalled connections open, failing the requests that were waiting', async () => {
    fake = await startFakeOpenAI()
    fake.enqueue({ type: 'stall-before-headers' }, { type: 'stall-after', turn: { text: 'x' }, chunks: 1 })
    const waiting = [
      rejectionOf(provider(fake).stream(chatOptions(), recordCallbacks().callbacks)),
      rejectionOf(provider(fake).stream(chatOptions(), recordCallbacks().callbacks)),
    ]
    while (fake.requests.length < 2)
      await new Promise(resolve => setImmediate(resolve))

    await fake.close()
    const errors = await Promise.all(waiting)
    expect(errors.map(error => error.kind)).toEqual(['network', 'network'])
    expect(errors.every(error => error.retryable)).toBe(true)
  })

  it('answers /v1/responses with raw SSE frames, event lines included', async () => {
    fake = await startFakeOpenAI()
    fake.enqueue({ type: 'sse', events: [{ event: 'response.created', data: { type: 'response.created' } }, { data: '[DONE]' }] })
    const response = await post(fake, '/responses', { model: 'gpt-5.2', stream: true })
    expect(response.status).toBe(200)
    expect(response.type).toBe('text/event-stream')
    expect(response.text).toBe('event: response.created\ndata: {"type":"response.created"}\n\ndata: [DONE]\n\n')
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/responses', body: { model: 'gpt-5.2' } })
  })

  it('refuses a Chat Completions script on the Responses route, and unknown routes', async () => {
    fake = await startFakeOpenAI()
    fake.enqueue({ type: 'turn', turn: { text: 'x' } })
    expect((await post(fake, '/responses', {})).status).toBe(500)
    expect((await post(fake, '/embeddings', {})).status).toBe(404)
  })

  it('writes data-only frames, one delta per text piece, several per tool call, then [DONE]', () => {
    const frames = chatSse({ text: ['a', 'b'], toolCalls: [{ id: 'call_1', name: 'x', input: { long: 'enough to split' } }] }).trim().split('\n\n')
    expect(frames.every(frame => frame.startsWith('data: '))).toBe(true)
    expect(frames.filter(frame => frame.includes('"content":"a"') || frame.includes('"content":"b"'))).toHaveLength(2)
    expect(frames.filter(frame => frame.includes('"arguments"')).length).toBeGreaterThan(2)
    expect(frames.at(-1)).toBe('data: [DONE]')
    expect(chatSse({ text: 'x', done: false })).not.toContain('[DONE]')
  })
})
