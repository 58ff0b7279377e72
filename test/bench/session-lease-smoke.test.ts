import { describe, expect, it } from 'vitest'
import { sessionLease } from '../../bench/session-lease'

// The session-lease benchmark in a small mode, for correctness only: every
// acquire it timed was granted, in every variant. No timing is asserted.

describe('session-lease benchmark, small mode', () => {
  it('times acquire + release in every variant, each acquire granted', async () => {
    const results = await sessionLease({ rounds: 2, pairs: 3, print: false })
    expect(results.map(result => result.variant)).toEqual([
      'baseline: writeFileSync + unlinkSync',
      'file store, new session',
      'file store, same session again',
      'file store, session handle',
      'memory store, session handle',
    ])
    for (const result of results)
      expect(result.granted, result.variant).toBe(6)
  }, 60_000)
})
