/**
 * htmlToText on link targets written to slip past its filters: script schemes
 * hidden by characters the URL parser drops, and hrefs the parser cannot read
 * that carry the converter's `<pre>` sentinels or line breaks.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { htmlToText } from '../../src/tools/fetch-url/html-to-text'

const BASE = 'https://site.example/dir/'
const SCRIPT_TARGET = /\]\((?:javascript|data|vbscript):/i

describe('htmlToText: hostile link targets', () => {
  it('drops script links whose scheme only shows once tabs, line breaks or control characters are removed', () => {
    for (const href of ['java&#x09;script:alert(1)', 'java\nscript:alert(1)', '&#1;javascript:alert(1)', 'v&#13;bscript:x', 'da&#10;ta:text/html,x'])
      expect(htmlToText(`<a href="${href}">go</a>`, BASE).text).toBe('go')
  })

  it('keeps an href it cannot parse as page text: no <pre> sentinel, no line break', () => {
    const { text } = htmlToText('<a href="http://[&#2;\n&#1;x">x</a><p>c</p><p></p><p></p><p>   d</p>', BASE)
    expect(text).toBe('[x](http://[ x)\n\nc\n\nd')
  })

  it('never emits a script link or a sentinel, whatever the href is made of', () => {
    const piece = fc.constantFrom('java', 'script', 'vb', 'data', ':', '&#9;', '&#10;', '&#1;', '&#2;', '\u0001', '\u0002', '\n', ' ', 'http://[', 'x', '/', '#')
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
      const { text } = htmlToText(`<a href="${parts.join('')}">t</a><p>a</p><p></p><p></p><p>b</p>`, BASE)
      expect(text).not.toMatch(SCRIPT_TARGET)
      expect(text.includes('\u0001') || text.includes('\u0002')).toBe(false)
      expect(text).not.toContain('\n\n\n')
    }), { numRuns: 1000 })
  })
})
