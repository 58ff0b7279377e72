import { describe, expect, it } from 'vitest'
import { activeLimit, resolveBehavior } from '../../src/knobs/behavior'

describe('resolveBehavior', () => {
  it('lets each run key win and merges extensions one level deep', () => {
    const agent = { maxTurns: 5, maxCostUsd: 2, extensions: { a: 1, nested: { x: 1 } } }
    const run = { maxTurns: 9, extensions: { nested: { y: 2 }, b: 2 } }
    expect(resolveBehavior(agent, run)).toEqual({ maxTurns: 9, maxCostUsd: 2, extensions: { a: 1, nested: { y: 2 }, b: 2 } })
  })

  it('ignores undefined run keys', () => {
    expect(resolveBehavior({ maxTurns: 5 }, { maxTurns: undefined })).toEqual({ maxTurns: 5 })
  })

  it('does not share the agent object', () => {
    const agent = { maxTurns: 5 }
    const resolved = resolveBehavior(agent, undefined)
    expect(resolved).toEqual(agent)
    expect(resolved).not.toBe(agent)
    expect(resolveBehavior(undefined, undefined)).toEqual({})
  })
})

describe('activeLimit', () => {
  it('is on only for positive finite numbers', () => {
    expect(activeLimit(3)).toBe(3)
    expect(activeLimit(0.5)).toBe(0.5)
    for (const off of [undefined, 0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(activeLimit(off)).toBeUndefined()
  })
})
