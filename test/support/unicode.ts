/**
 * Random Unicode for the truncation properties: ASCII, BMP letters, astral
 * code points (surrogate pairs in UTF-16, four bytes in UTF-8), combining
 * marks, multi-code-point emoji, and optionally lone surrogates.
 */

import fc from 'fast-check'

const pieces = [
  fc.constantFrom('a', 'Z', '0', '-', '.'),
  fc.integer({ min: 0xA1, max: 0xD7FF }).map(code => String.fromCharCode(code)),
  fc.integer({ min: 0x10000, max: 0x10FFFF }).map(code => String.fromCodePoint(code)),
  fc.integer({ min: 0x300, max: 0x36F }).map(code => String.fromCharCode(code)),
  fc.constantFrom('😀', '🧑‍💻', '👍🏽', '🇸🇮', 'é', '漢', '€', '𝄞'),
]

const loneSurrogate = fc.integer({ min: 0xD800, max: 0xDFFF }).map(code => String.fromCharCode(code))

/** Text of up to `maxPieces` pieces; with `lone`, lone surrogates too. Never whitespace, U+FFFD or line breaks. */
export function unicodeText(options: { lone?: boolean, minPieces?: number, maxPieces?: number } = {}): fc.Arbitrary<string> {
  const piece = options.lone ? fc.oneof(...pieces, loneSurrogate) : fc.oneof(...pieces)
  return fc.array(piece, { minLength: options.minPieces ?? 0, maxLength: options.maxPieces ?? 40 })
    .map(parts => parts.join('').replaceAll('\uFFFD', 'x'))
}

/** True when `text` holds no lone surrogate (what a JSON body and an API accept). */
export function isWellFormed(text: string): boolean {
  return loneSurrogatePositions(text).length === 0
}

/** Indices of the lone surrogates in `text`. */
export function loneSurrogatePositions(text: string): number[] {
  const found: number[] = []
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xDC00 && next <= 0xDFFF)
        i++
      else
        found.push(i)
    }
    else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      found.push(i)
    }
  }
  return found
}
