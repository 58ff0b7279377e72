import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createHookBus, hasHookHandlers } from '../../src/hooks/bus'
import { scriptedProvider } from '../../src/testing'

describe('hasHookHandlers', () => {
  it('follows handlers as they are added and removed', () => {
    const bus = createHookBus()
    expect(hasHookHandlers(bus, 'usage')).toBe(false)
    const first = bus.hook('usage', () => {})
    const second = bus.hook('usage', () => {})
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
    expect(hasHookHandlers(bus, 'stream:end')).toBe(false)
    first()
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
    second()
    expect(hasHookHandlers(bus, 'usage')).toBe(false)
  })

  it('counts beforeEach and afterEach observers, which see every call', () => {
    const bus = createHookBus()
    const stopBefore = bus.beforeEach(() => {})
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(true)
    stopBefore()
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(false)
    const stopAfter = bus.afterEach(() => {})
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(true)
    stopAfter()
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(false)
  })

  it('answers true when the bus state is not what it expects', () => {
    const odd = { callHook: () => undefined } as unknown as ReturnType<typeof createHookBus>
    expect(hasHookHandlers(odd, 'usage')).toBe(true)
  })

  it('lets a beforeEach observer see hooks that have no handler', async () => {
    const provider = scriptedProvider([{ text: 'hi' }])
    const agent = createAgent({ provider })
    const seen: string[] = []
    agent.hooks.beforeEach(event => void seen.push(event.name))
    await agent.run({ prompt: 'hello' })
    expect(seen).toEqual(expect.arrayContaining(['turn:before', 'system:transform', 'context:transform', 'stream:start', 'stream:text', 'stream:end', 'usage', 'turn:after']))
  })
})
