import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'

describe('hook watchdog bounds each handler', () => {
  it('a stuck observer does not keep later handlers (and budget policies) from running', async () => {
    const provider = scriptedProvider([
      { text: 'expensive', usage: { input: 10, output: 5, cost: 2 }, toolCalls: [{ name: 'noop', input: {} }] },
      { text: 'never reached' },
    ])
    const later: string[] = []
    const agent = createAgent({
      provider,
      tools: { noop: { spec: { name: 'noop', description: 'no-op', inputSchema: { type: 'object' } }, execute: () => 'ok' } },
      behavior: { hookTimeoutMs: 20, maxCostUsd: 1 },
      hooks: {
        'turn:after': [
          () => new Promise<void>(() => {}), // never settles
          () => {
            later.push('ran')
          },
        ],
      },
    })
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentBudgetExceededError)
    expect(later).toEqual(['ran'])
    expect(provider.requests).toHaveLength(1)
  })

  it('a transforming hook still fails closed at its first stuck handler', async () => {
    let second = false
    const agent = createAgent({
      provider: scriptedProvider([{ text: 'x' }]),
      behavior: { hookTimeoutMs: 20 },
      hooks: {
        'context:transform': [
          () => new Promise<void>(() => {}),
          () => {
            second = true
          },
        ],
      },
    })
    await expect(agent.run({ prompt: 'go' })).rejects.toMatchObject({ name: 'OperationTimeoutError' })
    expect(second).toBe(false)
  })
})

describe('per-run attachment', () => {
  it('removes its signal listener even when a per-run hook name is refused', async () => {
    const controller = new AbortController()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'x' }]) })
    // @ts-expect-error an unknown event name is refused by the type too; this checks the run-time refusal
    await expect(agent.run({ prompt: 'go', signal: controller.signal, hooks: { 'no:such-hook': () => {} } })).rejects.toThrow(/Unknown hook/)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    const stats = await agent.run({ prompt: 'go', signal: controller.signal })
    expect(stats.stopReason).toBe('completed')
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('runs agent hooks, then the run\'s own hooks, then the policies decide', async () => {
    const order: string[] = []
    const agent = createAgent({
      provider: scriptedProvider([{ text: 'x', finishReason: 'pause' }, { text: 'y' }]),
      hooks: { 'turn:after': () => void order.push('agent') },
    })
    await agent.run({
      prompt: 'go',
      hooks: {
        'turn:after': (ctx: { finishReason: string }) => {
          // Every turn:after handler fires before the policies decide (the pause policy continues this turn after it).
          order.push(`run:${ctx.finishReason}`)
        },
      },
    })
    expect(order).toEqual(['agent', 'run:pause', 'agent', 'run:stop'])
  })
})
