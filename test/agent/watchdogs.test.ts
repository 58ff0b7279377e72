import type { Provider, StreamCallbacks, StreamOptions, TurnResult } from '../../src/providers/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError, AgentProviderError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { wait } from '../support/helpers'

type Attempt = (callbacks: StreamCallbacks, options: StreamOptions) => Promise<TurnResult>

/** A provider that plays one function per attempt and, like a buggy client, ignores the abort signal. */
function deafProvider(attempts: Attempt[]): Provider & { calls: number } {
  const provider = {
    name: 'deaf',
    meta: { defaultModel: 'deaf-model' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: true, promptCache: false },
    calls: 0,
    stream(options: StreamOptions, callbacks: StreamCallbacks) {
      const attempt = attempts[Math.min(provider.calls++, attempts.length - 1)]
      return attempt(callbacks, options)
    },
  }
  return provider
}

const never: Attempt = () => new Promise(() => {})
const answer = (text: string): TurnResult => ({ content: [{ type: 'text', text }], toolCalls: [], finishReason: 'stop', usage: { input: 1, output: 1 } })

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter(kind => kind === 'Timeout').length
}

describe('providerStreamStartTimeoutMs', () => {
  it('times out a provider that never answers, retries, then fails with kind timeout', async () => {
    const provider = deafProvider([never])
    const agent = createAgent({ provider, behavior: { providerStreamStartTimeoutMs: 30, retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    const retries: string[] = []
    agent.hooks.hook('stream:retry', ctx => void retries.push(ctx.error.kind))
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'timeout', attempts: 2 })
    expect(provider.calls).toBe(2)
    expect(retries).toEqual(['timeout'])
  })

  it('aborts the request signal it gave the provider', async () => {
    let signal: AbortSignal | undefined
    const provider = deafProvider([(_callbacks, options) => {
      signal = options.signal
      return new Promise(() => {})
    }])
    const agent = createAgent({ provider, behavior: { providerStreamStartTimeoutMs: 20, retry: { maxAttempts: 1 } } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ kind: 'timeout' })
    expect(signal?.aborted).toBe(true)
  })

  it('recovers when the retry answers', async () => {
    const provider = deafProvider([never, async () => answer('second attempt')])
    const agent = createAgent({ provider, behavior: { providerStreamStartTimeoutMs: 20, retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    expect((await agent.run({ prompt: 'p' })).text).toBe('second attempt')
  })

  it('is disabled by 0: a 60 ms stream completes', async () => {
    const provider = scriptedProvider([{ text: 'slow but fine', delayMs: 60 }])
    const agent = createAgent({ provider, behavior: { providerStreamStartTimeoutMs: 0, retry: { maxAttempts: 1 } } })
    expect((await agent.run({ prompt: 'p' })).text).toBe('slow but fine')
  })

  it('fires on the same 60 ms stream when set below it', async () => {
    const provider = scriptedProvider([{ text: 'slow', delayMs: 60 }])
    const agent = createAgent({ provider, behavior: { providerStreamStartTimeoutMs: 10, retry: { maxAttempts: 1 } } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ kind: 'timeout' })
  })

  it('leaves no timer armed when the provider throws synchronously', async () => {
    const provider: Provider = {
      name: 'sync',
      meta: { defaultModel: 'm' },
      capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
      stream: () => {
        throw new Error('sync throw')
      },
    }
    const before = activeTimers()
    const agent = createAgent({ provider, behavior: { retry: { maxAttempts: 1 } } })
    await expect(agent.run({ prompt: 'p' })).rejects.toBeInstanceOf(AgentProviderError)
    expect(activeTimers()).toBeLessThanOrEqual(before)
  })

  it('leaves no timer armed after a normal run', async () => {
    const before = activeTimers()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'x' }]), behavior: { providerStreamIdleTimeoutMs: 1_000 } })
    await agent.run({ prompt: 'p' })
    expect(activeTimers()).toBeLessThanOrEqual(before)
  })
})

describe('providerStreamIdleTimeoutMs', () => {
  it('fails a stream that goes silent after a text delta, without retrying', async () => {
    const provider = deafProvider([(callbacks) => {
      callbacks.onText('started… ')
      return new Promise(() => {})
    }])
    const agent = createAgent({ provider, behavior: { providerStreamIdleTimeoutMs: 25, retry: { maxAttempts: 3, initialDelayMs: 0 } } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'timeout', attempts: 1 })
    expect(provider.calls).toBe(1)
  })

  it('retries a stream that goes silent after reasoning only', async () => {
    const provider = deafProvider([
      (callbacks) => {
        callbacks.onThinking('thinking…')
        return new Promise(() => {})
      },
      async () => answer('fresh attempt'),
    ])
    const agent = createAgent({ provider, behavior: { providerStreamIdleTimeoutMs: 25, retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    const discarded: string[] = []
    agent.hooks.hook('stream:retry', ctx => void discarded.push(ctx.discardedThinking))
    expect((await agent.run({ prompt: 'p' })).text).toBe('fresh attempt')
    expect(discarded).toEqual(['thinking…'])
  })

  it('is off by default: a silence after the first delta is waited out', async () => {
    const provider = deafProvider([async (callbacks) => {
      callbacks.onText('a')
      await wait(40)
      callbacks.onText('b')
      return answer('ab')
    }])
    const agent = createAgent({ provider })
    expect((await agent.run({ prompt: 'p' })).text).toBe('ab')
  })

  it('is re-armed by every delta, so a steady stream survives', async () => {
    const provider = deafProvider([async (callbacks) => {
      // The whole stream (about 360 ms) outlasts the idle limit; no single gap comes near it.
      for (let i = 0; i < 6; i++) {
        callbacks.onText(String(i))
        await wait(60)
      }
      return answer('012345')
    }])
    const agent = createAgent({ provider, behavior: { providerStreamIdleTimeoutMs: 200 } })
    expect((await agent.run({ prompt: 'p' })).text).toBe('012345')
  })

  it('ignores callbacks from an attempt that already ended', async () => {
    const provider = deafProvider([
      (callbacks) => {
        callbacks.onThinking('first')
        // A client that ignores the abort keeps calling back after the watchdog gave up on it.
        setTimeout(() => callbacks.onText('zombie'), 40)
        setTimeout(() => callbacks.onActivity?.(), 40)
        return new Promise(() => {})
      },
      async () => answer('second'),
    ])
    const agent = createAgent({ provider, behavior: { providerStreamIdleTimeoutMs: 15, retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    const texts: string[] = []
    agent.hooks.hook('stream:text', ctx => void texts.push(ctx.delta))
    expect((await agent.run({ prompt: 'p' })).text).toBe('second')
    await wait(60)
    expect(texts).toEqual([])
  })
})

describe('providerStreamTimeoutMs', () => {
  it('bounds a whole call that keeps streaming but never finishes', async () => {
    const provider = deafProvider([(callbacks, options) => new Promise(() => {
      const timer = setInterval(() => callbacks.onThinking('.'), 5)
      options.signal.addEventListener('abort', () => clearInterval(timer), { once: true })
    })])
    const agent = createAgent({ provider, behavior: { providerStreamTimeoutMs: 40, providerStreamIdleTimeoutMs: 1_000, retry: { maxAttempts: 1 } } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ name: 'AgentProviderError', kind: 'timeout', attempts: 1 })
  })

  it('is disabled by 0', async () => {
    const provider = scriptedProvider([{ text: 'done', delayMs: 40 }])
    const agent = createAgent({ provider, behavior: { providerStreamTimeoutMs: 0, retry: { maxAttempts: 1 } } })
    expect((await agent.run({ prompt: 'p' })).text).toBe('done')
  })
})

describe('maxWallMs bounds the stream watchdogs', () => {
  it('fails with a wallClock budget error when maxWallMs runs out before the stream timeout', async () => {
    const provider = deafProvider([never])
    const agent = createAgent({ provider, behavior: { maxWallMs: 30, providerStreamTimeoutMs: 10_000, retry: { maxAttempts: 3, initialDelayMs: 0 } } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 30 })
    expect(provider.calls).toBe(1)
  })
})
