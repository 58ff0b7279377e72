/**
 * The YAML frontmatter of a `SKILL.md`: the subset real skills use (plain,
 * quoted and block scalars, one level of nested mapping, block and flow
 * lists), parsed without a YAML dependency. Anything outside the subset is a
 * `FrontmatterError` naming the line, so the skill is reported, never
 * half-read.
 */

const NEWLINE = /\r?\n/
const LEADING_NEWLINES = /^\n+/
const INDENTED = /^\s/
const COLLECTION_START = /^[[{&*!|>]/
const HEX4 = /^[0-9a-f]{4}$/i
const COMMENT_START = /\s#/

/** A frontmatter value: a scalar (kept as text), a list of scalars, or a one-level mapping. */
export type FrontmatterValue = string | null | readonly string[] | Readonly<Record<string, string>>

/** The frontmatter could not be read: `line` is 1-based in the whole file. */
export class FrontmatterError extends Error {
  override name = 'FrontmatterError'
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`)
  }
}

/** What `splitFrontmatter` finds: the frontmatter's lines and the body after it. */
export interface SplitSkillFile {
  readonly lines: readonly string[]
  /** Line number (1-based) of the first frontmatter line. */
  readonly firstLine: number
  readonly body: string
}

/** Separate the `---` fenced frontmatter from the body. */
export function splitFrontmatter(text: string): SplitSkillFile {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const lines = source.split(NEWLINE)
  if (lines[0]?.trimEnd() !== '---')
    throw new FrontmatterError(1, 'SKILL.md must start with a `---` line opening the YAML frontmatter')
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === '---' || line.trimEnd() === '...'))
  if (end < 0)
    throw new FrontmatterError(lines.length, 'the frontmatter has no closing `---` line')
  const body = lines.slice(end + 1).join('\n').replace(LEADING_NEWLINES, '')
  return { lines: lines.slice(1, end), firstLine: 2, body }
}

const KEY = /^([\w.-]+)[ \t]*:(?:[ \t](.*))?$/
const BLOCK_HEADER = /^[|>][+-]?$/

/** Parse frontmatter lines into a flat record of values. A duplicate key is an error, as a silent override would be. */
export function parseFrontmatter(split: Pick<SplitSkillFile, 'lines' | 'firstLine'>): Record<string, FrontmatterValue> {
  const { lines, firstLine } = split
  const out: Record<string, FrontmatterValue> = Object.create(null)
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    if (isBlank(line) || line.startsWith('#')) {
      i++
      continue
    }
    if (INDENTED.test(line))
      throw new FrontmatterError(firstLine + i, 'unexpected indentation')
    const match = KEY.exec(line)
    if (!match)
      throw new FrontmatterError(firstLine + i, 'expected `key: value`')
    const key = match[1]
    if (Object.hasOwn(out, key))
      throw new FrontmatterError(firstLine + i, `duplicate key "${key}"`)
    const inline = stripComment(match[2] ?? '').trim()
    const nested = indentedBlock(lines, i + 1)
    const at = firstLine + i
    i = nested.next
    out[key] = value(inline, nested.lines, at)
  }
  return out
}

/** The value of one key from its inline text and the more-indented lines under it. */
function value(inline: string, block: readonly string[], line: number): FrontmatterValue {
  if (BLOCK_HEADER.test(inline))
    return blockScalar(inline, block)
  if (inline === '' || inline === '~' || inline === 'null') {
    // Nothing under the key but blank and comment lines (`metadata:` then `  # later`) is null in YAML too.
    if (block.every(part => isBlank(part) || part.trimStart().startsWith('#')))
      return null
    return nestedCollection(block, line + 1)
  }
  if (inline.startsWith('"') || inline.startsWith('\''))
    return quoted(inline + (block.length > 0 ? ` ${block.map(part => part.trim()).join(' ')}` : ''), line)
  if (inline.startsWith('['))
    return flowList(inline, line)
  if (inline.startsWith('{') || inline.startsWith('&') || inline.startsWith('*') || inline.startsWith('!'))
    throw new FrontmatterError(line, 'flow mappings, anchors, aliases and tags are not supported in skill frontmatter')
  // A plain scalar may go on over more-indented lines, folded with spaces.
  return [inline, ...block.map(part => stripComment(part).trim())].filter(part => part !== '').join(' ')
}

/** `|` keeps line breaks, `>` folds them; `-` strips the final newline, `+` keeps every trailing one. */
function blockScalar(header: string, block: readonly string[]): string {
  let indent = Number.POSITIVE_INFINITY
  for (const line of block) {
    if (!isBlank(line))
      indent = Math.min(indent, line.length - line.trimStart().length)
  }
  const lines = block.map(line => isBlank(line) ? '' : line.slice(Number.isFinite(indent) ? indent : 0))
  let text = header[0] === '|' ? lines.join('\n') : foldLines(lines)
  const chomp = header[1]
  if (chomp === '+')
    return `${text}\n`
  text = withoutTrailingNewlines(text)
  return chomp === '-' ? text : `${text}\n`
}

/**
 * `text` without its final run of line feeds. A loop, not `/\n+$/`: that
 * pattern is tried at every run of line feeds in the text and each try scans
 * its whole run, so 400,000 blank lines inside a block took a minute.
 */
function withoutTrailingNewlines(text: string): string {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 10)
    end--
  return end === text.length ? text : text.slice(0, end)
}

/** Folded block: lines of one paragraph join with spaces; a blank line stays a line break. */
function foldLines(lines: readonly string[]): string {
  let out = ''
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (i === 0)
      out = line
    else if (line === '' || lines[i - 1] === '')
      out += `\n${line}`
    else
      out += ` ${line}`
  }
  return out
}

/** A mapping or a list one level down (`metadata:`, `allowed-tools:` as a list). */
function nestedCollection(block: readonly string[], firstLine: number): readonly string[] | Readonly<Record<string, string>> {
  const rows = block.map((line, i) => ({ text: line.trim(), line: firstLine + i })).filter(row => row.text !== '' && !row.text.startsWith('#'))
  if (rows[0].text.startsWith('- ') || rows[0].text === '-') {
    return rows.map((row) => {
      if (!row.text.startsWith('-'))
        throw new FrontmatterError(row.line, 'a list mixes items and keys')
      return scalar(stripComment(row.text.slice(1)).trim(), row.line)
    })
  }
  const map: Record<string, string> = Object.create(null)
  for (const row of rows) {
    const match = KEY.exec(row.text)
    if (!match || match[2] === undefined)
      throw new FrontmatterError(row.line, 'only one level of `key: value` is supported under a key')
    if (Object.hasOwn(map, match[1]))
      throw new FrontmatterError(row.line, `duplicate key "${match[1]}"`)
    map[match[1]] = scalar(stripComment(match[2]).trim(), row.line)
  }
  return map
}

/** A scalar in a list or a nested mapping: quoted or plain, never a collection. */
function scalar(text: string, line: number): string {
  if (text.startsWith('"') || text.startsWith('\''))
    return quoted(text, line)
  if (COLLECTION_START.test(text))
    throw new FrontmatterError(line, 'nested collections and block scalars are not supported at this depth')
  return text
}

/** `[a, "b c", d]` on one line. */
function flowList(text: string, line: number): readonly string[] {
  if (!text.endsWith(']'))
    throw new FrontmatterError(line, 'a flow list must close on its line')
  const inner = text.slice(1, -1)
  const items: string[] = []
  let current = ''
  let quote: string | undefined
  for (const char of inner) {
    if (quote) {
      current += char
      if (char === quote)
        quote = undefined
    }
    else if (char === '"' || char === '\'') {
      quote = char
      current += char
    }
    else if (char === ',') {
      items.push(current.trim())
      current = ''
    }
    else {
      current += char
    }
  }
  if (current.trim() !== '')
    items.push(current.trim())
  return items.map(item => scalar(item, line))
}

/** A single- or double-quoted scalar, whole. */
function quoted(text: string, line: number): string {
  const mark = text[0]
  let out = ''
  let i = 1
  for (; i < text.length; i++) {
    const char = text[i]
    if (mark === '\'' && char === '\'') {
      if (text[i + 1] === '\'') {
        out += '\''
        i++
        continue
      }
      break
    }
    if (mark === '"' && char === '\\') {
      const next = text[++i]
      const simple: Record<string, string> = { 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', '"': '"', '\\': '\\', '/': '/', '0': '\0', ' ': ' ' }
      if (next !== undefined && Object.hasOwn(simple, next)) {
        out += simple[next]
      }
      else if (next === 'u' && HEX4.test(text.slice(i + 1, i + 5))) {
        out += String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 5), 16))
        i += 4
      }
      else {
        throw new FrontmatterError(line, `unsupported escape \\${next ?? ''} in a double-quoted value`)
      }
      continue
    }
    if (mark === '"' && char === '"')
      break
    out += char
  }
  if (i >= text.length)
    throw new FrontmatterError(line, 'a quoted value is not closed')
  const rest = stripComment(text.slice(i + 1)).trim()
  if (rest !== '')
    throw new FrontmatterError(line, 'text after a closing quote')
  return out
}

/** The lines under a key that are indented more than it (blank lines inside kept), and where the next key starts. */
function indentedBlock(lines: readonly string[], from: number): { lines: string[], next: number } {
  let end = from
  while (end < lines.length && (isBlank(lines[end]) || INDENTED.test(lines[end])))
    end++
  // Trailing blank lines belong to no value.
  let last = end
  while (last > from && isBlank(lines[last - 1]))
    last--
  return { lines: lines.slice(from, last), next: end }
}

/** A ` #` starts a comment in plain text (a `#` inside a word does not). */
function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith('\''))
    return text
  if (text.startsWith('#'))
    return ''
  const at = text.search(COMMENT_START)
  return at < 0 ? text : text.slice(0, at)
}

function isBlank(line: string): boolean {
  return line.trim() === ''
}
