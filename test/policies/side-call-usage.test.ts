import type { AgentBehavior, AgentStats } from '../../src'
import type { FakeAnthropic, FakeResponse } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, statsByModel, tool } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'

// The summary call of auto-compaction and of context-exceeded recovery is
// real spend: it must show in the run's totals, its cost, and the spend
// budgets, even though it is not a turn.

const MODEL = 'claude-sonnet-4-6'

const dump = tool({
  name: 'dump',
  description: 'Print a block of text',
  input: z.object({ letter: z.string(), size: z.number() }),
  execute: ({ letter, size }) => letter.repeat(size),
})

function call(id: string, usage: Record<string, number>): FakeResponse {
  return { type: 'turn', turn: { toolCalls: [{ id, name: 'dump', input: { letter: id.at(-1)!, size: 50 } }], usage } }
}

function answer(text: string, usage: Record<string, number>): FakeResponse {
  return { type: 'turn', turn: { text, usage } }
}

/** Two tool turns (the second crosses 85% of a 1000-token window), the summary call, and the closing answer. */
function compactingScript(): FakeResponse[] {
  return [
    call('toolu_1', { input_tokens: 100, output_tokens: 10 }),
    call('toolu_2', { input_tokens: 100, cache_read_input_tokens: 800, output_tokens: 10 }),
    answer('SUMMARY: dumped 1 and 2.', { input_tokens: 300, cache_read_input_tokens: 900, output_tokens: 200 }),
    answer('done', { input_tokens: 100, output_tokens: 10 }),
  ]
}

const AUTO: AgentBehavior = { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } }

describe('side-band summary calls count in the run', () => {
  let fake: FakeAnthropic
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })
  const agentWith = (behavior: AgentBehavior) => createAgent({ provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL }), tools: { dump }, behavior })

  it('auto-compaction: the summary is listed in stats.sideCalls and included in the totals, cost and per-model sums', async () => {
    fake.enqueue(...compactingScript())
    const stats = await agentWith(AUTO).run({ prompt: 'go' })
    expect(fake.requests).toHaveLength(4)
    expect(stats.turns).toBe(3)
    expect(stats.turnUsage).toHaveLength(3)
    expect(stats.sideCalls).toHaveLength(1)
    const [side] = stats.sideCalls!
    expect(side).toMatchObject({ purpose: 'compact', turn: 2, input: 300, output: 200, cacheRead: 900, modelId: MODEL })
    expect(side.cost).toBeGreaterThan(0)
    expect(stats.totalIn).toBe(100 + 100 + 300 + 100)
    expect(stats.totalOut).toBe(10 + 10 + 200 + 10)
    expect(stats.totalCacheRead).toBe(800 + 900)
    const turnsCost = stats.turnUsage!.reduce((sum, usage) => sum + (usage.cost ?? 0), 0)
    expect(stats.cost).toBeCloseTo(turnsCost + side.cost!, 12)
    expect(statsByModel(stats).get(MODEL)).toMatchObject({ input: 600, output: 230, cacheRead: 1700, turns: 3 })
  })

  it('maxTotalTokens: a ceiling that only the summary call pushes over ends the run with AgentBudgetExceededError', async () => {
    // The turns spend (100 + 10) × 3 = 330 tokens; the summary adds 500.
    fake.enqueue(...compactingScript())
    const error = await agentWith({ ...AUTO, maxTotalTokens: 600 }).run({ prompt: 'go' }).catch(caught => caught)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'tokens', max: 600 })
    expect((error as AgentBudgetExceededError).spent).toBeGreaterThanOrEqual(220 + 500)
  })

  it('maxCostUsd: a ceiling that only the summary call pushes over ends the run with AgentBudgetExceededError', async () => {
    fake.enqueue(...compactingScript())
    const measured: AgentStats = await agentWith(AUTO).run({ prompt: 'go' })
    const turnsCost = measured.turnUsage!.reduce((sum, usage) => sum + (usage.cost ?? 0), 0)
    const max = turnsCost + measured.sideCalls![0].cost! / 2
    fake.enqueue(...compactingScript())
    const error = await agentWith({ ...AUTO, maxCostUsd: max }).run({ prompt: 'go' }).catch(caught => caught)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'cost', max })
    // The same ceiling without the summary call is not crossed.
    fake.enqueue(call('toolu_1', { input_tokens: 100, output_tokens: 10 }), call('toolu_2', { input_tokens: 100, cache_read_input_tokens: 800, output_tokens: 10 }), answer('done', { input_tokens: 100, output_tokens: 10 }))
    const plain = await agentWith({ maxCostUsd: max }).run({ prompt: 'go' })
    expect(plain.stopReason).toBe('completed')
    expect(plain.sideCalls).toBeUndefined()
  })

  it('context-exceeded recovery: the summary of the overflowed turn counts too', async () => {
    fake.enqueue(
      call('toolu_1', { input_tokens: 100, output_tokens: 10 }),
      call('toolu_2', { input_tokens: 100, output_tokens: 10 }),
      { type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215034 tokens > 200000 maximum' }, request_id: 'req_011CXfake' } },
      answer('SUMMARY of 1', { input_tokens: 400, output_tokens: 40 }),
      answer('done', { input_tokens: 100, output_tokens: 10 }),
    )
    const stats = await agentWith({ autoCompact: { keepTurns: 2 } }).run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(stats.sideCalls).toMatchObject([{ purpose: 'compact', turn: 3, input: 400, output: 40 }])
    expect(stats.totalIn).toBe(100 + 100 + 400 + 100)
    expect(stats.totalOut).toBe(10 + 10 + 40 + 10)
  })
})
