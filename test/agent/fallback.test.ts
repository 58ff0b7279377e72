import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentProviderError } from '../../src/errors'
import { resolveModelTargets } from '../../src/providers/model-targets'
import { scriptedProvider } from '../../src/testing'

const failing = (kind: 'auth' | 'server' = 'auth') => ({ error: { kind, message: `${kind} failure`, retryable: kind === 'server' } })

describe('provider fallback chains', () => {
  it('moves to the next provider when a turn fails for good, stays there for the run, and starts over next run', async () => {
    const primary = scriptedProvider([failing(), { text: 'primary is back' }], { name: 'primary', defaultModel: 'p-model' })
    const backup = scriptedProvider([
      { toolCalls: [{ name: 'noop', input: {} }] },
      { text: 'backup answered' },
    ], { name: 'backup', defaultModel: 'b-model' })
    const noop = { spec: { name: 'noop', description: 'no-op', inputSchema: { type: 'object' } }, execute: () => 'ok' }
    const fallbacks: unknown[] = []
    const agent = createAgent({ provider: [primary, backup], tools: { noop }, hooks: { 'model:fallback': ({ from, to, error }) => void fallbacks.push({ from, to, error: (error as AgentProviderError).kind }) } })

    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('backup answered')
    expect(primary.requests).toHaveLength(1)
    expect(backup.requests.map(r => r.model)).toEqual(['b-model', 'b-model'])
    expect(fallbacks).toEqual([{ from: { provider: 'primary', model: 'p-model' }, to: { provider: 'backup', model: 'b-model' }, error: 'auth' }])
    expect(stats.turnUsage?.map(u => u.modelId)).toEqual(['b-model', 'b-model'])

    const next = await agent.run({ prompt: 'again' })
    expect(next.text).toBe('primary is back')
    expect(primary.requests).toHaveLength(2)
  })

  it('retries a retryable failure on the same target before falling back', async () => {
    const primary = scriptedProvider([failing('server'), failing('server')], { name: 'a' })
    const backup = scriptedProvider([{ text: 'ok' }], { name: 'b' })
    const agent = createAgent({ provider: [primary, backup], behavior: { retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    expect((await agent.run({ prompt: 'go' })).text).toBe('ok')
    expect(primary.requests).toHaveLength(2)
  })

  it('throws the last failure when every target has failed', async () => {
    const agent = createAgent({ provider: [scriptedProvider([failing()], { name: 'a' }), scriptedProvider([failing()], { name: 'b' })] })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentProviderError)
    expect(error.provider).toBe('b')
  })

  it('a single model id falls back across providers; a list can pin entries to a provider', async () => {
    const a = scriptedProvider([failing()], { name: 'a' })
    const b = scriptedProvider([{ text: 'b ran' }], { name: 'b' })
    await createAgent({ provider: [a, b] }).run({ prompt: 'go', model: 'shared-model' })
    expect([a.requests[0].model, b.requests[0].model]).toEqual(['shared-model', 'shared-model'])
  })

  it('does not fall back after an abort', async () => {
    const a = scriptedProvider([{ text: 'slow', delayMs: 200 }], { name: 'a' })
    const b = scriptedProvider([{ text: 'never' }], { name: 'b' })
    const agent = createAgent({ provider: [a, b] })
    setTimeout(() => agent.abort(), 10)
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('aborted')
    expect(b.requests).toHaveLength(0)
  })
})

describe('resolveModelTargets', () => {
  const a = scriptedProvider([], { name: 'a', defaultModel: 'a-default' })
  const b = scriptedProvider([], { name: 'b', defaultModel: 'b-default' })
  const names = (targets: ReturnType<typeof resolveModelTargets>) => targets.map(t => `${t.provider.name}:${t.model}`)

  it('defaults to each provider\'s default model in order', () => {
    expect(names(resolveModelTargets([a, b], undefined))).toEqual(['a:a-default', 'b:b-default'])
  })

  it('fans bare ids out across providers, pins objects with a provider, and drops duplicates', () => {
    expect(names(resolveModelTargets([a, b], [{ model: 'x', provider: 'b' }, 'y', { model: 'x', provider: 'b' }]))).toEqual(['b:x', 'a:y', 'b:y'])
  })

  it('refuses an empty list and a pin to an unknown provider', () => {
    expect(() => resolveModelTargets([a], [])).toThrow(/empty/)
    expect(() => resolveModelTargets([a], [{ model: 'x', provider: 'nope' }])).toThrow(/does not have/)
  })
})
