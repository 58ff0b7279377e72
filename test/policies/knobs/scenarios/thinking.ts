import type { AgentBehavior } from '../../../../src'
import type { ThinkingKnobs } from '../../../../src/knobs/thinking-knobs'
import type { SliceScenarios } from '../harness'
import { z } from 'zod'
import { createAgent, tool } from '../../../../src'
import { anthropic } from '../../../../src/providers/anthropic'
import { startFakeAnthropic } from '../../../support/fake-anthropic'

const noop = tool({ name: 'note', description: 'Take a note.', input: z.object({ text: z.string() }), execute: async () => 'noted' })

/**
 * A four-turn run (three tool rounds, then an answer) of the real Anthropic
 * provider against the fake Messages server, with `thinkingBudget: 8192` on
 * level `high`: the `budget_tokens` each request sent, in order.
 */
export async function budgetsSent(behavior: AgentBehavior, thinking: 'high' | 'adaptive' = 'high'): Promise<unknown[]> {
  const fake = await startFakeAnthropic()
  try {
    for (let n = 1; n <= 3; n++)
      fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `toolu_${n}`, name: 'note', input: { text: `step ${n}` } }] } })
    fake.enqueue({ type: 'turn', turn: { text: 'done' } })
    const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
    const agent = createAgent({ provider, tools: { note: noop }, behavior: { thinkingBudget: 8192, ...behavior } })
    await agent.run({ prompt: 'go', thinking })
    await agent.destroy()
    return fake.requests.map(request => request.body.thinking?.budget_tokens ?? request.body.max_tokens)
  }
  finally {
    await fake.close()
  }
}

export const thinkingScenarios: SliceScenarios<ThinkingKnobs> = {
  thinkingDecay: {
    value: { afterTurn: 1, floor: 2048 },
    outcome: behavior => budgetsSent(behavior),
    unset: [8192, 8192, 8192, 8192],
    set: [8192, 2048, 2048, 2048],
  },
}
