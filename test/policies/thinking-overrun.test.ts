import type { PolicyScriptStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { thinkingOverrun } from '../../src/policies/thinking-overrun'
import { runPolicyScript } from '../../src/testing'

const result = [{ callId: 'c', output: 'ok' }]
function thought(tokens: number | undefined, text = 'hmm', toolResults = result): PolicyScriptStep {
  return {
    phase: 'afterTurn',
    content: [{ type: 'thinking', text }, { type: 'tool_call', id: 'c', name: 'a', input: {} }],
    usage: tokens === undefined ? {} : { thinking: tokens },
    toolResults,
    finishReason: 'tool-calls',
  }
}
async function texts(policy: unknown, steps: PolicyScriptStep[]) {
  const { steps: played } = await runPolicyScript(thinkingOverrun, { behavior: { thinkingOverrunPolicy: policy as never }, steps })
  return played.map(step => step.phase === 'afterTurn' ? step.messages.map(m => (m.content[0] as { text: string }).text) : [])
}

describe('thinking-overrun', () => {
  it('is off by default, with \'off\' and with an object whose mode is \'off\'', async () => {
    for (const behavior of [{}, { thinkingOverrunPolicy: 'off' as const }, { thinkingOverrunPolicy: { mode: 'off' as const, thresholdTokens: 1 } }])
      expect((await runPolicyScript(thinkingOverrun, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('nudges the next turn after one that thought past the threshold (8192 by default) and called tools', async () => {
    const perTurn = await texts('steer-next-turn', [thought(8192), thought(8193), thought(20_000, 'x', [])])
    expect(perTurn).toEqual([[], ['The last turn spent about 8193 tokens thinking. Act on what you already know: take the next concrete step now, and keep the reasoning before each step short.'], []])
    const { steps } = await runPolicyScript(thinkingOverrun, { behavior: { thinkingOverrunPolicy: 'steer-next-turn' }, steps: [thought(9000)] })
    expect(steps[0]).toMatchObject({ keepGoing: false, messages: [{ injected: 'thinking-overrun', content: [{ origin: 'injected' }] }] })
  })

  it('measures from the thinking text when the provider reports no thinking tokens', async () => {
    expect(await texts({ thresholdTokens: 100 }, [thought(undefined, 'x'.repeat(400)), thought(undefined, 'x'.repeat(404))])).toEqual([[], [expect.stringContaining('about 101 tokens')]])
  })

  it('takes a threshold and a message', async () => {
    expect(await texts({ thresholdTokens: 10, message: 'Less thinking, more doing.' }, [thought(11)])).toEqual([['Less thinking, more doing.']])
  })
})
