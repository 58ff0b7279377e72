import type { AddressInfo } from 'node:net'
import type { Provider } from '../../src/providers/types'
import { createServer } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentProviderError, ClassifiedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { cerebras } from '../../src/providers/cerebras'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { openrouter } from '../../src/providers/openrouter'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'

// Every provider pointed at a port on 127.0.0.1 where nothing listens: the
// SDK's bare `Connection error.` must come out naming the provider and the URL.

/** A port that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => server.close(() => resolve()))
  return port
}

let root: string

beforeAll(async () => {
  root = `http://127.0.0.1:${await closedPort()}`
})

const cases: [string, () => Provider, string, string][] = [
  ['anthropic', () => anthropic({ baseURL: root, apiKey: 'k' }), 'anthropic', '/v1/messages'],
  ['openai (chat)', () => openai({ baseURL: `${root}/v1`, apiKey: 'k' }), 'openai', '/v1/chat/completions'],
  ['openai (responses)', () => openai({ baseURL: `${root}/v1`, apiKey: 'k', api: 'responses' }), 'openai', '/v1/responses'],
  ['openaiCompat', () => openaiCompat({ baseURL: `${root}/v1/`, defaultModel: 'm', name: 'local-vllm' }), 'local-vllm', '/v1/chat/completions'],
  ['openrouter', () => openrouter({ baseURL: `${root}/api/v1`, apiKey: 'k' }), 'openrouter', '/api/v1/chat/completions'],
  ['cerebras', () => cerebras({ baseURL: `${root}/v1`, apiKey: 'k' }), 'cerebras', '/v1/chat/completions'],
]

describe('a server that is not listening', () => {
  it.each(cases)('%s: the classified error names the provider and the URL, and says what the socket said', async (_, make, name, path) => {
    const error = await rejectionOf(make().stream(chatOptions({ model: 'm' }), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: name, url: `${root}${path}` })
    expect(error.message).toContain(name)
    expect(error.message).toContain(`${root}${path}`)
    expect(error.message).toContain('ECONNREFUSED')
  })

  it.each(cases)('%s: the run ends with AgentProviderError carrying both, in its message and as fields', async (_, make, name, path) => {
    const agent = createAgent({ provider: make(), behavior: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2 } } })
    const error = await agent.run({ prompt: 'hi', model: 'm' }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'network', provider: name, url: `${root}${path}`, attempts: 2 })
    expect((error as Error).message).toContain(name)
    expect((error as Error).message).toContain(`${root}${path}`)
  })

  it('keeps credentials and the query string out of the URL it reports', async () => {
    const provider = openaiCompat({ baseURL: `http://user:secret@127.0.0.1:${new URL(root).port}/v1?key=secret`, defaultModel: 'm' })
    const error = await rejectionOf(provider.stream(chatOptions({ model: 'm' }), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.message).not.toContain('secret')
    expect(error.url).not.toContain('secret')
  })
})
