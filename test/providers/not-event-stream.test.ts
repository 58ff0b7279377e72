/**
 * A success status whose body is not an event stream: a login page, the JSON
 * of a server that ignored `stream: true`, a proxy's error page sent with
 * status 200. Each wire fails the turn with a `server` error quoting the
 * body's start. Before, it read as a stream cut off before its first event
 * (a `network` error saying the stream ended before `message_stop` or a
 * `finish_reason`), which pointed at the connection instead of the answer.
 * A body that is an event stream cut short keeps that error.
 */

import type { Provider } from '../../src'
import type { LocalServer } from '../support/local-http'
import { afterEach, describe, expect, it } from 'vitest'
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

const providers: [string, (url: string) => Provider][] = [
  ['anthropic', url => anthropic({ baseURL: url, apiKey: 'k' })],
  ['openai chat', url => openai({ baseURL: `${url}v1`, apiKey: 'k', api: 'chat' })],
  ['openai responses', url => openai({ baseURL: `${url}v1`, apiKey: 'k', api: 'responses' })],
]

async function streamBody(provider: (url: string) => Provider, contentType: string, body: string) {
  raw = await startLocalServer((_request, response) => {
    response.writeHead(200, { 'content-type': contentType })
    response.end(body)
  })
  return rejectionOf(provider(raw.url()).stream(streamOptions(), recordCallbacks().callbacks))
}

describe('a 200 whose body is not an event stream', () => {
  for (const [name, provider] of providers) {
    it(`${name}: an HTML page is a server error quoting its start`, async () => {
      const error = await streamBody(provider, 'text/html', '<!doctype html>\n<html><body>Please log in to the portal</body></html>\n\n')
      expect(error).toBeInstanceOf(ClassifiedError)
      expect(error).toMatchObject({ kind: 'server', retryable: true })
      expect(error.message).toContain('answered with a body that is not an event stream: <!doctype html>\n<html><body>Please log in')
    })

    it(`${name}: a JSON answer of megabytes is quoted at 120 characters`, async () => {
      const error = await streamBody(provider, 'application/json', JSON.stringify({ id: 'x', choices: [{ message: { content: 'y'.repeat(5_000_000) } }] }))
      expect(error).toBeInstanceOf(ClassifiedError)
      expect(error.message).toMatch(/not an event stream: \{"id":"x","choices":\[\{"message":\{"content":"y+…$/)
      expect(error.message.length).toBeLessThan(250)
    })

    it(`${name}: an event stream cut inside its first line is still a stream cut off`, async () => {
      for (const body of ['data: {"type":"mess', 'eve', ': keep-alive\n', '\n\n']) {
        const error = await streamBody(provider, 'text/event-stream', body)
        expect(error).toBeInstanceOf(ClassifiedError)
        expect(error).toMatchObject({ kind: 'network', retryable: true })
        await raw?.close()
        raw = undefined
      }
    })
  }
})
