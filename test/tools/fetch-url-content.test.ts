import { describe, expect, it } from 'vitest'
import { createFetchCache } from '../../src/tools/fetch-url'
import { htmlToText } from '../../src/tools/fetch-url/html-to-text'

describe('htmlToText', () => {
  it('drops scripts, styles, comments and other non-content elements', () => {
    const { text } = htmlToText(`<p>keep</p><script>if (a < b) { x = "</p>" }</script><style>p{}</style>
      <!-- hidden comment --><noscript>enable js</noscript><template><p>tpl</p></template><svg><text>chart</text></svg><p>also</p>`)
    expect(text).toBe('keep\n\nalso')
  })

  it('keeps links as [text](absolute url), skipping anchors and script links', () => {
    const { text } = htmlToText(
      '<p><a href="/a?x=1&amp;y=2">First</a>, <a href="https://other.example/b">https://other.example/b</a>, <a href="#top">top</a>, <a href="javascript:void(0)">js</a></p>',
      'https://site.example/dir/page',
    )
    expect(text).toBe('[First](https://site.example/a?x=1&y=2), https://other.example/b , top, js')
  })

  it('marks headings and list items, numbers ordered lists, and separates table cells', () => {
    const { text } = htmlToText(`<h2>Title</h2><ol start="3"><li>three</li><li>four</li></ol><ul><li>dot</li></ul>
      <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>`)
    expect(text).toBe('## Title\n\n3. three\n4. four\n\n- dot\n\na | b\n1 | 2')
  })

  it('collapses whitespace outside <pre> and keeps it inside', () => {
    const { text } = htmlToText('<div>  lots   of\n\n  space </div><pre>  indented\n    more &lt;tag&gt;\n</pre><p>after</p>')
    expect(text).toBe('lots of space\n\n  indented\n    more <tag>\n\nafter')
  })

  it('decodes named and numeric entities and reads the title', () => {
    const result = htmlToText('<title> A &mdash; B </title><p>&copy; &#169; &#xA9; &unknown; &lt;b&gt; caf&eacute;</p>')
    expect(result.title).toBe('A \u2014 B')
    expect(result.text).toBe('\u00A9 \u00A9 \u00A9 &unknown; <b> caf&eacute;')
  })

  it('survives malformed markup: quoted angle brackets, unclosed tags, stray <', () => {
    const { text } = htmlToText('<p title="a > b">x < y</p><div><p>unclosed<a href="/z">link')
    expect(text).toBe('x < y\n\nunclosedlink')
  })

  it('uses image alt text', () => {
    expect(htmlToText('<p>Logo: <img src="x.png" alt="ACME"></p>').text).toBe('Logo: ACME')
  })
})

describe('fetch cache', () => {
  it('expires entries by the TTL given at lookup, on the injected clock', () => {
    const clock = { now: 0 }
    const cache = createFetchCache({ now: () => clock.now })
    cache.set('u', 'body')
    clock.now = 499
    expect(cache.get('u', 500)).toBe('body')
    clock.now = 500
    expect(cache.get('u', 500)).toBeUndefined()
    expect(cache.size).toBe(0)
    expect(cache.bytes).toBe(0)
  })

  it('keeps total bytes under the cap, evicting the least recently used first', () => {
    const cache = createFetchCache({ maxBytes: 10, now: () => 0 })
    cache.set('a', 'aaaa')
    cache.set('b', 'bbbb')
    expect(cache.get('a', 1000)).toBe('aaaa')
    cache.set('c', 'cccc')
    expect(cache.get('b', 1000)).toBeUndefined()
    expect(cache.get('a', 1000)).toBe('aaaa')
    expect(cache.get('c', 1000)).toBe('cccc')
    expect(cache.bytes).toBe(8)
  })

  it('refuses a value larger than the byte cap and counts bytes, not characters', () => {
    const cache = createFetchCache({ maxBytes: 4, now: () => 0 })
    cache.set('big', 'éééé')
    expect(cache.size).toBe(0)
    cache.set('ok', 'éé')
    expect(cache.bytes).toBe(4)
  })

  it('keeps the entry count under the cap', () => {
    const cache = createFetchCache({ maxEntries: 2, now: () => 0 })
    for (const key of ['a', 'b', 'c'])
      cache.set(key, key)
    expect(cache.size).toBe(2)
    expect(cache.get('a', 1000)).toBeUndefined()
  })
})
