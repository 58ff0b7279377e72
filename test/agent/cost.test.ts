import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { setModelCatalog } from '../../src/providers'
import { scriptedProvider } from '../../src/testing'

afterEach(() => setModelCatalog(undefined))

const usage = { input: 1_000_000, output: 1_000_000 }

describe('turn cost from the model catalog', () => {
  it('prices a provider that reports no cost, and stamps the provider on the usage', async () => {
    const provider = scriptedProvider([{ text: 'hi', usage }], { name: 'openai', defaultModel: 'gpt-4o' })
    const stats = await createAgent({ provider }).run({ prompt: 'go' })
    expect(stats.turnUsage?.[0].provider).toBe('openai')
    expect(stats.cost).toBeGreaterThan(0)
  })

  it('consults the run catalog, then the agent catalog, then the process-wide one', async () => {
    const table = (input: number) => ({ 'acme:m1': { pricing: { input, output: 0 } } })
    const run = async (options: { agent?: number, run?: number }) => {
      const provider = scriptedProvider([{ text: 'hi', usage }], { name: 'acme', defaultModel: 'm1' })
      const agent = createAgent({ provider, behavior: options.agent === undefined ? undefined : { modelCatalog: table(options.agent) } })
      return (await agent.run({ prompt: 'go', behavior: options.run === undefined ? undefined : { modelCatalog: table(options.run) } })).cost
    }
    expect(await run({})).toBeUndefined()
    setModelCatalog(table(1))
    expect(await run({})).toBe(1)
    expect(await run({ agent: 2 })).toBe(2)
    expect(await run({ agent: 2, run: 3 })).toBe(3)
  })

  it('never replaces a cost the provider reported', async () => {
    const provider = scriptedProvider([{ text: 'hi', usage: { ...usage, cost: 0.42 } }], { name: 'openai', defaultModel: 'gpt-4o' })
    expect((await createAgent({ provider }).run({ prompt: 'go' })).cost).toBe(0.42)
  })
})
