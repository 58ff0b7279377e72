/**
 * How a JSON Schema `pattern` (or a `patternProperties` key) tests a string,
 * in time linear in the string whatever the pattern.
 *
 * The schema may come from an MCP server and the string from the model, and
 * the check runs synchronously on the main thread: on V8's backtracking
 * engine `^(a+)+$` against 30 `a`s and a `!` takes minutes, and nothing (an
 * abort, a timeout) can interrupt a regular expression. Patterns therefore
 * run on RE2 (the `re2js` port, loaded synchronously the first time a schema
 * has a pattern), after a translation that keeps JavaScript's meaning where
 * the two syntaxes differ: `.` stops at every JavaScript line terminator,
 * `\s` is JavaScript's whitespace, `[^]` is anything, and an escape that only
 * JavaScript's legacy mode accepts (`\:`, `\@`) stays the plain character.
 *
 * RE2 cannot run everything JavaScript can: lookaround, backreferences,
 * repeat counts over 1000, Unicode properties it does not know by that name.
 * Such a pattern keeps only V8's engine, which the checker uses for the
 * host's own schemas alone (see `json-schema.ts`).
 */

import type { RE2JS } from 're2js'
import { loadRe2 } from '../text/re2'

/** One pattern, compiled for both engines it may run on. */
export interface SchemaPattern {
  /** The test on RE2, linear in the string; `undefined` when RE2 cannot run the pattern. */
  readonly linear: ((text: string) => boolean) | undefined
  /** V8's own (backtracking) engine, in the mode that accepted the pattern. Never for a string from a schema the host did not write. */
  readonly backtracking: RegExp
}

/**
 * The pattern for `source`, or `undefined` when JavaScript does not accept it
 * at all. Unicode mode first; many real schemas use escapes (`\:`, `\@`) that
 * only the legacy mode accepts.
 */
export function compileSchemaPattern(source: string): SchemaPattern | undefined {
  for (const unicode of [true, false]) {
    let backtracking: RegExp
    try {
      backtracking = new RegExp(source, unicode ? 'u' : '')
    }
    catch {
      continue
    }
    return { linear: linearTest(source, unicode), backtracking }
  }
  return undefined
}

function linearTest(source: string, unicode: boolean): ((text: string) => boolean) | undefined {
  const translated = toRe2Syntax(source, unicode)
  const engine = translated === undefined ? undefined : loadRe2()
  if (translated === undefined || engine === undefined)
    return undefined
  let compiled: RE2JS
  try {
    compiled = engine.compile(translated)
  }
  catch {
    return undefined
  }
  return text => compiled.test(text)
}

/** JavaScript's `\s`: its WhiteSpace and LineTerminator characters, as inclusive code point ranges. */
const JS_SPACE: readonly (readonly [number, number])[] = [
  [0x09, 0x0D],
  [0x20, 0x20],
  [0xA0, 0xA0],
  [0x1680, 0x1680],
  [0x2000, 0x200A],
  [0x2028, 0x2029],
  [0x202F, 0x202F],
  [0x205F, 0x205F],
  [0x3000, 0x3000],
  [0xFEFF, 0xFEFF],
]

const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`

function classItems(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([from, to]) => from === to ? hex(from) : `${hex(from)}-${hex(to)}`).join('')
}

function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = []
  let next = 0
  for (const [from, to] of ranges) {
    if (from > next)
      out.push([next, from - 1])
    next = to + 1
  }
  if (next <= 0x10FFFF)
    out.push([next, 0x10FFFF])
  return out
}

const SPACE_ITEMS = classItems(JS_SPACE)
const NOT_SPACE_ITEMS = classItems(complement(JS_SPACE))
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const DOT = `[^${classItems([[0x0A, 0x0A], [0x0D, 0x0D], [0x2028, 0x2029]])}]`
const ANYTHING = `[${hex(0)}-${hex(0x10FFFF)}]`
const NOTHING = `[^${hex(0)}-${hex(0x10FFFF)}]`
const QUANTIFIER = /\{\d+(?:,\d*)?\}/y
const HEX_DIGITS = /^[\dA-F]+$/i
const DIGIT = /\d/
const LETTER = /^[a-z]$/i
/** Unicode property names RE2 and JavaScript both read the same way: General_Category short names (not `C`, which RE2 takes without unassigned code points), and `Any`. */
const SHARED_PROPERTY = /^(?:[ABD-Z][a-z]?|C[a-z]|Any)$/

const isSurrogate = (code: number) => code >= 0xD800 && code <= 0xDFFF

/**
 * `source`, a pattern V8 accepted in the given mode, in RE2's syntax with the
 * same meaning; `undefined` when RE2 has nothing with that meaning
 * (lookaround, backreferences, legacy octal escapes, surrogate halves).
 * Whatever this lets through that RE2 still refuses (a repeat count over
 * 1000, an unknown property) fails when RE2 compiles it.
 */
function toRe2Syntax(source: string, unicode: boolean): string | undefined {
  let out = ''
  let inClass = false
  let at = 0
  while (at < source.length) {
    const code = source.codePointAt(at)!
    // A literal outside the BMP is one character in Unicode mode but two separate halves in legacy mode.
    if (isSurrogate(code) || (!unicode && code > 0xFFFF))
      return undefined
    const char = String.fromCodePoint(code)
    at += char.length
    if (char === '\\') {
      const escape = translateEscape(source, at, unicode, inClass)
      if (escape === undefined)
        return undefined
      out += escape.text
      at = escape.end
    }
    else if (inClass) {
      if (char === ']')
        inClass = false
      // RE2 reads `[:` inside a class as the start of a POSIX class name; JavaScript reads a plain `[`.
      out += char === '[' ? '\\[' : char
    }
    else if (char === '[') {
      if (source.startsWith(']', at)) {
        out += NOTHING
        at += 1
      }
      else if (source.startsWith('^]', at)) {
        out += ANYTHING
        at += 2
      }
      else {
        inClass = true
        out += '['
        if (source.startsWith('^', at)) {
          out += '^'
          at += 1
        }
      }
    }
    else if (char === '(') {
      if (source.startsWith('?=', at) || source.startsWith('?!', at) || source.startsWith('?<=', at) || source.startsWith('?<!', at))
        return undefined
      if (source.startsWith('?<', at)) {
        out += '(?P<'
        at += 2
      }
      else {
        out += '('
      }
    }
    else if (char === '{') {
      // A brace that does not make a repeat count is a literal in legacy mode.
      QUANTIFIER.lastIndex = at - 1
      const quantifier = QUANTIFIER.exec(source)
      if (quantifier) {
        out += quantifier[0]
        at = QUANTIFIER.lastIndex
      }
      else {
        out += '\\{'
      }
    }
    else if (char === '.') {
      out += DOT
    }
    else if (char === '}' || char === ']') {
      out += `\\${char}`
    }
    else {
      out += char
    }
  }
  return out || '(?:)'
}

/** The escape whose letter is at `at` (just past the backslash), in RE2's syntax, and where the source goes on. */
function translateEscape(source: string, at: number, unicode: boolean, inClass: boolean): { text: string, end: number } | undefined {
  const code = source.codePointAt(at)
  if (code === undefined || isSurrogate(code) || code > 0xFFFF)
    return undefined
  const char = String.fromCharCode(code)
  const next = at + 1
  const plain = (text: string, end = next) => ({ text, end })
  switch (char) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return plain(`\\${char}`)
    case 'b':
      // Backspace inside a class, a word boundary outside.
      return plain(inClass ? hex(0x08) : '\\b')
    case 'B':
      return plain(inClass ? 'B' : '\\B')
    case 's':
      return plain(inClass ? SPACE_ITEMS : `[${SPACE_ITEMS}]`)
    case 'S':
      return plain(inClass ? NOT_SPACE_ITEMS : `[^${SPACE_ITEMS}]`)
    case 'n': return plain(hex(0x0A))
    case 'r': return plain(hex(0x0D))
    case 't': return plain(hex(0x09))
    case 'f': return plain(hex(0x0C))
    case 'v': return plain(hex(0x0B))
    case '0':
      // `\0` then a digit is a legacy octal escape.
      return DIGIT.test(source.charAt(next)) ? undefined : plain(hex(0))
    case 'c': {
      const letter = source.charAt(next)
      return LETTER.test(letter) ? plain(hex(letter.charCodeAt(0) % 32), next + 1) : undefined
    }
    case 'x': {
      const digits = source.slice(next, next + 2)
      return digits.length === 2 && HEX_DIGITS.test(digits) ? plain(hex(Number.parseInt(digits, 16)), next + 2) : plain('x')
    }
    case 'u':
      return unicodeEscape(source, next, unicode)
    case 'p':
    case 'P': {
      if (!unicode)
        return plain(char)
      const close = source.indexOf('}', next)
      const name = source.startsWith('{', next) && close > next ? source.slice(next + 1, close) : ''
      return SHARED_PROPERTY.test(name) ? plain(`\\${char}{${name}}`, close + 1) : undefined
    }
    case 'k':
      // A named backreference (or, in legacy mode without named groups, a `k`).
      return undefined
    default:
      // Digits 1-9: a backreference, or a legacy octal escape. Anything else stands for itself.
      return DIGIT.test(char) ? undefined : plain(hex(code))
  }
}

/** `\u` followed by four hex digits, a surrogate pair of them, or (Unicode mode) `{hex}`; in legacy mode anything else is a `u`. */
function unicodeEscape(source: string, at: number, unicode: boolean): { text: string, end: number } | undefined {
  if (unicode && source.startsWith('{', at)) {
    const close = source.indexOf('}', at)
    const digits = source.slice(at + 1, close)
    if (close < 0 || !HEX_DIGITS.test(digits))
      return undefined
    const code = Number.parseInt(digits, 16)
    return code > 0x10FFFF || isSurrogate(code) ? undefined : { text: hex(code), end: close + 1 }
  }
  const digits = source.slice(at, at + 4)
  if (digits.length < 4 || !HEX_DIGITS.test(digits))
    return unicode ? undefined : { text: 'u', end: at }
  const code = Number.parseInt(digits, 16)
  if (!isSurrogate(code))
    return { text: hex(code), end: at + 4 }
  // In Unicode mode an escaped pair is one character; in legacy mode, and alone, a half matches a UTF-16 unit RE2 does not see.
  const low = source.slice(at + 6, at + 10)
  if (unicode && code <= 0xDBFF && source.startsWith('\\u', at + 4) && low.length === 4 && HEX_DIGITS.test(low)) {
    const lowCode = Number.parseInt(low, 16)
    if (lowCode >= 0xDC00 && lowCode <= 0xDFFF)
      return { text: hex(0x10000 + ((code - 0xD800) << 10) + (lowCode - 0xDC00)), end: at + 10 }
  }
  return undefined
}
