import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { openai } from '../../src/providers/openai'
import { openrouter } from '../../src/providers/openrouter'
import { startFakeOpenAI } from '../support/fake-openai'
import { lookupTool } from '../support/lookup-tool'

/**
 * Chat Completions providers write each request's JSON themselves, each
 * message's piece remembered from turn to turn (`src/providers/shared/body-json.ts`),
 * and hand the `openai` client the finished bytes. What reaches the server
 * must be what the client would have sent for the body object: `JSON.stringify`
 * output, declared as JSON, with the client's own headers; and each request
 * must repeat the previous one's messages byte for byte.
 */

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

const lookup = lookupTool

function script(): void {
  fake.enqueue(
    { type: 'turn', turn: { text: 'Looking.', toolCalls: [{ id: 'call_1', name: 'lookup', input: { word: 'caf\u00E9' } }] } },
    { type: 'turn', turn: { toolCalls: [{ id: 'call_2', name: 'lookup', input: { word: 'line\nbreak' } }, { id: 'call_3', name: 'lookup', input: { word: '\u2028' } }] } },
    { type: 'turn', turn: { text: 'Done.' } },
  )
}

function withoutBreakpoints(raw: string): string {
  return JSON.stringify(JSON.parse(raw), (key, value) => key === 'cache_control' ? undefined : value)
}

function expectJsonGrowingByTurn(): void {
  expect(fake.requests).toHaveLength(3)
  for (const request of fake.requests) {
    expect(request.path).toBe('/v1/chat/completions')
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.headers.authorization).toBe('Bearer test-key')
    expect(JSON.stringify(JSON.parse(request.raw))).toBe(request.raw)
    expect(request.body.stream).toBe(true)
    expect(request.body.stream_options).toEqual({ include_usage: true })
  }
  for (let i = 1; i < fake.requests.length; i++) {
    const before = JSON.parse(withoutBreakpoints(fake.requests[i - 1].raw)).messages as unknown[]
    const after = JSON.parse(withoutBreakpoints(fake.requests[i].raw)).messages as unknown[]
    expect(after.slice(0, before.length).map(message => JSON.stringify(message))).toEqual(before.map(message => JSON.stringify(message)))
    expect(after.length).toBeGreaterThan(before.length)
  }
}

describe('the bytes of a Chat Completions request', () => {
  it('are JSON.stringify output of the body, sent as JSON with the client\'s credentials, and grow by what each turn added', async () => {
    script()
    const agent = createAgent({ provider: openai({ baseURL: fake.url, apiKey: 'test-key', defaultModel: 'gpt-5.2' }), tools: { lookup }, system: 'Be brief.' })
    const stats = await agent.run({ prompt: 'Look up three words.' })
    expect(stats.stopReason).toBe('completed')
    expectJsonGrowingByTurn()
    // A lone surrogate in a tool's output is made well-formed before the wire: never broken UTF-8 in the body.
    expect(fake.requests[1].raw).toContain('back \uFFFD')
  })

  it('stay JSON with a moving cache breakpoint (OpenRouter with an Anthropic model)', async () => {
    script()
    const agent = createAgent({ provider: openrouter({ baseURL: fake.url, apiKey: 'test-key', defaultModel: 'anthropic/claude-sonnet-4.5' }), tools: { lookup }, system: 'Be brief.' })
    const stats = await agent.run({ prompt: 'Look up three words.' })
    expect(stats.stopReason).toBe('completed')
    expectJsonGrowingByTurn()
    expect(fake.requests.every(request => request.raw.includes('"cache_control"'))).toBe(true)
  })
})
