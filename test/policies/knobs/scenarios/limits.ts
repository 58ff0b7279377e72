import type { LimitKnobs } from '../../../../src/knobs/limit-knobs'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { echoTool, toolLoop } from '../../../support/helpers'
import { endOf } from '../harness'

function costly(n: number) {
  return toolLoop(n, 'a').map(turn => ({ ...turn, usage: { input: 100, output: 50, cost: 1 } }))
}

/** The user messages the provider saw on its last request. */
async function lastUserTexts(behavior: LimitKnobs): Promise<string[]> {
  const provider = scriptedProvider(toolLoop(3, 'a'))
  const agent = createAgent({ provider, tools: { a: echoTool('a') }, behavior: { maxTurns: 4, ...behavior } })
  await agent.run({ prompt: 'go' })
  const messages = provider.requests.at(-1)!.messages
  return messages.filter(m => m.role === 'user').flatMap(m => m.content.flatMap(b => b.type === 'text' ? [b.text] : []))
}

export const limitScenarios: SliceScenarios<LimitKnobs> = {
  maxTurns: {
    value: 2,
    outcome: behavior => endOf({ provider: scriptedProvider(toolLoop(3, 'a')), tools: { a: echoTool('a') }, behavior }),
    unset: 'completed',
    set: 'max-turns',
  },
  maxTurnsWarning: {
    value: 2,
    outcome: async behavior => (await lastUserTexts(behavior)).length,
    unset: 1,
    set: 2,
  },
  maxTurnsWarningMessage: {
    value: 'WRAP IT UP',
    outcome: async behavior => (await lastUserTexts({ maxTurnsWarning: 2, ...behavior })).includes('WRAP IT UP'),
    unset: false,
    set: true,
  },
  maxCostUsd: {
    value: 1.5,
    outcome: behavior => endOf({ provider: scriptedProvider(costly(3)), tools: { a: echoTool('a') }, behavior }),
    unset: 'completed',
    set: 'AgentBudgetExceededError',
  },
  maxTotalTokens: {
    value: 200,
    outcome: behavior => endOf({ provider: scriptedProvider(costly(3)), tools: { a: echoTool('a') }, behavior }),
    unset: 'completed',
    set: 'AgentBudgetExceededError',
  },
  maxWallMs: {
    value: 30,
    outcome: behavior => endOf({ provider: scriptedProvider([{ text: 'late', delayMs: 300 }]), behavior }),
    unset: 'completed',
    set: 'AgentBudgetExceededError',
  },
  hardWallMs: {
    value: 30,
    // A tool that runs past the deadline: only the hard deadline interrupts it (its signal aborts).
    outcome: async (behavior) => {
      let interrupted = false
      const slow = echoTool('slow', {
        execute: (_input, ctx) => new Promise((resolve) => {
          const timer = setTimeout(resolve, 300, 'finished')
          ctx.signal.addEventListener('abort', () => {
            interrupted = true
            clearTimeout(timer)
            resolve('stopped')
          })
        }),
      })
      const end = await endOf({ provider: scriptedProvider([{ toolCalls: [{ name: 'slow', input: {} }] }, { text: 'done' }]), tools: { slow }, behavior })
      return `${end}, interrupted: ${interrupted}`
    },
    unset: 'completed, interrupted: false',
    set: 'AgentBudgetExceededError, interrupted: true',
  },
}
