import type { ProviderKnobs } from '../../../../src/knobs/provider-knobs'
import type { SliceScenarios } from '../harness'
import { createAgent, definePolicy } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { anthropicRequest } from '../wire'

function cacheControls(body: unknown): unknown[] {
  const found: unknown[] = []
  JSON.stringify(body, (key, value) => {
    if (key === 'cache_control')
      found.push(value)
    return value
  })
  return found
}

export const providerScenarios: SliceScenarios<ProviderKnobs> = {
  maxTokens: {
    value: 512,
    outcome: async behavior => (await anthropicRequest(behavior)).body.max_tokens,
    unset: 64_000,
    set: 512,
  },
  cache: {
    value: false,
    outcome: async behavior => cacheControls((await anthropicRequest(behavior)).body).length > 0,
    unset: true,
    set: false,
  },
  cacheTtl: {
    value: '1h',
    outcome: async (behavior) => {
      const request = await anthropicRequest(behavior)
      return { ttl: [...new Set(cacheControls(request.body).map(c => (c as { ttl?: string }).ttl ?? 'none'))], beta: (request.headers['anthropic-beta'] ?? '').includes('extended-cache-ttl') }
    },
    unset: { ttl: ['none'], beta: false },
    set: { ttl: ['1h'], beta: true },
  },
  thinkingBudget: {
    value: 2048,
    outcome: async behavior => (await anthropicRequest(behavior, {}, { thinking: 'high' })).body.thinking,
    unset: { type: 'adaptive' },
    set: { type: 'enabled', budget_tokens: 2048 },
  },
  taskBudget: {
    value: 50_000,
    outcome: async behavior => (await anthropicRequest(behavior, {}, { thinking: 'high' })).body.output_config?.task_budget,
    unset: undefined,
    set: { type: 'tokens', total: 50_000 },
  },
  effortHint: {
    value: false,
    outcome: async behavior => (await anthropicRequest(behavior, {}, { thinking: 'high' })).body.output_config?.effort,
    unset: 'high',
    set: undefined,
  },
  modelOptions: {
    value: { fast: true },
    outcome: async behavior => (await anthropicRequest(behavior)).body.speed,
    unset: undefined,
    set: 'fast',
  },
  contextWindow: {
    value: 1000,
    // Policies read the serving window on their run view; the knob wins over the provider's own figure.
    outcome: async (behavior) => {
      let seen: number | undefined
      const probe = definePolicy({
        name: 'window-probe',
        enabled: (_knobs, run) => {
          seen = run.contextWindow
          return false
        },
      })
      const provider = scriptedProvider([{ text: 'hi' }], { contextWindow: 200_000 })
      await createAgent({ provider, behavior, policies: [probe] }).run({ prompt: 'go' })
      return seen
    },
    unset: 200_000,
    set: 1000,
  },
  modelCatalog: {
    value: { 'acme:m1': { pricing: { input: 2, output: 0 } } },
    outcome: async (behavior) => {
      const provider = scriptedProvider([{ text: 'hi', usage: { input: 1_000_000, output: 0 } }], { name: 'acme', defaultModel: 'm1' })
      return (await createAgent({ provider, behavior }).run({ prompt: 'go' })).cost
    },
    unset: undefined,
    set: 2,
  },
}
