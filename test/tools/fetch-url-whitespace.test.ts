/**
 * htmlToText collapses whitespace without touching the single spaces prose is
 * made of (replacing each with itself cost seconds on a page of megabytes).
 * These properties pin down that the result is still exactly "every run of
 * whitespace becomes one space", for every kind of whitespace JavaScript knows.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { htmlToText } from '../../src/tools/fetch-url/html-to-text'

const SPACE = fc.constantFrom(' ', '  ', '\t', '\n', '\r', '\f', '\v', '\u00A0', '\u2028', '\u3000', '\uFEFF', ' \n ')
const WORD = fc.constantFrom('a', 'bc', 'déf', '\u{1F600}', '-', '.')

describe('htmlToText: whitespace', () => {
  it('turns every whitespace run of plain text into one space, and trims the ends', () => {
    fc.assert(fc.property(fc.array(fc.oneof(SPACE, WORD), { maxLength: 40 }), (parts) => {
      const text = parts.join('')
      expect(htmlToText(text).text).toBe(text.replace(/\s+/g, ' ').trim())
    }), { numRuns: 2000 })
  })

  it('does the same inside link text and image alt text', () => {
    fc.assert(fc.property(fc.array(fc.oneof(SPACE, WORD), { minLength: 1, maxLength: 20 }), (parts) => {
      const text = parts.join('')
      const expected = text.replace(/\s+/g, ' ').trim()
      expect(htmlToText(`<a href="https://x.example/">${text}</a>`).text).toBe(expected === '' ? 'https://x.example/' : `[${expected}](https://x.example/)`)
      expect(htmlToText(`<img alt="${text}">`).text).toBe(expected)
    }), { numRuns: 1000 })
  })

  it('keeps a page of megabytes of prose in one piece', () => {
    const prose = 'lorem ipsum  dolor\tsit amet, '.repeat(100_000)
    const { text } = htmlToText(`<p>${prose}</p>`)
    expect(text).toBe(prose.replace(/\s+/g, ' ').trim())
  })
})
