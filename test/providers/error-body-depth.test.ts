/**
 * An error status whose JSON body nests tens of thousands of levels deep
 * (256 KiB, the most of an error body the SDKs read, holds 40,000). The SDKs
 * write the error object they parse with `JSON.stringify`, which overflowed
 * the stack: the turn failed with `Maximum call stack size exceeded`, kind
 * `unknown` and not retried, its status and `retry-after` lost. The body is
 * now reduced to its error's string fields before the SDK reads it.
 */

import type { Provider } from '../../src'
import type { LocalServer } from '../support/local-http'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { startLocalServer } from '../support/local-http'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

let raw: LocalServer | undefined

afterEach(async () => {
  await raw?.close()
  raw = undefined
})

const LEVELS = 40_000
const DEEP = `${'{"a":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`

const providers: [string, (url: string) => Provider][] = [
  ['anthropic', url => anthropic({ baseURL: url, apiKey: 'k' })],
  ['openai chat', url => openai({ baseURL: `${url}v1`, apiKey: 'k', api: 'chat' })],
  ['openai responses', url => openai({ baseURL: `${url}v1`, apiKey: 'k', api: 'responses' })],
]

async function serve(status: number, body: string, headers: Record<string, string> = {}): Promise<string> {
  raw = await startLocalServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(body)
  })
  return raw.url()
}

describe('an error status whose body nests 40,000 levels deep', () => {
  for (const [name, provider] of providers) {
    it(`${name}, 429 with the error's type: a rate-limit error that keeps its status and retry-after`, async () => {
      const url = await serve(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down","details":${DEEP}}}`, { 'retry-after': '7' })
      const error = await rejectionOf(provider(url).stream(streamOptions(), recordCallbacks().callbacks))
      expect(error).toBeInstanceOf(ClassifiedError)
      expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 7000 })
      expect(error.message).toContain('slow down')
    })

    it(`${name}, 500 whose error is the deep value: a retryable server error saying so`, async () => {
      const url = await serve(500, `{"error":${DEEP}}`)
      const error = await rejectionOf(provider(url).stream(streamOptions(), recordCallbacks().callbacks))
      expect(error).toBeInstanceOf(ClassifiedError)
      expect(error).toMatchObject({ kind: 'server', retryable: true, status: 500 })
      expect(error.message).toContain('nested more than 100 levels deep')
    })
  }

  it('a run retries such a 500 and goes on', async () => {
    let requests = 0
    raw = await startLocalServer((_request, response) => {
      requests++
      if (requests === 1) {
        response.writeHead(500, { 'content-type': 'application/json' })
        response.end(`{"error":${DEEP}}`)
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end([
        'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"recovered"},"finish_reason":null}]}',
        'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        'data: [DONE]',
        '',
      ].join('\n\n'))
    })
    const agent = createAgent({ provider: openai({ baseURL: `${raw.url()}v1`, apiKey: 'k', api: 'chat', defaultModel: 'gpt-5.2' }), behavior: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect([stats.stopReason, stats.text, requests]).toEqual(['completed', 'recovered', 2])
  })
})
