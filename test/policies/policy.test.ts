import { describe, expect, it } from 'vitest'
import { createAgent, definePolicy } from '../../src'
import { runPolicyScript, scriptedProvider } from '../../src/testing'

/** A policy that records the serving model and window it is shown, and stays out of the run. */
function windowProbe(seen: { model?: string, window?: number }[]) {
  return definePolicy({
    name: 'window-probe',
    enabled: (_knobs, run) => {
      seen.push({ model: run.model, window: run.contextWindow })
      return false
    },
  })
}

describe('the serving window on the policy view', () => {
  it('comes from the provider when no knob or catalog entry says otherwise', async () => {
    const seen: { model?: string, window?: number }[] = []
    const provider = scriptedProvider([{ text: 'hi' }], { defaultModel: 'm1', contextWindow: 64_000 })
    await createAgent({ provider, policies: [windowProbe(seen)] }).run({ prompt: 'go' })
    expect(seen).toEqual([{ model: 'm1', window: 64_000 }])
  })

  it('takes a catalog entry over the provider, and the knob over both', async () => {
    const seen: { model?: string, window?: number }[] = []
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }], { name: 'acme', defaultModel: 'm1', contextWindow: 64_000 })
    const agent = createAgent({ provider, policies: [windowProbe(seen)], behavior: { modelCatalog: { 'acme:m1': { contextWindow: 32_000 } } } })
    await agent.run({ prompt: 'go' })
    await agent.run({ prompt: 'again', behavior: { contextWindow: 8000 } })
    expect(seen.map(s => s.window)).toEqual([32_000, 8000])
  })

  it('is what runPolicyScript shows, with the knob winning over the scripted provider side', async () => {
    const seen: { model?: string, window?: number }[] = []
    await runPolicyScript(windowProbe(seen), { steps: [], model: 'scripted-big', contextWindow: 200_000 })
    await runPolicyScript(windowProbe(seen), { steps: [], contextWindow: 200_000, behavior: { contextWindow: 1000 } })
    await runPolicyScript(windowProbe(seen), { steps: [] })
    expect(seen).toEqual([
      { model: 'scripted-big', window: 200_000 },
      { model: 'scripted', window: 1000 },
      { model: 'scripted', window: undefined },
    ])
  })
})
