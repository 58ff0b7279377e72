import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { truncateText, truncateTextTail, truncateTextToUtf8, truncateUtf8, truncateUtf8Tail, utf8BoundaryAtOrAfter, utf8BoundaryAtOrBefore } from '../../src/text/truncate'
import { isWellFormed, loneSurrogatePositions, unicodeText } from '../support/unicode'

const strict = new TextDecoder('utf-8', { fatal: true })
const encode = (text: string) => Buffer.from(text, 'utf8')
const limit = fc.integer({ min: -2, max: 120 })

describe('truncateText / truncateTextTail (UTF-16 units)', () => {
  it('keeps surrogate pairs whole at the cut', () => {
    expect(truncateText('ab😀c', 3)).toBe('ab')
    expect(truncateText('ab😀c', 4)).toBe('ab😀')
    expect(truncateTextTail('a😀bc', 3)).toBe('bc')
    expect(truncateTextTail('a😀bc', 4)).toBe('😀bc')
    expect(truncateText('abc', 0)).toBe('')
    expect(truncateTextTail('abc', -1)).toBe('')
  })

  it('a prefix is a prefix, within the limit, at most one unit short, and adds no lone surrogate', () => {
    fc.assert(fc.property(unicodeText({ lone: true }), limit, (text, max) => {
      const cut = truncateText(text, max)
      expect(text.startsWith(cut)).toBe(true)
      expect(cut.length).toBeLessThanOrEqual(Math.max(0, max))
      expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, Math.max(0, max)) - 1)
      expect(loneSurrogatePositions(cut)).toEqual(loneSurrogatePositions(text).filter(at => at < cut.length))
    }), { numRuns: 500 })
  })

  it('a tail is a suffix, within the limit, at most one unit short, and adds no lone surrogate', () => {
    fc.assert(fc.property(unicodeText({ lone: true }), limit, (text, max) => {
      const cut = truncateTextTail(text, max)
      const offset = text.length - cut.length
      expect(text.endsWith(cut)).toBe(true)
      expect(cut.length).toBeLessThanOrEqual(Math.max(0, max))
      expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, Math.max(0, max)) - 1)
      expect(loneSurrogatePositions(cut).map(at => at + offset)).toEqual(loneSurrogatePositions(text).filter(at => at >= offset))
    }), { numRuns: 500 })
  })

  it('well-formed input gives well-formed output', () => {
    fc.assert(fc.property(unicodeText(), limit, (text, max) => {
      expect(isWellFormed(truncateText(text, max))).toBe(true)
      expect(isWellFormed(truncateTextTail(text, max))).toBe(true)
    }), { numRuns: 300 })
  })
})

describe('truncateUtf8 / truncateUtf8Tail (UTF-8 bytes)', () => {
  it('cuts before or after a whole sequence', () => {
    const bytes = encode('a€😀') // 61 | e2 82 ac | f0 9f 98 80
    expect([...truncateUtf8(bytes, 3)]).toEqual([0x61])
    expect(truncateUtf8(bytes, 4).toString()).toBe('a€')
    expect(truncateUtf8(bytes, 7).toString()).toBe('a€')
    expect(truncateUtf8Tail(bytes, 6).toString()).toBe('😀')
    expect(truncateUtf8Tail(bytes, 7).toString()).toBe('€😀')
    expect(utf8BoundaryAtOrBefore(bytes, 2)).toBe(1)
    expect(utf8BoundaryAtOrAfter(bytes, 5)).toBe(8)
  })

  it('a byte prefix of any text decodes strictly, is a prefix, and is at most three bytes short', () => {
    fc.assert(fc.property(unicodeText({ lone: true }), limit, (text, max) => {
      const bytes = encode(text)
      const cut = truncateUtf8(bytes, max)
      expect(bytes.subarray(0, cut.length).equals(cut)).toBe(true)
      expect(cut.length).toBeLessThanOrEqual(Math.max(0, max))
      expect(cut.length).toBeGreaterThanOrEqual(Math.min(bytes.length, Math.max(0, max)) - 3)
      expect(() => strict.decode(cut)).not.toThrow()
      expect(bytes.toString().startsWith(cut.toString())).toBe(true)
    }), { numRuns: 500 })
  })

  it('a byte tail of any text decodes strictly, is a suffix, and is at most three bytes short', () => {
    fc.assert(fc.property(unicodeText({ lone: true }), limit, (text, max) => {
      const bytes = encode(text)
      const cut = truncateUtf8Tail(bytes, max)
      expect(bytes.subarray(bytes.length - cut.length).equals(cut)).toBe(true)
      expect(cut.length).toBeLessThanOrEqual(Math.max(0, max))
      expect(cut.length).toBeGreaterThanOrEqual(Math.min(bytes.length, Math.max(0, max)) - 3)
      expect(() => strict.decode(cut)).not.toThrow()
      expect(bytes.toString().endsWith(cut.toString())).toBe(true)
    }), { numRuns: 500 })
  })

  it('never cuts a valid sequence even among invalid bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), unicodeText(), limit, (noise, text, max) => {
      const bytes = Buffer.concat([Buffer.from(noise), encode(text)])
      const cut = truncateUtf8(bytes, max)
      expect(cut.length).toBeLessThanOrEqual(Math.max(0, max))
      // Whatever the noise decodes to, the text's characters before the cut come out intact.
      expect(bytes.toString().startsWith(cut.toString().replace(/\uFFFD+$/, ''))).toBe(true)
    }), { numRuns: 300 })
  })

  it('truncateTextToUtf8 keeps a string within a byte budget on a character boundary', () => {
    fc.assert(fc.property(unicodeText(), limit, (text, max) => {
      const cut = truncateTextToUtf8(text, max)
      expect(text.startsWith(cut)).toBe(true)
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(Math.max(0, max))
      expect(Buffer.byteLength(cut)).toBeGreaterThanOrEqual(Math.min(Buffer.byteLength(text), Math.max(0, max)) - 3)
      expect(isWellFormed(cut)).toBe(true)
    }), { numRuns: 300 })
  })
})
