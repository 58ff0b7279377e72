/**
 * A forgiving, single-pass HTML tokenizer: enough of the HTML syntax to turn
 * real-world pages into text and to pick results out of a search page,
 * without a DOM dependency. It scans forward only (no backtracking regexes),
 * so hostile markup costs linear time.
 */

export type HtmlToken
  = | { type: 'text', text: string }
    | { type: 'open', name: string, attrs: Record<string, string>, selfClosing: boolean }
    | { type: 'close', name: string }

const LETTER = /[a-z]/i
const CHARACTER_REFERENCE = /&(#\d{1,7}|#x[\da-f]{1,6}|[a-z][a-z\d]{1,31});/gi

/** Elements whose content is text up to their end tag, never markup. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes'])

/** Tokens of `html`; text is returned raw (entities are decoded by the consumer, with `decodeEntities`). */
export function* htmlTokens(html: string): Generator<HtmlToken> {
  let i = 0
  let textStart = 0
  const flushText = function* (end: number): Generator<HtmlToken> {
    if (end > textStart)
      yield { type: 'text', text: html.slice(textStart, end) }
  }
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt === -1)
      break
    const next = html[lt + 1] ?? ''
    if (html.startsWith('<!--', lt)) {
      yield* flushText(lt)
      const end = html.indexOf('-->', lt + 4)
      i = textStart = end === -1 ? html.length : end + 3
      continue
    }
    if (next === '!' || next === '?') {
      yield* flushText(lt)
      const end = html.indexOf('>', lt)
      i = textStart = end === -1 ? html.length : end + 1
      continue
    }
    const closing = next === '/'
    const nameStart = closing ? lt + 2 : lt + 1
    if (!LETTER.test(html[nameStart] ?? '')) {
      i = lt + 1
      continue
    }
    yield* flushText(lt)
    const tag = readTag(html, nameStart)
    i = textStart = tag.end
    if (closing) {
      yield { type: 'close', name: tag.name }
      continue
    }
    yield { type: 'open', name: tag.name, attrs: tag.attrs, selfClosing: tag.selfClosing }
    if (RAW_TEXT.has(tag.name) && !tag.selfClosing) {
      const close = indexOfIgnoreCase(html, `</${tag.name}`, i)
      const end = close === -1 ? html.length : close
      yield* flushText(end)
      const gt = close === -1 ? -1 : html.indexOf('>', close)
      i = textStart = gt === -1 ? html.length : gt + 1
      yield { type: 'close', name: tag.name }
    }
  }
  yield* flushText(html.length)
}

interface ParsedTag {
  name: string
  attrs: Record<string, string>
  selfClosing: boolean
  /** Index just past the tag's `>`. */
  end: number
}

function readTag(html: string, start: number): ParsedTag {
  let i = start
  while (i < html.length && !isSpace(html[i]) && html[i] !== '>' && html[i] !== '/')
    i++
  const name = html.slice(start, i).toLowerCase()
  const attrs: Record<string, string> = {}
  let selfClosing = false
  while (i < html.length) {
    const c = html[i]
    if (c === '>')
      return { name, attrs, selfClosing, end: i + 1 }
    if (isSpace(c) || c === '/') {
      selfClosing = c === '/'
      i++
      continue
    }
    selfClosing = false
    const attrStart = i
    while (i < html.length && !isSpace(html[i]) && html[i] !== '>' && html[i] !== '=' && html[i] !== '/')
      i++
    const attrName = html.slice(attrStart, i).toLowerCase()
    while (isSpace(html[i] ?? ''))
      i++
    let value = ''
    if (html[i] === '=') {
      i++
      while (isSpace(html[i] ?? ''))
        i++
      const quote = html[i]
      if (quote === '"' || quote === '\'') {
        const close = html.indexOf(quote, i + 1)
        const end = close === -1 ? html.length : close
        value = html.slice(i + 1, end)
        i = end + 1
      }
      else {
        const valueStart = i
        while (i < html.length && !isSpace(html[i]) && html[i] !== '>')
          i++
        value = html.slice(valueStart, i)
      }
    }
    if (attrName && !(attrName in attrs))
      attrs[attrName] = decodeEntities(value)
  }
  return { name, attrs, selfClosing, end: html.length }
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f'
}

function indexOfIgnoreCase(haystack: string, needle: string, from: number): number {
  const lower = needle.toLowerCase()
  let at = haystack.indexOf('</', from)
  while (at !== -1) {
    if (haystack.slice(at, at + needle.length).toLowerCase() === lower)
      return at
    at = haystack.indexOf('</', at + 2)
  }
  return -1
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: '\'',
  nbsp: '\u00A0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201C',
  rdquo: '\u201D',
  laquo: '\u00AB',
  raquo: '\u00BB',
  bull: '\u2022',
  middot: '\u00B7',
  copy: '\u00A9',
  reg: '\u00AE',
  trade: '\u2122',
  times: '\u00D7',
  rarr: '\u2192',
  larr: '\u2190',
  euro: '\u20AC',
  deg: '\u00B0',
}

/** Decode numeric references and the common named entities; unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&'))
    return text
  return text.replace(CHARACTER_REFERENCE, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10)
      return code > 0 && code <= 0x10FFFF && (code < 0xD800 || code > 0xDFFF) ? String.fromCodePoint(code) : '\uFFFD'
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole
  })
}
