import type { Provider } from '../../src'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'

// `createAgent` starts loading the provider's SDK (`Provider.prepare`) in the
// background, so the first model call does not wait for it. The load is never
// awaited there, so a failure must stay quiet until the run, which reports it.
// (That a program which never runs is not held open by the load is checked in
// a fresh process, test/package/lazy-imports.test.ts.)

/** A scripted provider whose `prepare` is `prepare`, with every call counted. */
function preparedProvider(prepare: () => PromiseLike<void> | void): Provider & { prepareCalls: number } {
  const provider = Object.assign(scriptedProvider([{ text: 'done' }]), {
    prepareCalls: 0,
    prepare: () => {
      provider.prepareCalls++
      return prepare()
    },
  })
  return provider
}

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeEach(() => {
  unhandled.length = 0
  process.on('unhandledRejection', onUnhandled)
})
afterEach(() => {
  process.off('unhandledRejection', onUnhandled)
})

/** Let pending rejections reach `unhandledRejection` (Node reports them after the microtask queue drains). */
const settle = () => new Promise(resolve => setTimeout(resolve, 10))

describe('createAgent starts loading the provider', () => {
  it('calls prepare() once the agent is created, without a run', async () => {
    // One load, as a provider keeps it: the loop's own call gets the same promise.
    let loaded!: () => void
    const load = new Promise<void>((resolve) => {
      loaded = resolve
    })
    const provider = preparedProvider(() => load)
    const agent = createAgent({ provider })
    await vi.waitFor(() => expect(provider.prepareCalls).toBe(1))
    loaded()
    const stats = await agent.run({ prompt: 'hi' })
    expect(stats.text).toBe('done')
  })

  it('a load that fails is no unhandled rejection, and the run still goes to the provider', async () => {
    const provider = preparedProvider(() => Promise.reject(new Error('SDK missing')))
    const agent = createAgent({ provider })
    await vi.waitFor(() => expect(provider.prepareCalls).toBe(1))
    await settle()
    expect(unhandled).toEqual([])
    // The loop asks again before its first request; this provider answers anyway.
    const stats = await agent.run({ prompt: 'hi' })
    expect(provider.prepareCalls).toBe(2)
    expect(stats.text).toBe('done')
    await settle()
    expect(unhandled).toEqual([])
  })

  it('a prepare() that throws is not an uncaught exception', async () => {
    const uncaught: unknown[] = []
    const onUncaught = (error: unknown) => uncaught.push(error)
    process.on('uncaughtException', onUncaught)
    try {
      const provider = preparedProvider(() => {
        throw new Error('no SDK')
      })
      createAgent({ provider })
      await vi.waitFor(() => expect(provider.prepareCalls).toBe(1))
      await settle()
      expect(uncaught).toEqual([])
    }
    finally {
      process.off('uncaughtException', onUncaught)
    }
  })

  it('with a fallback list, only the first provider is prepared', async () => {
    const first = preparedProvider(() => {})
    const fallback = preparedProvider(() => {})
    createAgent({ provider: [first, fallback] })
    await vi.waitFor(() => expect(first.prepareCalls).toBe(1))
    await settle()
    expect(fallback.prepareCalls).toBe(0)
  })
})
