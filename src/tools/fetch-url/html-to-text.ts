/**
 * HTML to readable text for the model: scripts, styles and other non-content
 * elements dropped, block structure kept as line breaks, headings and list
 * items marked, links kept as `[text](url)` so the model can follow them.
 * Aimed at reading, not at round-tripping markup.
 */

import { decodeEntities, htmlTokens } from './html-tokens'

const HEADING = /^h[1-6]$/
const SCRIPT_LINK = /^(?:javascript|data|vbscript):/i
// Every whitespace run becomes one space, but a lone space (most of them, in prose) is not matched at all:
// replacing each one with itself made collapsing a 5 MiB page of text cost seconds instead of milliseconds.
const WHITESPACE_RUN = / \s+|[^\S ]\s*/g
const LEADING_NEWLINES = /^\n+/
// The same for the spaces, tabs and no-break spaces inside a line.
const INLINE_SPACE_RUN = / [ \t\u00A0]+|[\t\u00A0][ \t\u00A0]*/g
const BLANK_LINE_RUN = /\n{3,}/g

export interface HtmlText {
  /** The document's `<title>`, whitespace collapsed. */
  title?: string
  text: string
}

/** Elements whose content is never shown to a reader. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'select', 'head', 'noembed', 'noframes'])
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'main',
  'nav',
  'ol',
  'section',
  'summary',
  'table',
  'ul',
])

// Sentinels around <pre> content, so whitespace cleanup leaves it alone. They are removed from all page text
// (raw or written as &#1; / &#2;) before it is emitted: a page could otherwise open a "<pre>" of its own.
const PRE_START = '\u0001'
const PRE_END = '\u0002'

export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const out: string[] = []
  let title: string | undefined
  let inTitle = false
  let dropDepth = 0
  let preDepth = 0
  const links: { href?: string, start: number }[] = []
  const lists: { ordered: boolean, next: number }[] = []
  let cellInRow = 0
  /** Replace the text of the open link, if any, with `[text](url)`; at most one link is ever open. */
  const closeLink = () => {
    const link = links.pop()
    if (link?.href) {
      const text = collapse(out.splice(link.start).join('')).trim()
      out.push(text === '' || text === link.href ? ` ${link.href} ` : `[${text}](${link.href})`)
    }
  }

  for (const token of htmlTokens(html)) {
    if (token.type === 'text') {
      if (inTitle)
        title ??= collapse(decodeEntities(token.text)).trim()
      else if (dropDepth === 0)
        out.push(preDepth > 0 ? withoutSentinels(decodeEntities(token.text)) : collapse(withoutSentinels(decodeEntities(token.text))))
      continue
    }
    const name = token.name
    if (name === 'title') {
      inTitle = token.type === 'open' && !token.selfClosing
      continue
    }
    if (DROPPED.has(name)) {
      if (token.type === 'open' && !token.selfClosing)
        dropDepth++
      else if (token.type === 'close' && dropDepth > 0)
        dropDepth--
      continue
    }
    if (dropDepth > 0)
      continue

    if (token.type === 'open') {
      const attrs = token.attrs
      if (name === 'a' && !token.selfClosing) {
        // Links never nest: a start tag ends the link still open, as in a browser. Nested, every close
        // would wrap the text of all the links inside it once more: quadratic in the depth.
        closeLink()
        links.push({ href: linkTarget(attrs.href, baseUrl), start: out.length })
      }
      else if (name === 'img' && attrs.alt?.trim()) {
        out.push(` ${collapse(withoutSentinels(attrs.alt))} `)
      }
      else if (name === 'br') {
        out.push('\n')
      }
      else if (name === 'hr') {
        out.push('\n\n---\n\n')
      }
      else if (name === 'p') {
        out.push('\n\n')
      }
      else if (HEADING.test(name)) {
        out.push(`\n\n${'#'.repeat(Number(name[1]))} `)
      }
      else if (name === 'ul' || name === 'ol') {
        lists.push({ ordered: name === 'ol', next: Number(attrs.start) || 1 })
        out.push('\n')
      }
      else if (name === 'li') {
        const list = lists.at(-1)
        const marker = list?.ordered ? `${list.next++}.` : '-'
        out.push(`\n${marker} `)
      }
      else if (name === 'tr') {
        cellInRow = 0
        out.push('\n')
      }
      else if (name === 'td' || name === 'th') {
        out.push(cellInRow++ > 0 ? ' | ' : '')
      }
      else if (name === 'pre') {
        out.push(preDepth++ === 0 ? `\n\n${PRE_START}` : '')
      }
      else if (name === 'code' && preDepth === 0) {
        out.push('`')
      }
      else if (BLOCK.has(name)) {
        out.push('\n')
      }
      continue
    }

    if (name === 'a') {
      closeLink()
    }
    else if (name === 'p' || HEADING.test(name)) {
      out.push('\n\n')
    }
    else if (name === 'ul' || name === 'ol') {
      lists.pop()
      out.push('\n')
    }
    else if (name === 'pre' && preDepth > 0) {
      out.push(--preDepth === 0 ? `${PRE_END}\n\n` : '')
    }
    else if (name === 'code' && preDepth === 0) {
      out.push('`')
    }
    else if (BLOCK.has(name)) {
      out.push('\n')
    }
  }
  return { title: title || undefined, text: tidy(out.join('')) }
}

/** Absolute link target, or `undefined` for links that lead nowhere a reader can go. */
function linkTarget(href: string | undefined, baseUrl: string | undefined): string | undefined {
  const raw = href?.trim()
  if (!raw || raw.startsWith('#') || SCRIPT_LINK.test(raw))
    return undefined
  let target: string
  try {
    target = new URL(raw, baseUrl).href
  }
  catch {
    // Kept as written, but it is page text like any other: no sentinels, no line breaks.
    return collapse(withoutSentinels(raw))
  }
  // The URL parser drops tabs, line breaks and leading control characters, so `java&#9;script:` only
  // shows its scheme once parsed: check again.
  return SCRIPT_LINK.test(target) ? undefined : target
}

function collapse(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ')
}

function withoutSentinels(text: string): string {
  return text.replaceAll(PRE_START, '').replaceAll(PRE_END, '')
}

/** Trim every line and drop runs of blank lines, leaving `<pre>` blocks exactly as they were. */
function tidy(text: string): string {
  const parts: string[] = []
  let rest = text
  while (rest !== '') {
    const start = rest.indexOf(PRE_START)
    parts.push(tidyPlain(start === -1 ? rest : rest.slice(0, start)))
    if (start === -1)
      break
    const end = rest.indexOf(PRE_END, start)
    const stop = end === -1 ? rest.length : end
    parts.push(rest.slice(start + 1, stop).replace(LEADING_NEWLINES, '').trimEnd())
    rest = rest.slice(stop + 1)
  }
  return parts.join('').trim()
}

function tidyPlain(text: string): string {
  return text
    .split('\n')
    .map(line => line.replace(INLINE_SPACE_RUN, ' ').trim())
    .join('\n')
    .replace(BLANK_LINE_RUN, '\n\n')
}
