import type { Provider } from '../src'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../src'
import { cerebras } from '../src/providers/cerebras'
import { openai } from '../src/providers/openai'
import { openrouter } from '../src/providers/openrouter'

// Live checks of the OpenAI-family providers, each skipped unless its key is set.

function multiplyTool(calls: string[]) {
  return tool({
    name: 'multiply',
    description: 'Multiply two integers exactly.',
    input: z.object({ a: z.number().int(), b: z.number().int() }),
    execute: ({ a, b }) => {
      calls.push(`${a}*${b}`)
      return String(a * b)
    },
  })
}

async function toolRoundTrip(provider: Provider) {
  const calls: string[] = []
  const agent = createAgent({
    provider,
    tools: { multiply: multiplyTool(calls) },
    system: 'Use the multiply tool for every multiplication. Answer with the number only.',
    behavior: { maxTurns: 4 },
  })
  const stats = await agent.run({ prompt: 'What is 1234 * 5678?' })
  expect(stats.stopReason).toBe('completed')
  expect(calls.length).toBeGreaterThan(0)
  expect(stats.text.replace(/\D/g, '')).toContain('7006652')
  expect(stats.totalIn).toBeGreaterThan(0)
  return stats
}

describe.skipIf(!process.env.OPENAI_API_KEY)('openai (live)', () => {
  it('chat completions: tool round trip with usage', async () => {
    await toolRoundTrip(openai({ api: 'chat' }))
  }, 60_000)

  it('responses: tool round trip with reasoning replayed across turns', async () => {
    const stats = await toolRoundTrip(openai({ api: 'responses' }))
    expect(stats.turns).toBeGreaterThanOrEqual(2)
  }, 90_000)
})

describe.skipIf(!process.env.OPENROUTER_API_KEY)('openrouter (live)', () => {
  it('tool round trip with provider-reported cost', async () => {
    const stats = await toolRoundTrip(openrouter())
    expect(stats.cost).toBeGreaterThan(0)
  }, 90_000)
})

describe.skipIf(!process.env.CEREBRAS_API_KEY)('cerebras (live)', () => {
  it('tool round trip', async () => {
    await toolRoundTrip(cerebras())
  }, 60_000)
})
