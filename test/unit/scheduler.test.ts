import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runToolCallsInOrder } from '../../src/loop/scheduler'

async function ticks(n: number) {
  for (let i = 0; i < n; i++)
    await Promise.resolve()
}

/** Run a schedule and record what overlapped what. */
async function simulate(calls: { safe: boolean, ticks: number }[], limit: number) {
  let inFlight = 0
  let maxInFlight = 0
  let unsafeRunning = false
  const violations: string[] = []
  const finished: number[] = []
  const results = await runToolCallsInOrder(calls.length, i => calls[i].safe, async (i) => {
    if (unsafeRunning)
      violations.push(`call ${i} started while an unsafe call ran`)
    if (!calls[i].safe && inFlight > 0)
      violations.push(`unsafe call ${i} started with ${inFlight} in flight`)
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    if (!calls[i].safe)
      unsafeRunning = true
    await ticks(calls[i].ticks)
    if (!calls[i].safe)
      unsafeRunning = false
    inFlight--
    finished.push(i)
    return `result ${i}`
  }, limit)
  return { results, maxInFlight, violations, finished }
}

describe('runToolCallsInOrder', () => {
  it('returns nothing for no calls', async () => {
    expect(await runToolCallsInOrder(0, () => true, async () => 'x', 3)).toEqual([])
  })

  it('fills a sliding window: a finished call frees its slot at once', async () => {
    // Call 0 is slow; calls 1..3 are quick. With a limit of 2, call 2 must start
    // as soon as call 1 finishes, not wait for call 0.
    const { finished } = await simulate([{ safe: true, ticks: 40 }, { safe: true, ticks: 1 }, { safe: true, ticks: 1 }, { safe: true, ticks: 1 }], 2)
    expect(finished).toEqual([1, 2, 3, 0])
  })

  it.each([0, -2, Number.NaN, 0.5])('clamps limit %s to 1', async (limit) => {
    const { maxInFlight } = await simulate([{ safe: true, ticks: 3 }, { safe: true, ticks: 3 }, { safe: true, ticks: 3 }], limit)
    expect(maxInFlight).toBe(1)
  })

  it('keeps call order, the limit and unsafe barriers for any schedule', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ safe: fc.boolean(), ticks: fc.integer({ min: 0, max: 12 }) }), { maxLength: 12 }),
      fc.integer({ min: -1, max: 6 }),
      async (calls, limit) => {
        const { results, maxInFlight, violations } = await simulate(calls, limit)
        expect(results).toEqual(calls.map((_, i) => `result ${i}`))
        expect(maxInFlight).toBeLessThanOrEqual(Math.max(1, limit))
        expect(violations).toEqual([])
        // With room for them, consecutive safe calls do overlap.
        const longestSafeRun = Math.max(0, ...calls.map((_, i) => {
          let n = 0
          while (calls[i + n]?.safe) n++
          return n
        }))
        if (longestSafeRun >= 2 && limit >= 2 && calls.every(call => call.ticks > 0))
          expect(maxInFlight).toBeGreaterThanOrEqual(2)
      },
    ), { numRuns: 200 })
  })
})
