import type { AgentStats, TurnUsage } from '../../src/core/stats'
import { describe, expect, it } from 'vitest'
import { flattenTurns, statsByModel } from '../../src/core/stats'

function stats(turnUsage: TurnUsage[] | undefined, children: AgentStats['children'] = undefined): AgentStats {
  return { turns: turnUsage?.length ?? 0, totalIn: 0, totalOut: 0, totalCacheRead: 0, totalCacheCreation: 0, elapsed: 0, text: '', stopReason: 'completed', turnUsage, children }
}

const turn = (modelId: string | undefined, input: number, extra: Partial<TurnUsage> = {}): TurnUsage => ({ input, output: input / 10, modelId, ...extra })

describe('flattenTurns', () => {
  it('lists the parent turns, then each child subtree depth first', () => {
    const grandchild = stats([turn('g', 1)])
    const childA = stats([turn('a', 2)], [{ id: 'gc', task: 't', stats: grandchild }])
    const childB = stats([turn('b', 3)])
    const root = stats([turn('p', 4), turn('p', 5)], [{ id: 'a', task: 't', stats: childA }, { id: 'b', task: 't', stats: childB }])
    expect(flattenTurns(root).map(t => t.input)).toEqual([4, 5, 2, 1, 3])
  })

  it('copes with missing turnUsage', () => {
    expect(flattenTurns(stats(undefined))).toEqual([])
    expect(flattenTurns(stats(undefined, [{ id: 'c', task: 't', stats: stats([turn('m', 7)]) }])).map(t => t.input)).toEqual([7])
  })
})

describe('statsByModel', () => {
  it('sums usage per model across the tree, with an (unknown) bucket', () => {
    const child = stats([turn('small', 10, { cost: 0.5, cacheRead: 4 }), turn(undefined, 30)])
    const root = stats(
      [turn('big', 100, { cost: 1, cacheCreation: 2 }), turn('small', 20, { cacheRead: 1 })],
      [{ id: 'c', task: 't', stats: child }],
    )
    const byModel = statsByModel(root)
    expect([...byModel.keys()]).toEqual(['big', 'small', '(unknown)'])
    expect(byModel.get('big')).toEqual({ input: 100, output: 10, cacheRead: 0, cacheCreation: 2, cost: 1, turns: 1 })
    expect(byModel.get('small')).toEqual({ input: 30, output: 3, cacheRead: 5, cacheCreation: 0, cost: 0.5, turns: 2 })
    expect(byModel.get('(unknown)')).toEqual({ input: 30, output: 3, cacheRead: 0, cacheCreation: 0, cost: 0, turns: 1 })
  })

  it('adds side calls (a compaction summary) to the tokens and cost of their model, not to its turns', () => {
    const child = { ...stats([turn('small', 10)]), sideCalls: [{ ...turn('small', 40, { cost: 0.25 }), purpose: 'compact', turn: 1 }] }
    const root = { ...stats([turn('big', 100, { cost: 1 })], [{ id: 'c', task: 't', stats: child }]), sideCalls: [{ ...turn('big', 50, { cost: 0.5, cacheRead: 7 }), purpose: 'compact', turn: 1 }] }
    const byModel = statsByModel(root)
    expect(byModel.get('big')).toEqual({ input: 150, output: 15, cacheRead: 7, cacheCreation: 0, cost: 1.5, turns: 1 })
    expect(byModel.get('small')).toEqual({ input: 50, output: 5, cacheRead: 0, cacheCreation: 0, cost: 0.25, turns: 1 })
    expect(flattenTurns(root).map(t => t.input)).toEqual([100, 10])
  })

  it('is empty for a run without turns', () => {
    expect(statsByModel(stats([])).size).toBe(0)
  })
})
