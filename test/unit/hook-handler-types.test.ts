import type { AgentHookMap } from '../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'

// `npm run typecheck` compiles this file: the assignments below are the
// typing contract, and the runs check what the loop does with each return.
describe('hook handler return types', () => {
  it('lets an observer return anything, as one-line arrows do', async () => {
    const written: string[] = []
    const write = (text: string): boolean => written.push(text) > 0
    const agent = createAgent({ provider: scriptedProvider([{ text: 'Hello, world' }]) })
    agent.hooks.hook('stream:text', ({ delta }) => write(delta))
    agent.hooks.hook('tool:after', ({ name }) => name.length)
    agent.hooks.hook('agent:done', async ({ stopReason }) => stopReason)
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.text).toBe('Hello, world')
    expect(written.join('')).toBe('Hello, world')
  })

  it('accepts observers returning values in an AgentHookMap, and waits for their promises', async () => {
    const order: string[] = []
    const hooks: AgentHookMap = {
      'turn:after': async () => {
        await new Promise(resolve => setTimeout(resolve, 5))
        order.push('observer settled')
        return order.length
      },
      'agent:done': () => order.push('done'),
    }
    await createAgent({ provider: scriptedProvider([{ text: 'ok' }]), hooks }).run({ prompt: 'hi' })
    expect(order).toEqual(['observer settled', 'done'])
  })

  it('keeps transforming hooks to in-place changes: a returned value is refused', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    const agent = createAgent({ provider, system: 'Original.' })
    // @ts-expect-error a transforming hook changes ctx.system; a returned string would be dropped.
    agent.hooks.hook('system:transform', () => 'Returned, and ignored.')
    agent.hooks.hook('system:transform', (ctx) => {
      ctx.system = 'Changed in place.'
    })
    await agent.run({ prompt: 'hi' })
    expect(provider.requests[0].system).toBe('Changed in place.')
  })
})
