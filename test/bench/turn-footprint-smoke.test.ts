import { describe, expect, it } from 'vitest'
import { originOf, turnFootprint } from '../../bench/turn-footprint'

// The turn-footprint benchmark on a short run: both loops finish their turns
// and the counts land where they belong (zidane's source counted for zidane
// only, the SDK and Node for both). The figures themselves are the
// benchmark's (npm run bench); none is compared with a target here.

describe('turn-footprint benchmark, small mode', () => {
  it('counts the calls of both loops per turn, by where the code lives', async () => {
    const result = await turnFootprint({ turns: 4, warmRuns: 1, countedRuns: 2, print: false })
    expect(result.floor.turns).toBe(8)
    expect(result.zidane.turns).toBe(8)
    // No zidane function runs in the floor's turns (a module zidane loads lazily may finish loading meanwhile).
    expect(result.floor.byOrigin.zidane.functions).toBe(0)
    expect(result.floor.byOrigin.zidane.calls).toBeLessThan(1)
    expect(result.zidane.byOrigin.zidane.functions).toBeGreaterThan(0)
    expect(result.zidane.zidaneFiles.some(entry => entry.file === 'src/loop/run-loop.ts')).toBe(true)
    for (const loop of [result.floor, result.zidane]) {
      expect(loop.byOrigin.SDK.calls).toBeGreaterThan(0)
      expect(loop.byOrigin.Node.functions).toBeGreaterThan(0)
      expect(loop.calls).toBeGreaterThanOrEqual(loop.functions)
    }
  }, 60_000)

  it('tells where a script lives from its URL', () => {
    expect(originOf('node:internal/deps/undici/undici')).toBe('Node')
    expect(originOf('file:///repo/node_modules/@anthropic-ai/sdk/client.mjs')).toBe('SDK')
    expect(originOf('file:///repo/node_modules/openai/client.mjs')).toBe('SDK')
    expect(originOf('file:///repo/node_modules/hookable/dist/index.mjs')).toBe('other packages')
    expect(originOf('file:///repo/src/loop/run-loop.ts')).toBe('zidane')
    expect(originOf('file:///repo/bench/floor-loop.ts')).toBe('loop code (bench)')
    expect(originOf('')).toBeUndefined()
  })
})
