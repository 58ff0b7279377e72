import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../src'
import { anthropic } from '../src/providers/anthropic'

const hasKey = Boolean(process.env.ANTHROPIC_API_KEY)

// Live checks against the real Messages API; skipped unless ANTHROPIC_API_KEY is set.
describe.skipIf(!hasKey)('anthropic (live)', () => {
  it('answers, calls a tool, and reports usage and cost', async () => {
    const calls: string[] = []
    const multiply = tool({
      name: 'multiply',
      description: 'Multiply two integers exactly.',
      input: z.object({ a: z.number().int(), b: z.number().int() }),
      execute: ({ a, b }) => {
        calls.push(`${a}*${b}`)
        return String(a * b)
      },
    })
    const agent = createAgent({
      provider: anthropic(),
      tools: { multiply },
      system: 'Use the multiply tool for every multiplication. Answer with the number only.',
      behavior: { maxTurns: 4, maxTokens: 512 },
    })
    const stats = await agent.run({ prompt: 'What is 1234 * 5678?' })
    expect(stats.stopReason).toBe('completed')
    expect(calls.length).toBeGreaterThan(0)
    expect(stats.text.replace(/\D/g, '')).toContain('7006652')
    expect(stats.totalIn).toBeGreaterThan(0)
    expect(stats.turnUsage?.[0]?.modelId).toBeTruthy()
    expect(stats.cost).toBeGreaterThan(0)
  }, 60_000)

  it('streams thinking on a reasoning level', async () => {
    let thinking = ''
    const agent = createAgent({ provider: anthropic(), behavior: { maxTokens: 4096, thinkingBudget: 1024 } })
    agent.hooks.hook('stream:thinking', ({ delta }) => {
      thinking += delta
    })
    const stats = await agent.run({ prompt: 'Is 221 prime? One word.', thinking: 'low' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text.toLowerCase()).toContain('no')
    expect(thinking.length).toBeGreaterThan(0)
  }, 60_000)
})
