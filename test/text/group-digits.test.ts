import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groupDigits } from '../../src/text/group-digits'

describe('groupDigits', () => {
  it('writes whole numbers as en-US number formatting does', () => {
    for (const value of [0, 7, 999, 1000, -1000, 65_536, 1_000_000, 67_108_864, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])
      expect(groupDigits(value)).toBe(value.toLocaleString('en-US'))
    fc.assert(fc.property(fc.maxSafeInteger(), value => groupDigits(value) === value.toLocaleString('en-US')), { numRuns: 2000 })
  })

  it('leaves what is not a safe whole number as String writes it', () => {
    for (const value of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(groupDigits(value)).toBe(String(value))
  })
})
