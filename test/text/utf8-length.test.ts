import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utf8ByteLength } from '../../src/text/utf8-length'

describe('utf8ByteLength', () => {
  it('counts what TextEncoder writes, for any string (lone surrogates as U+FFFD)', () => {
    const encoder = new TextEncoder()
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => {
      expect(utf8ByteLength(text)).toBe(encoder.encode(text).length)
    }), { numRuns: 1000 })
  })

  it('counts one byte per ASCII character, two to four beyond it, three for a broken surrogate', () => {
    expect(utf8ByteLength('')).toBe(0)
    expect(utf8ByteLength('abc')).toBe(3)
    expect(utf8ByteLength('caf\u00E9')).toBe(5)
    expect(utf8ByteLength('\u20AC')).toBe(3)
    expect(utf8ByteLength('\u{1F600}')).toBe(4)
    expect(utf8ByteLength('a\uD800')).toBe(4)
    expect(utf8ByteLength('\uDC00\uD800')).toBe(6)
  })
})
