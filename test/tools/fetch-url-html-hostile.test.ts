/**
 * htmlToText on markup written to hurt: deep nesting, tags and comments that
 * never close, huge attributes, floods of entities. Nothing here asserts on
 * time; the sizes are chosen so that quadratic work would run past the
 * per-test timeout, which is only a hang guard.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { htmlToText } from '../../src/tools/fetch-url/html-to-text'

const BASE = 'https://site.example/'

describe('htmlToText: adversarial markup', () => {
  it('flattens 50,000 nested links instead of re-wrapping the text at each close', () => {
    const depth = 50_000
    const { text } = htmlToText(`${'<a href=/x>a'.repeat(depth)}${'</a>'.repeat(depth)}`, BASE)
    // A link never holds another: each start tag closes the link before it, as in a browser.
    expect(text.split('](https://site.example/x)').length - 1).toBe(depth)
    expect(text).not.toContain('[[')
    expect(text.startsWith('[a](https://site.example/x)[a](https://site.example/x)')).toBe(true)
  })

  it('reads 100,000 nested <div>s, <ol>s and <pre>s without recursion', () => {
    const depth = 100_000
    expect(htmlToText(`${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}`).text).toBe('x')
    expect(htmlToText(`${'<ol><li>'.repeat(depth)}x${'</ol>'.repeat(depth)}`).text.endsWith('1. x')).toBe(true)
    expect(htmlToText(`${'<pre>'.repeat(depth)}x${'</pre>'.repeat(depth)}`).text).toBe('x')
  })

  it('drops the rest of the page after a <script>, <style> or comment that never closes', () => {
    const tail = '</x><p>'.repeat(100_000)
    expect(htmlToText(`<p>before</p><script>${tail}`).text).toBe('before')
    expect(htmlToText(`<p>before</p><style>${tail}`).text).toBe('before')
    expect(htmlToText(`<p>before</p><!--${tail}`).text).toBe('before')
    expect(htmlToText(`<p>before</p><a href="${tail}`).text).toBe('before')
  })

  it('keeps a 10 MB attribute as one value and decodes a million entities', () => {
    const href = `/${'x'.repeat(10 * 1024 * 1024)}`
    const { text } = htmlToText(`<a href="${href}">big</a>`, BASE)
    expect(text).toBe(`[big](https://site.example${href})`)
    expect(htmlToText('&amp;'.repeat(1_000_000)).text).toBe('&'.repeat(1_000_000))
  })

  it('turns out-of-range and surrogate character references into U+FFFD, never a lone surrogate', () => {
    const { text } = htmlToText('<p>&#x110000;&#xD800;&#xDFFF;&#55296;&#0;&#9999999;</p>')
    expect(text).toBe('\uFFFD'.repeat(6))
    expect(encodeURIComponent(text)).toBe('%EF%BF%BD'.repeat(6))
  })

  it('never lets page text reach for the <pre> sentinels (raw or as &#1; / &#2;)', () => {
    const { text } = htmlToText(`<p>a</p>\u0001&#1;${'<div>'.repeat(1000)}<p>b  \u0002&#2;  c</p><img alt="\u0001x">`)
    expect(text).toBe('a\n\nb c\n\nx')
  })

  it('keeps any mix of fragments free of sentinels and, outside <pre>, of untrimmed lines and blank-line runs', () => {
    const fragment = fc.constantFrom(
      '<a href=/x>',
      '<a href="/y">',
      '</a>',
      '<div>',
      '</div>',
      '<p>',
      '</p>',
      '<br>',
      '<li>',
      '<ul>',
      '</ul>',
      '<h2>',
      '</h2>',
      '<script>',
      '</script>',
      '<!--',
      '-->',
      '<img alt=" i ">',
      'text',
      '  ',
      '\n',
      '\u0001',
      '\u0002',
      '&#1;',
      '&#2;',
      '&nbsp;',
      '<',
      '>',
      '&',
    )
    fc.assert(fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => {
      const { text } = htmlToText(parts.join(''), BASE)
      expect(text.includes('\u0001') || text.includes('\u0002')).toBe(false)
      expect(text).not.toContain('\n\n\n')
      for (const line of text.split('\n'))
        expect(line).toBe(line.trim())
    }), { numRuns: 500 })
  })
})
