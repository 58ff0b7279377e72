import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openai } from '../../src/providers/openai'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { recordCallbacks, rejectionOf, responsesOptions } from './openai-responses-fixtures'

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

describe('openai({ api: \'responses\' })', () => {
  it('streams the turn through POST /v1/responses', async () => {
    fake.enqueue({ type: 'sse', events: responsesEvents({ text: 'Hi from Responses' }) })
    const provider = openai({ api: 'responses', baseURL: fake.url, apiKey: 'test-key' })
    const result = await provider.stream(responsesOptions(), recordCallbacks().callbacks)

    expect(result.content).toEqual([{ type: 'text', text: 'Hi from Responses' }])
    expect(fake.requests.map(request => request.path)).toEqual(['/v1/responses'])
    expect(fake.requests[0].headers.authorization).toBe('Bearer test-key')
    expect(fake.requests[0].body).toMatchObject({ store: false, stream: true, include: ['reasoning.encrypted_content'] })
  })

  it('leaves retries to the agent loop: one failed request, one attempt', async () => {
    fake.enqueue({ type: 'error', status: 503 })
    const provider = openai({ api: 'responses', baseURL: fake.url, apiKey: 'test-key' })
    const error = await rejectionOf(provider.stream(responsesOptions(), recordCallbacks().callbacks))
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 503, provider: 'openai' })
    expect(fake.requests).toHaveLength(1)
  })
})
