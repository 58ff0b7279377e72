import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, describe, expect, it } from 'vitest'
import { anthropic } from '../../src/providers/anthropic'
import { anthropicSse, startFakeAnthropic } from '../support/fake-anthropic'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

let fake: FakeAnthropic | undefined

afterEach(async () => {
  await fake?.close()
  fake = undefined
})

function provider(server: FakeAnthropic) {
  return anthropic({ baseURL: server.url, apiKey: 'test-key' })
}

describe('the fake Anthropic server', () => {
  it('answers 500 with a clear message once the queue is empty', async () => {
    fake = await startFakeAnthropic()
    fake.enqueue({ type: 'turn', turn: { text: 'one' } })
    expect(fake.pending()).toBe(1)
    await provider(fake).stream(streamOptions(), recordCallbacks().callbacks)
    expect(fake.pending()).toBe(0)

    const error = await rejectionOf(provider(fake).stream(streamOptions(), recordCallbacks().callbacks))
    expect(error.status).toBe(500)
    expect(error.message).toContain('no scripted response left')
  })

  it('asks the fallback once the queue is empty, and echoes the requested model', async () => {
    const seen: string[] = []
    fake = await startFakeAnthropic({
      fallback: (request) => {
        seen.push(request.body.model)
        return { type: 'turn', turn: { text: 'from fallback' } }
      },
    })
    const result = await provider(fake).stream(streamOptions({ model: 'claude-opus-4-8' }), recordCallbacks().callbacks)
    expect(seen).toEqual(['claude-opus-4-8'])
    expect(result.content).toEqual([{ type: 'text', text: 'from fallback' }])
    expect(result.usage.modelId).toBe('claude-opus-4-8')
  })

  it('closes even with stalled connections open, failing the requests that were waiting', async () => {
    fake = await startFakeAnthropic()
    fake.enqueue({ type: 'stall-before-headers' }, { type: 'stall-after', turn: { text: 'x' }, events: 1 })
    const waiting = [
      rejectionOf(provider(fake).stream(streamOptions(), recordCallbacks().callbacks)),
      rejectionOf(provider(fake).stream(streamOptions(), recordCallbacks().callbacks)),
    ]
    while (fake.requests.length < 2)
      await new Promise(resolve => setImmediate(resolve))

    await fake.close()
    const errors = await Promise.all(waiting)
    expect(errors.map(error => error.kind)).toEqual(['network', 'network'])
    expect(errors.every(error => error.retryable)).toBe(true)
  })

  it('writes frames with event lines, one delta per text piece and several per tool call', () => {
    const body = anthropicSse({ text: ['a', 'b'], toolCalls: [{ id: 'toolu_1', name: 'x', input: { long: 'enough to split' } }] })
    const frames = body.trim().split('\n\n')
    expect(frames.every(frame => frame.startsWith('event: ') && frame.includes('\ndata: '))).toBe(true)
    expect(frames.filter(frame => frame.includes('"text_delta"'))).toHaveLength(2)
    expect(frames.filter(frame => frame.includes('"input_json_delta"')).length).toBeGreaterThan(1)
    expect(frames.at(-1)).toContain('message_stop')
  })
})
