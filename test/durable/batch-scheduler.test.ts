import type { FakeModelServer } from '../../src/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeModelServer } from '../../src/testing'
import { memoryJournal, replayRuntime } from './memory-journal'

let servers: FakeModelServer[] = []
afterEach(async () => {
  await Promise.all(servers.map(server => server.close()))
  servers = []
})

/** A turn calling `waitFor` for each of `ids`, then an answer. */
async function serve(ids: string[]) {
  const server = await startFakeModelServer({ script: [{ toolCalls: ids.map(id => ({ id, name: 'job', input: { id } })) }, { text: 'done' }] })
  servers.push(server)
  return server
}

describe('the journaled batch scheduler of a replay-mode run', () => {
  it('keeps parallel calls parallel: two calls that each wait for the other both finish', async () => {
    const server = await serve(['a', 'b'])
    const started = new Set<string>()
    let bothStarted!: () => void
    const together = new Promise<void>((resolve) => {
      bothStarted = resolve
    })
    const job = tool({
      name: 'job',
      description: 'A job',
      input: z.object({ id: z.string() }),
      isConcurrencySafe: true,
      execute: async ({ id }) => {
        started.add(id)
        if (started.size === 2)
          bothStarted()
        // Run one after the other and this never resolves: the guard below fails the call instead.
        await Promise.race([together, new Promise((_, reject) => setTimeout(() => reject(new Error('ran alone')), 2000))])
        return `${id} done`
      },
    })
    const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: { job }, durable: replayRuntime(memoryJournal()) })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(server.requests[1].toolResults).toEqual(['a done', 'b done'])
  })

  it('frees a window slot in call order, not in finishing order, so every execution starts the calls in one order', async () => {
    const server = await serve(['slow', 'fast', 'third'])
    const events: string[] = []
    const delays: Record<string, number> = { slow: 120, fast: 5, third: 5 }
    const job = tool({
      name: 'job',
      description: 'A job',
      input: z.object({ id: z.string() }),
      isConcurrencySafe: true,
      execute: async ({ id }) => {
        events.push(`start ${id}`)
        await new Promise(resolve => setTimeout(resolve, delays[id]))
        events.push(`end ${id}`)
        return id
      },
    })
    const agent = createAgent({
      provider: anthropic({ baseURL: server.url, apiKey: 'fake' }),
      tools: { job },
      behavior: { maxConcurrentTools: 2 },
      durable: replayRuntime(memoryJournal()),
    })
    await agent.run({ prompt: 'go' })
    // `fast` finished long before `slow`, but the third call waited for the first call's slot.
    expect(events).toEqual(['start slow', 'start fast', 'end fast', 'end slow', 'start third', 'end third'])
  })
})
