import type { ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'

/**
 * The provider writes each request's JSON itself, remembering each message's
 * piece from turn to turn (`src/providers/shared/body-json.ts`), and hands the
 * SDK the finished text. What reaches the server must be what the SDK would
 * have sent for the body object: `JSON.stringify` output (so parsing and
 * writing it again gives the same bytes), declared as JSON, with `stream`
 * last; and each request must repeat the previous one's messages byte for
 * byte, bar the moving cache breakpoint.
 */

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const lookup: ToolDef = {
  spec: { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } },
  execute: input => `the word ${String(input.word)}: \u00E9t\u00E9 \u{1F600} "quoted" \\ back`,
}

function withoutBreakpoints(raw: string): string {
  return JSON.stringify(JSON.parse(raw), (key, value) => key === 'cache_control' || key === 'stream' ? undefined : value)
}

describe('the bytes of an Anthropic request', () => {
  it('are JSON.stringify output of the body, sent as JSON, and grow by what each turn added', async () => {
    fake.enqueue(
      { type: 'turn', turn: { text: 'Looking.', toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { word: 'caf\u00E9' } }] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_2', name: 'lookup', input: { word: 'line\nbreak' } }, { id: 'toolu_3', name: 'lookup', input: { word: '\u2028' } }] } },
      { type: 'turn', turn: { text: 'Done.' } },
    )
    const agent = createAgent({ provider: anthropic({ baseURL: fake.url, apiKey: 'test-key' }), tools: { lookup }, system: 'Be brief.' })
    const stats = await agent.run({ prompt: 'Look up three words.' })
    expect(stats.stopReason).toBe('completed')
    expect(fake.requests).toHaveLength(3)

    for (const request of fake.requests) {
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['x-stainless-helper']).toBeUndefined()
      expect(JSON.stringify(JSON.parse(request.raw))).toBe(request.raw)
      expect(Object.keys(request.body).at(-1)).toBe('stream')
      expect(request.body.stream).toBe(true)
    }
    // Each request's messages, breakpoints aside, start with every message the one before sent.
    for (let i = 1; i < fake.requests.length; i++) {
      const before = JSON.parse(withoutBreakpoints(fake.requests[i - 1].raw)).messages as unknown[]
      const after = JSON.parse(withoutBreakpoints(fake.requests[i].raw)).messages as unknown[]
      expect(after.slice(0, before.length).map(message => JSON.stringify(message))).toEqual(before.map(message => JSON.stringify(message)))
      expect(after.length).toBeGreaterThan(before.length)
    }
  })
})
