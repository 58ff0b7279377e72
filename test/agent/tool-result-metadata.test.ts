import type { ToolResultBlock } from '../../src/core/content'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'

// `ToolResultMetadata`: what transform hooks attach to a result about the
// result, kept with it for hosts and never sent to the model.

const long = tool({ name: 'long', description: 'A long text', input: z.object({}), execute: () => 'x'.repeat(500) })

/** A transform hook that truncates and says so in the metadata. */
function truncating(ctx: { result: unknown, metadata: Record<string, unknown> }): void {
  if (typeof ctx.result === 'string' && ctx.result.length > 100) {
    ctx.metadata.truncatedFrom = ctx.result.length
    ctx.result = ctx.result.slice(0, 100)
  }
}

function recordedResults(turns: readonly { content: readonly { type: string }[] }[]): ToolResultBlock[] {
  return turns.flatMap(turn => turn.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'))
}

describe('tool result metadata', () => {
  it('is set by tool:transform, recorded on the result in the session, and shown to tool:after', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'long', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const after: unknown[] = []
    const agent = createAgent({ provider, session, tools: { long }, hooks: { 'tool:transform': truncating, 'tool:after': ctx => void after.push(ctx.metadata) } })
    await agent.run({ prompt: 'go' })
    expect(after).toEqual([{ truncatedFrom: 500 }])
    const [result] = recordedResults(session.turns)
    expect(result).toMatchObject({ output: 'x'.repeat(100), metadata: { truncatedFrom: 500 } })
  })

  it('is left off when no hook attached anything, and a replaced object that is not a plain object is dropped', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'long', input: {} }] }, { toolCalls: [{ name: 'long', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    let calls = 0
    const agent = createAgent({
      provider,
      session,
      tools: { long },
      hooks: { 'tool:transform': (ctx) => {
        if (calls++ === 1)
          ctx.metadata = ['not', 'an', 'object'] as never
      } },
    })
    await agent.run({ prompt: 'go' })
    expect(recordedResults(session.turns).map(block => 'metadata' in block)).toEqual([false, false])
  })

  describe('against the fake Anthropic server', () => {
    let fake: FakeAnthropic
    beforeEach(async () => {
      fake = await startFakeAnthropic()
    })
    afterEach(async () => {
      await fake.close()
    })

    it('never reaches the request the model reads', async () => {
      fake.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'long', input: {} }], usage: { input_tokens: 10, output_tokens: 1 } } },
        { type: 'turn', turn: { text: 'done', usage: { input_tokens: 10, output_tokens: 1 } } },
      )
      const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
      const agent = createAgent({ provider, tools: { long }, hooks: { 'tool:transform': truncating } })
      await agent.run({ prompt: 'go' })
      const sent = JSON.stringify(fake.requests[1].body)
      expect(sent).toContain('x'.repeat(100))
      expect(sent).not.toContain('truncatedFrom')
      expect(sent).not.toContain('metadata')
    })
  })
})
