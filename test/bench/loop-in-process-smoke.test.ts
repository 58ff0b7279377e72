import { describe, expect, it } from 'vitest'
import { loopInProcess } from '../../bench/loop-in-process'

// The in-process loop comparison on short runs: the server answers only the
// recording run, every measured request is answered from the recordings
// through Node's own fetch, both loops finish their turns, and the process's
// dispatcher is given back. No timing is compared with anything.

describe.each([
  ['anthropic', 1],
  ['openai-chat', 3],
] as const)('loop-in-process smoke: %s, %i call(s) per turn', (provider, callsPerTurn) => {
  it('runs both loops without the server and gives the dispatcher back', async () => {
    const dispatcherKey = Symbol.for('undici.globalDispatcher.1')
    // Node's fetch sets its default dispatcher on first use: one request first, so there is one to give back.
    await fetch('data:,ready')
    const before = (globalThis as Record<symbol, unknown>)[dispatcherKey]
    expect(before).toBeDefined()
    const result = await loopInProcess({ provider, callsPerTurn, turns: 4, warmRuns: 1, runs: 2, print: false })
    expect(result.turns).toBe(4)
    expect(result.serverRequestsWhileMeasured).toBe(0)
    expect(result.floor).toBeGreaterThan(0)
    expect(result.zidane).toBeGreaterThan(0)
    expect(Number.isFinite(result.ratio)).toBe(true)
    expect((globalThis as Record<symbol, unknown>)[dispatcherKey]).toBe(before)
  }, 60_000)
})
