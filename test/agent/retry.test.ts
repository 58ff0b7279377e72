import type { StreamRetryContext } from '../../src/hooks/hook-map'
import type { Provider, StreamCallbacks, StreamOptions, TurnResult } from '../../src/providers/types'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentContextExceededError, AgentProviderError, ClassifiedError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'

const FAST = { initialDelayMs: 0 }

/** A provider whose attempts are plain functions, for failures the script cannot express. */
function attemptsProvider(attempts: ((callbacks: StreamCallbacks, options: StreamOptions) => Promise<TurnResult> | TurnResult)[]): Provider & { calls: number } {
  const provider = {
    name: 'custom',
    meta: { defaultModel: 'custom-model' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: true, promptCache: false },
    calls: 0,
    async stream(options: StreamOptions, callbacks: StreamCallbacks) {
      const attempt = attempts[provider.calls++]
      if (!attempt)
        throw new ClassifiedError('no attempt left', { kind: 'invalid_request', retryable: false })
      return attempt(callbacks, options)
    },
  }
  return provider
}

function answer(text: string): TurnResult {
  return { content: [{ type: 'text', text }], toolCalls: [], finishReason: 'stop', usage: { input: 1, output: 1 } }
}

function networkFailures(count: number): ScriptedTurn[] {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < count; i++)
    turns.push({ error: { kind: 'network', retryable: true } })
  return turns
}

const overloaded = () => new ClassifiedError('overloaded', { kind: 'overloaded', retryable: true, status: 529 })

function collectRetries(agent: ReturnType<typeof createAgent>): StreamRetryContext[] {
  const retries: StreamRetryContext[] = []
  agent.hooks.hook('stream:retry', ctx => void retries.push(ctx))
  return retries
}

describe('retry', () => {
  it('retries a retryable failure once and succeeds', async () => {
    const provider = scriptedProvider([{ error: { kind: 'rate_limit', retryable: true } }, { text: 'ok' }])
    const agent = createAgent({ provider, behavior: { retry: { initialDelayMs: 1 } } })
    const retries = collectRetries(agent)
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.text).toBe('ok')
    expect(stats.turns).toBe(1)
    expect(provider.requests).toHaveLength(2)
    expect(retries).toHaveLength(1)
    expect(retries[0].attempt).toBe(2)
    expect(retries[0].error.kind).toBe('rate_limit')
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(0)
    expect(retries[0].delayMs).toBeLessThanOrEqual(1)
    expect(retries[0].discardedThinking).toBe('')
  })

  it('reports thinking streamed before the failure as discardedThinking', async () => {
    const provider = attemptsProvider([
      (callbacks) => {
        callbacks.onThinking('first idea ')
        callbacks.onThinking('goes away')
        throw overloaded()
      },
      () => answer('second try'),
    ])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    const retries = collectRetries(agent)
    const stats = await agent.run({ prompt: 'p' })
    expect(stats.text).toBe('second try')
    expect(retries.map(r => r.discardedThinking)).toEqual(['first idea goes away'])
  })

  it('does not retry once text has streamed', async () => {
    const provider = attemptsProvider([
      (callbacks) => {
        callbacks.onText('partial answer')
        throw overloaded()
      },
      () => answer('should not be reached'),
    ])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    const retries = collectRetries(agent)
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'overloaded', attempts: 1, status: 529, provider: 'custom', model: 'custom-model' })
    expect(provider.calls).toBe(1)
    expect(retries).toEqual([])
  })

  it('does not retry once a tool call has started streaming', async () => {
    const provider = attemptsProvider([
      (callbacks) => {
        callbacks.onToolCallStart?.({ id: 't', name: 'x' })
        throw overloaded()
      },
      () => answer('should not be reached'),
    ])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ name: 'AgentProviderError', attempts: 1 })
    expect(provider.calls).toBe(1)
  })

  it('fails a non-retryable error at once with its kind', async () => {
    const provider = scriptedProvider([{ error: { kind: 'auth', message: 'bad key', retryable: false } }, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'auth', attempts: 1, provider: 'scripted', model: 'scripted-model' })
    expect(error.message).toContain('bad key')
    expect(error.cause).toBeInstanceOf(ClassifiedError)
    expect(provider.requests).toHaveLength(1)
  })

  it('turns retry off with maxAttempts: 1', async () => {
    const provider = scriptedProvider([{ error: { kind: 'server', retryable: true } }, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: { maxAttempts: 1, initialDelayMs: 0 } } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ name: 'AgentProviderError', kind: 'server', attempts: 1 })
    expect(provider.requests).toHaveLength(1)
  })

  it('gives up after maxAttempts and reports the attempts', async () => {
    const failing = networkFailures(5)
    const provider = scriptedProvider([...failing, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: { maxAttempts: 4, initialDelayMs: 0 } } })
    const retries = collectRetries(agent)
    const starts: number[] = []
    agent.hooks.hook('stream:start', ctx => void starts.push(ctx.attempt))
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ name: 'AgentProviderError', kind: 'network', attempts: 4 })
    expect(provider.requests).toHaveLength(4)
    expect(retries.map(r => r.attempt)).toEqual([2, 3, 4])
    expect(starts).toEqual([1, 2, 3, 4])
  })

  it('uses three attempts by default', async () => {
    const failing = networkFailures(4)
    const provider = scriptedProvider(failing)
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ attempts: 3 })
    expect(provider.requests).toHaveLength(3)
  })

  it('waits exactly retryAfterMs when it is under the cap', async () => {
    const provider = scriptedProvider([{ error: { kind: 'rate_limit', retryable: true, retryAfterMs: 7 } }, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: { initialDelayMs: 0, maxDelayMs: 50 } } })
    const retries = collectRetries(agent)
    await agent.run({ prompt: 'p' })
    expect(retries.map(r => r.delayMs)).toEqual([7])
  })

  it('caps retryAfterMs at maxDelayMs', async () => {
    const provider = scriptedProvider([{ error: { kind: 'rate_limit', retryable: true, retryAfterMs: 120_000 } }, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: { initialDelayMs: 0, maxDelayMs: 3 } } })
    const retries = collectRetries(agent)
    await agent.run({ prompt: 'p' })
    expect(retries.map(r => r.delayMs)).toEqual([3])
  })

  it('throws AgentContextExceededError for context_exceeded, without retrying', async () => {
    const provider = scriptedProvider([{ error: { kind: 'context_exceeded', message: 'prompt is too long', retryable: true } }, { text: 'x' }])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentContextExceededError)
    expect(error).toMatchObject({ provider: 'scripted', model: 'scripted-model' })
    expect(provider.requests).toHaveLength(1)
  })

  it('wraps a plain Error from a provider as kind unknown, not retried', async () => {
    const provider = attemptsProvider([
      () => {
        throw new TypeError('bug in provider')
      },
      () => answer('not reached'),
    ])
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    const error = await agent.run({ prompt: 'p' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error).toMatchObject({ kind: 'unknown', attempts: 1 })
    expect(error.message).toContain('bug in provider')
    expect(provider.calls).toBe(1)
  })

  it('wraps a provider whose stream() throws synchronously', async () => {
    const provider: Provider = {
      name: 'sync',
      meta: { defaultModel: 'm' },
      capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
      stream: () => {
        throw new Error('sync throw')
      },
    }
    const agent = createAgent({ provider, behavior: { retry: FAST } })
    await expect(agent.run({ prompt: 'p' })).rejects.toMatchObject({ name: 'AgentProviderError', kind: 'unknown', attempts: 1 })
  })
})
