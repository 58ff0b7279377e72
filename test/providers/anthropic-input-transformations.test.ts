/**
 * Anthropic's `input_transformations` (the thinking-binding beta's report of
 * replayed thinking it dropped or let through unverified): the beta is sent
 * once a request replays thinking, the entries become
 * `TurnUsage.thinkingDropped` and the `provider:input-transformations` hook,
 * on the real SDK against the fake Messages server.
 */

import type { ProviderInputTransformationsContext } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { anthropicEvents } from '../support/sse'

const BETA = 'thinking-binding-controls-2026-08-01'
const note = tool({ name: 'note', description: 'Take a note.', input: z.object({ text: z.string() }), execute: async () => 'noted' })

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

/** Run a thinking agent whose first turn thinks and calls a tool; `second` answers the request that replays it. */
async function runTwoTurns(second: Parameters<FakeAnthropic['enqueue']>[0]) {
  fake.enqueue(
    { type: 'turn', turn: { thinking: { text: 'Plan: take a note.', signature: 'sig-1' }, toolCalls: [{ id: 'toolu_1', name: 'note', input: { text: 'a' } }], inputTransformations: [] } },
    second,
  )
  const seen: ProviderInputTransformationsContext[] = []
  const agent = createAgent({
    provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
    tools: { note },
    hooks: { 'provider:input-transformations': ctx => void seen.push(ctx) },
  })
  const stats = await agent.run({ prompt: 'go', thinking: 'high' })
  return { stats, seen }
}

describe('anthropic input_transformations', () => {
  it('sends the binding beta only with replayed thinking, and reports dropped blocks on usage and the hook', async () => {
    const entries = [
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
      { type: 'thinking_mismatch_allowed', path: 'messages.1.content.1', reason: 'prefix_binding_mismatch' },
    ]
    const { stats, seen } = await runTwoTurns({ type: 'turn', turn: { text: 'done', inputTransformations: entries } })

    const betas = fake.requests.map(request => (request.headers['anthropic-beta'] ?? '').split(',').includes(BETA))
    expect(betas).toEqual([false, true])
    // The replayed thinking block is what the second request carries back.
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain('"signature":"sig-1"')

    expect(stats.turnUsage!.map(usage => usage.thinkingDropped)).toEqual([undefined, 1])
    expect(seen).toHaveLength(1)
    expect(seen[0].transformations).toEqual(entries)
    expect(seen[0].thinkingDropped).toBe(1)
    expect(seen[0].provider).toBe('anthropic')
    expect(seen[0].model).toBe('claude-sonnet-4-6')
    expect(seen[0].turnId).toBeTruthy()
  })

  it('counts only thinking_dropped entries: a mismatch let through is reported but not dropped', async () => {
    const { stats, seen } = await runTwoTurns({ type: 'turn', turn: { text: 'done', inputTransformations: [{ type: 'thinking_mismatch_allowed', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' }] } })
    expect(stats.turnUsage![1].thinkingDropped).toBeUndefined()
    expect(seen.map(ctx => [ctx.thinkingDropped, ctx.transformations.length])).toEqual([[0, 1]])
  })

  it('takes the message_delta list when a server-side fallback replaced the message_start one', async () => {
    const events = anthropicEvents({ text: 'done', inputTransformations: [] }, 'msg_2', 'claude-sonnet-4-6')
    const dropped = [
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'model_binding_mismatch' },
      { type: 'thinking_dropped', path: 'messages.1.content.1', reason: 'model_binding_mismatch' },
    ]
    const withDelta = events.map(event => event.event === 'message_delta'
      ? { ...event, data: { ...(event.data as object), input_transformations: dropped } }
      : event)
    const { stats, seen } = await runTwoTurns({ type: 'sse', events: withDelta })
    expect(stats.turnUsage![1].thinkingDropped).toBe(2)
    expect(seen[0].transformations).toEqual(dropped)
  })

  it('passes unknown entry types through, skips malformed entries, and stays quiet for an empty list', async () => {
    const { stats, seen } = await runTwoTurns({ type: 'turn', turn: { text: 'done', inputTransformations: [{ type: 'connector_text_rewritten', path: 'messages.0.content.0' }, { path: 'no type' }, 'junk', null] } })
    expect(seen).toHaveLength(1)
    expect(seen[0].transformations).toEqual([{ type: 'connector_text_rewritten', path: 'messages.0.content.0' }])
    expect(stats.turnUsage!.every(usage => usage.thinkingDropped === undefined)).toBe(true)
  })
})
