import { describe, expect, it } from 'vitest'
import { defaultRunEffects } from '../../src/core/effects'
import { backoffDelay, resolveRetry, sleep } from '../../src/loop/backoff'

const defaults = { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 30_000 }

describe('resolveRetry', () => {
  it('fills the defaults', () => {
    expect(resolveRetry(undefined)).toEqual(defaults)
    expect(resolveRetry({})).toEqual(defaults)
  })

  it('keeps valid values', () => {
    expect(resolveRetry({ maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 })).toEqual({ maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 })
    expect(resolveRetry({ maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 5_000 })).toEqual({ maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 5_000 })
  })

  it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])('falls back to 3 attempts for maxAttempts %s', (maxAttempts) => {
    expect(resolveRetry({ maxAttempts }).maxAttempts).toBe(3)
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('falls back to the default delays for %s', (value) => {
    expect(resolveRetry({ initialDelayMs: value, maxDelayMs: value })).toEqual(defaults)
  })
})

describe('backoffDelay', () => {
  const almostOne = () => 0.999

  it('doubles the ceiling: 1 s, 2 s, 4 s with full jitter', () => {
    expect(backoffDelay(1, defaults, undefined, almostOne)).toBe(999)
    expect(backoffDelay(2, defaults, undefined, almostOne)).toBe(1_998)
    expect(backoffDelay(3, defaults, undefined, almostOne)).toBe(3_996)
  })

  it('draws from zero up to the ceiling', () => {
    expect(backoffDelay(3, defaults, undefined, () => 0)).toBe(0)
    expect(backoffDelay(3, defaults, undefined, () => 0.5)).toBe(2_000)
  })

  it('caps the exponential schedule at maxDelayMs', () => {
    expect(backoffDelay(10, defaults, undefined, almostOne)).toBe(29_970)
    expect(backoffDelay(3, { ...defaults, maxDelayMs: 1_500 }, undefined, almostOne)).toBe(1_498)
  })

  it('uses retry-after when given, capped by maxDelayMs', () => {
    expect(backoffDelay(1, defaults, 4_321, almostOne)).toBe(4_321)
    expect(backoffDelay(1, defaults, 0, almostOne)).toBe(0)
    expect(backoffDelay(1, defaults, 90_000, almostOne)).toBe(30_000)
  })

  it('ignores an invalid retry-after', () => {
    expect(backoffDelay(1, defaults, -5, almostOne)).toBe(999)
    expect(backoffDelay(1, defaults, Number.NaN, almostOne)).toBe(999)
  })

  it('stays within the ceiling with the default effects\' random numbers', () => {
    const { random } = defaultRunEffects()
    for (let i = 0; i < 50; i++) {
      const delay = backoffDelay(2, defaults, undefined, random)
      expect(delay).toBeGreaterThanOrEqual(0)
      expect(delay).toBeLessThan(2_000)
    }
  })
})

describe('sleep', () => {
  it('resolves after the delay', async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined()
  })

  it('rejects with the abort reason, already aborted or aborted while waiting', async () => {
    await expect(sleep(10, AbortSignal.abort('before'))).rejects.toBe('before')
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort('during')
    await expect(waiting).rejects.toBe('during')
  })
})
