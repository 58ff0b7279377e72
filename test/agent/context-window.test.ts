import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { scriptedProvider } from '../../src/testing'

// Which window a run measures against, seen through what auto-compaction does.

const echo = tool({ name: 'echo', description: 'Echo', input: z.object({ text: z.string() }), execute: ({ text }) => text })

/** Two tool turns, the second filling 90% of a 1000-token window, a summary, then the answer. */
function script(): ScriptedTurn[] {
  return [
    { toolCalls: [{ name: 'echo', input: { text: 'a' } }], usage: { input: 100 } },
    { toolCalls: [{ name: 'echo', input: { text: 'b' } }], usage: { input: 900 } },
    { text: 'SUMMARY of a and b' },
    { text: 'done' },
  ]
}

async function compactions(model: string | undefined, contextWindow: number | undefined): Promise<string[]> {
  const provider = scriptedProvider(script(), { defaultModel: 'house-model', ...(contextWindow === undefined ? {} : { contextWindow }) })
  const agent = createAgent({ provider, tools: { echo }, behavior: { autoCompact: { keepTurns: 2, restore: false } } })
  const events: string[] = []
  agent.hooks.hook('compact:start', ctx => void events.push(`${ctx.trigger} ${ctx.inputTokens}/${ctx.contextWindow}`))
  await agent.run({ prompt: 'go', ...(model === undefined ? {} : { model }) }).catch(() => {})
  return events
}

describe('the context window of a run', () => {
  it('is the provider\'s for its default model', async () => {
    expect(await compactions(undefined, 1000)).toEqual(['threshold 900/1000'])
  })

  it('is the provider\'s for another model the catalog does not know, so auto-compaction still runs', async () => {
    expect(await compactions('another-model', 1000)).toEqual(['threshold 900/1000'])
  })

  it('is unknown when neither the catalog nor the provider knows one: auto-compaction stays off', async () => {
    expect(await compactions('another-model', undefined)).toEqual([])
  })
})
