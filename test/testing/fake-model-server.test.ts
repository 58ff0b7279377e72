import type { FakeModelRequest, FakeModelServer } from '../../src/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentProviderError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { startFakeModelServer } from '../../src/testing'

// The fake model server from `zidane/testing`, driven through the real
// provider clients: whatever they send and parse is the live wire.

const add = tool({
  name: 'add',
  description: 'Add two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  isConcurrencySafe: true,
  execute: ({ a, b }) => String(a + b),
})

/** The script both wires play: a call to `add`, then an answer built from what the tool returned. */
function addScript() {
  return [
    { text: 'Adding.', toolCalls: [{ name: 'add', input: { a: 2, b: 40 } }], usage: { inputTokens: 30, outputTokens: 7 } },
    (request: FakeModelRequest) => ({ text: ['The sum is ', `${request.toolResults[0]}.`] }),
  ]
}

let server: FakeModelServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('startFakeModelServer', () => {
  it('plays a tool call and an answer over the Anthropic wire to anthropic()', async () => {
    server = await startFakeModelServer({ script: addScript() })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake-key' }), tools: { add } })
    const deltas: string[] = []
    agent.hooks.hook('stream:text', ({ delta }) => void deltas.push(delta))

    const stats = await agent.run({ prompt: 'What is 2 + 40?' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('The sum is 42.')
    expect(deltas).toEqual(['Adding.', 'The sum is ', '42.'])
    expect(stats.turns).toBe(2)
    expect(stats.turnUsage?.[0]).toMatchObject({ input: 30, output: 7 })
    expect(server.requests.map(r => r.wire)).toEqual(['anthropic', 'anthropic'])
    expect(Object.values(server.requests[0].headers).some(value => value.includes('fake-key'))).toBe(true)
    expect(server.requests[1].toolResults).toEqual(['42'])
    expect(server.remaining).toBe(0)
  })

  it('plays the same script over Chat Completions to openai() and openaiCompat()', async () => {
    for (const make of [
      (url: string) => openai({ baseURL: url, apiKey: 'fake-key' }),
      (url: string) => openaiCompat({ baseURL: url, defaultModel: 'local-model' }),
    ]) {
      server = await startFakeModelServer({ script: addScript() })
      const stats = await createAgent({ provider: make(server.openaiURL), tools: { add } }).run({ prompt: 'What is 2 + 40?' })
      expect(stats.text).toBe('The sum is 42.')
      expect(stats.turnUsage?.[0]).toMatchObject({ input: 30, output: 7 })
      expect(server.requests.map(r => r.wire)).toEqual(['openai-chat', 'openai-chat'])
      expect(server.requests[1].toolResults).toEqual(['42'])
      await server.close()
    }
  })

  it('streams thinking to the stream:thinking hook', async () => {
    server = await startFakeModelServer({ script: [{ thinking: 'Two plus two.', text: '4' }] })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake-key' }) })
    const thoughts: string[] = []
    agent.hooks.hook('stream:thinking', ({ delta }) => void thoughts.push(delta))
    const stats = await agent.run({ prompt: '2 + 2?', thinking: 'low' })
    expect(stats.text).toBe('4')
    expect(thoughts.join('')).toBe('Two plus two.')
  })

  it('answers a request past the end of the script with an error the run reports', async () => {
    server = await startFakeModelServer({ script: [] })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake-key' }) })
    const error = await agent.run({ prompt: 'Hello' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(String((error as Error).message)).toContain('no scripted turn left')
    expect(server.requests).toHaveLength(1)
  })

  it('closes with await using, dropping open connections', async () => {
    let url = ''
    {
      await using scoped = await startFakeModelServer({ script: [{ text: 'late', delayMs: 60_000 }] })
      url = scoped.url
      const pending = fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
      while (scoped.requests.length === 0)
        await new Promise(resolve => setTimeout(resolve, 5))
      void pending
    }
    await expect(fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' })).rejects.toThrow()
  })
})
