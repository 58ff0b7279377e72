import { describe, expect, it } from 'vitest'
import { memoryConcurrent, memoryPeak } from '../../bench/memory'

// The memory benchmark in a small mode, for correctness only: one fresh
// process per loop and mode runs the 50-turn scenario to the end, and three
// waves of 20 agents at once in one child process, sharing one caller
// AbortSignal, all complete with the expected stop reason and turns while
// Node prints no warning. No heap figure is compared with a target.

describe('memory benchmark, small mode', () => {
  it('measures one 50-turn run of each loop to the end', async () => {
    const result = await memoryPeak({ runs: 1, print: false })
    expect(result.correct).toBe(true)
    // Both loops report what a turn adds to the kept heap (a figure, not asserted against a target).
    expect(Number.isFinite(result.floor.keptPerTurn)).toBe(true)
    expect(Number.isFinite(result.zidane.keptPerTurn)).toBe(true)
  }, 60_000)

  it('runs 20 concurrent agents on one shared signal to completion without a warning', async () => {
    const result = await memoryConcurrent({ runs: 20, turns: 3, print: false })
    expect(result.runs).toBe(20)
    expect(result.completed).toBe(20)
    expect(result.warnings).toEqual([])
  }, 60_000)
})
