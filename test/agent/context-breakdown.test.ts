/**
 * `agent.getContextBreakdown()` through the public API: during a run it
 * describes the request the provider is about to get (checked against the
 * request the provider actually received), between runs the request that
 * continuing the session would send, and every kind of content lands in its
 * own category.
 */

import type { ContextBreakdown, StreamOptions, ToolOutput } from '../../src'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { createSession } from '../../src/session/session'
import { scriptedProvider } from '../../src/testing'

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8')

const screenshot = tool({
  name: 'screenshot',
  description: 'Take a screenshot.',
  input: z.object({ label: z.string() }),
  execute: async ({ label }): Promise<ToolOutput> => [{ type: 'text', text: `captured ${label}` }, { type: 'image', data: PIXEL, mediaType: 'image/png' }],
})

describe('agent.getContextBreakdown()', () => {
  it('during a run: the request the provider receives, category by category', async () => {
    const seen: [ContextBreakdown, StreamOptions][] = []
    let agent: ReturnType<typeof createAgent>
    const look = (request: StreamOptions) => {
      seen.push([agent.getContextBreakdown(), request])
    }
    const provider = scriptedProvider([
      { respond: (request) => {
        look(request)
        return { thinking: 'Need a picture first.', text: 'Taking one.', toolCalls: [{ name: 'screenshot', input: { label: 'home' } }] }
      } },
      { respond: (request) => {
        look(request)
        return { text: 'The page is blank.' }
      } },
    ])
    agent = createAgent({ provider, tools: { screenshot }, system: 'You inspect pages.', behavior: { contextWindow: 200_000 } })
    await agent.run({ prompt: 'What does the home page show?', thinking: 'high' })

    expect(seen).toHaveLength(2)
    for (const [breakdown, request] of seen) {
      expect(breakdown.messageCount).toBe(request.messages.length)
      expect(breakdown.system.bytes).toBe(utf8(request.system))
      expect(breakdown.tools.count).toBe(request.tools.length)
      expect(breakdown.contextWindow).toBe(200_000)
    }
    const [[first], [second]] = seen
    expect(first.messages.user).toEqual({ bytes: utf8('What does the home page show?'), tokens: Math.ceil(utf8('What does the home page show?') / 4), count: 1 })
    expect(first.messages.toolResults.count).toBe(0)

    expect(second.messages.thinking.bytes).toBe(utf8('Need a picture first.'))
    expect(second.messages.assistant.bytes).toBe(utf8('Taking one.'))
    expect(second.messages.toolCalls.bytes).toBe(utf8('screenshot') + utf8(JSON.stringify({ label: 'home' })))
    expect(second.messages.toolResults.bytes).toBe(utf8('captured home'))
    expect(second.messages.media).toEqual({ bytes: PIXEL.length, tokens: 1600, count: 1 })
    const parts = Object.values(second.messages)
    expect(second.total.bytes).toBe(second.system.bytes + second.tools.bytes + parts.reduce((sum, part) => sum + part.bytes, 0))
    expect(second.total.tokens).toBe(second.system.tokens + second.tools.tokens + parts.reduce((sum, part) => sum + part.tokens, 0))
    expect(second.total.bytes).toBeGreaterThan(first.total.bytes)
  })

  it('between runs: what continuing the session would send, queued loop messages counted as injected', async () => {
    const session = await createSession()
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'screenshot', input: { label: 'a' } }] },
      { toolCalls: [{ name: 'screenshot', input: { label: 'b' } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { screenshot }, session, behavior: { maxTurnsWarning: 2, maxTurns: 4 } })
    const empty = agent.getContextBreakdown()
    expect(empty.messageCount).toBe(0)
    expect(empty.tools.count).toBe(1)
    expect(empty.system.bytes).toBeGreaterThan(0)

    await agent.run({ prompt: 'look' })
    const after = agent.getContextBreakdown()
    // The next run sends the whole session, then its own prompt.
    provider.push({ text: 'still done' })
    await agent.run({ prompt: 'and now?' })
    const next = provider.requests.at(-1)!
    expect(after.messageCount).toBe(next.messages.length - 1)
    expect(after.messages.injected.count).toBe(1)
    expect(after.messages.injected.bytes).toBeGreaterThan(0)
    expect(after.messages.toolResults.bytes).toBe(utf8('captured a') + utf8('captured b'))
    expect(after.messages.media.count).toBe(2)
    expect(after.messages.user.bytes).toBe(utf8('look'))
  })

  it('between runs: planned as the run plans, so the policies\' tools count', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    const provider = scriptedProvider([{ toolCalls: [{ name: 'final_answer', input: { city: 'Oslo' } }] }])
    const agent = createAgent({ provider, tools: { screenshot }, behavior: { schema } })
    const idle = agent.getContextBreakdown()
    await agent.run({ prompt: 'Which city?' })
    const sent = provider.requests[0]
    expect(sent.tools.map(spec => spec.name)).toEqual(['screenshot', 'final_answer'])
    expect(idle.tools.count).toBe(2)
    expect(idle.tools.bytes).toBe(sent.tools.reduce((sum, spec) => sum + utf8(JSON.stringify({ name: spec.name, description: spec.description, input_schema: spec.inputSchema })), 0))
  })

  it('is zero everywhere but the system prompt for an agent with nothing yet', () => {
    const agent = createAgent({ provider: scriptedProvider([]), system: 'abcd' })
    const breakdown = agent.getContextBreakdown()
    expect(breakdown.system).toEqual({ bytes: 4, tokens: 1 })
    expect(breakdown.tools).toEqual({ bytes: 0, tokens: 0, count: 0 })
    expect(Object.keys(breakdown.messages).sort()).toEqual(['assistant', 'injected', 'media', 'summaries', 'thinking', 'toolCalls', 'toolResults', 'user'])
    expect(breakdown.total).toEqual({ bytes: 4, tokens: 1 })
  })
})
