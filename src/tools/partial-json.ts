/**
 * Structured output's partial value, kept up to date as the arguments stream.
 *
 * `parsePartialJson` reads a whole prefix at once, so calling it on every
 * delta of a long answer costs time in the square of its length. This reader
 * consumes each delta once and keeps what it learnt: the containers still
 * open, the members they hold so far, and the token being written. A `mark()`
 * taken after a delta is a few references, whatever the depth: each open
 * container remembers its parent and how many members the parent had when
 * it opened, which cannot change while it stays open, so only the innermost
 * container's count is taken. Its `value()` builds the same value
 * `parsePartialJson` gives for the text up to that delta, at a cost that
 * depends on the open containers' members, not on the text's length, and it
 * stays valid however many deltas come after.
 *
 * Text nested deeper than `MAX_PARTIAL_DEPTH` is not read further: its marks
 * stand for no value (`undefined`), and the answer itself is refused by the
 * tool-input depth cap when the call ends.
 *
 * The reader follows the JSON grammar. Text that leaves it (a model writing
 * something that is not JSON) makes `mark()` return `undefined` from then on,
 * and the caller falls back to `parsePartialJson` on the whole text, which
 * then decides, as before. Members that were finished are built once and
 * shared by every later value; containers still open are built afresh on
 * each `value()`.
 */

import { MAX_TOOL_INPUT_DEPTH } from '../providers/tool-json'

/** One open object or array: the members finished so far, in order. */
interface Frame {
  /** The container this one is a member of, or none at the top. */
  readonly parent: Frame | undefined
  /** The parent's member count and key when this container opened: fixed while it is open. */
  readonly parentCount: number
  readonly parentKey: string | undefined
  /** 1 at the top. */
  readonly depth: number
  readonly array: boolean
  /** Object keys, parallel to `values`; unused for arrays. */
  readonly keys: string[]
  readonly values: unknown[]
  /** Object: the key whose value is being written, once its colon was read. */
  key: string | undefined
  /** What the frame expects next. */
  expect: 'first' | 'key' | 'colon' | 'value' | 'after'
}

type Token
  = | { kind: 'none' }
    | { kind: 'string', key: boolean, decoded: string, escape: 'none' | 'backslash' | 'unicode', hex: string }
    | { kind: 'number', raw: string }
    | { kind: 'literal', raw: string }

/** The partial value as of one delta. */
export interface PartialJsonMark {
  /** The value `parsePartialJson` gives for the text read up to the mark, built now. */
  value: () => unknown
}

/**
 * Deepest nesting the reader follows: the output tool's whole input (its
 * `value` wrapper included) may nest no deeper than any tool's arguments.
 */
export const MAX_PARTIAL_DEPTH = MAX_TOOL_INPUT_DEPTH

/** The mark of a text nested past `MAX_PARTIAL_DEPTH`: no value. */
const TOO_DEEP_MARK: PartialJsonMark = Object.freeze({ value: () => undefined })

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:e[+-]?\d+)?$/i
const HEX_DIGIT = /^[0-9a-f]$/i
const LITERALS: Readonly<Record<string, unknown>> = { true: true, false: false, null: null }
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t' }
const NONE: Token = { kind: 'none' }
/** A pending token that does not stand for a value yet (a key, `tru`, `1.`). */
const NOTHING = Symbol('nothing')

/** Reads one JSON text delta by delta; see the module comment. */
export class PartialJsonReader {
  /** The innermost open container. */
  private top: Frame | undefined = undefined
  private token: Token = NONE
  private root: unknown = NOTHING
  private failed = false
  private tooDeep = false

  /** Read the next piece of the text. */
  push(delta: string): void {
    for (let i = 0; i < delta.length && !this.failed && !this.tooDeep; i++) {
      const token = this.token
      if (token.kind === 'string') {
        i = this.readString(token, delta, i)
        continue
      }
      const char = delta[i]
      if (token.kind === 'number' || token.kind === 'literal') {
        if (token.kind === 'number' ? isNumberChar(char) : char >= 'a' && char <= 'z') {
          token.raw += char
          continue
        }
        this.endScalar(token)
        if (this.failed)
          return
      }
      this.structural(char)
    }
  }

  /** The partial value as of now, or `undefined` once the text left the JSON grammar. */
  mark(): PartialJsonMark | undefined {
    if (this.failed)
      return undefined
    if (this.tooDeep)
      return TOO_DEEP_MARK
    const top = this.top
    return new Mark(top, top ? top.values.length : 0, top?.key, this.pendingValue(), this.root)
  }

  /** The value the token being written stands for, or `NOTHING`. */
  private pendingValue(): unknown {
    const token = this.token
    const top = this.top
    if (top && top.expect !== 'value' && top.expect !== 'first')
      return NOTHING
    switch (token.kind) {
      case 'string':
        return token.key || token.escape === 'unicode' ? NOTHING : token.decoded
      case 'number':
        return NUMBER.test(token.raw) ? Number(token.raw) : NOTHING
      case 'literal':
        return token.raw in LITERALS ? LITERALS[token.raw] : NOTHING
      default:
        return NOTHING
    }
  }

  /** Read string characters from `start`; returns the index of the last character consumed. */
  private readString(token: Extract<Token, { kind: 'string' }>, delta: string, start: number): number {
    let i = start
    while (i < delta.length) {
      if (token.escape === 'backslash') {
        const char = delta[i++]
        if (char === 'u') {
          token.escape = 'unicode'
          token.hex = ''
          continue
        }
        const escaped = ESCAPES[char]
        if (escaped === undefined)
          return this.fail()
        token.decoded += escaped
        token.escape = 'none'
        continue
      }
      if (token.escape === 'unicode') {
        const char = delta[i++]
        if (!HEX_DIGIT.test(char))
          return this.fail()
        token.hex += char
        if (token.hex.length === 4) {
          token.decoded += String.fromCharCode(Number.parseInt(token.hex, 16))
          token.escape = 'none'
        }
        continue
      }
      // The plain run up to the next quote or backslash is appended in one piece.
      let end = i
      while (end < delta.length) {
        const code = delta.charCodeAt(end)
        if (code === 0x22 || code === 0x5C)
          break
        if (code < 0x20)
          return this.fail()
        end++
      }
      if (end > i)
        token.decoded += delta.slice(i, end)
      if (end === delta.length)
        return end
      if (delta.charCodeAt(end) === 0x5C) {
        token.escape = 'backslash'
        i = end + 1
        continue
      }
      this.token = NONE
      if (token.key)
        this.keyDone(token.decoded)
      else
        this.valueDone(token.decoded)
      return end
    }
    return i
  }

  /** A character outside any string, number or literal. */
  private structural(char: string): void {
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r')
      return
    const top = this.top
    if (!top) {
      if (this.root !== NOTHING)
        this.fail()
      else
        this.startValue(char)
      return
    }
    switch (top.expect) {
      case 'first':
        if (char === (top.array ? ']' : '}'))
          this.close()
        else if (top.array)
          this.startValue(char)
        else if (char === '"')
          this.token = { kind: 'string', key: true, decoded: '', escape: 'none', hex: '' }
        else
          this.fail()
        return
      case 'key':
        if (char === '"')
          this.token = { kind: 'string', key: true, decoded: '', escape: 'none', hex: '' }
        else
          this.fail()
        return
      case 'colon':
        if (char === ':')
          top.expect = 'value'
        else
          this.fail()
        return
      case 'value':
        this.startValue(char)
        return
      case 'after':
        if (char === ',') {
          top.expect = top.array ? 'value' : 'key'
          top.key = undefined
        }
        else if (char === (top.array ? ']' : '}')) {
          this.close()
        }
        else {
          this.fail()
        }
    }
  }

  private startValue(char: string): void {
    if (char === '"')
      this.token = { kind: 'string', key: false, decoded: '', escape: 'none', hex: '' }
    else if (char === '{' || char === '[')
      this.open(char === '[')
    else if (char === '-' || (char >= '0' && char <= '9'))
      this.token = { kind: 'number', raw: char }
    else if (char >= 'a' && char <= 'z')
      this.token = { kind: 'literal', raw: char }
    else
      this.fail()
  }

  private endScalar(token: Extract<Token, { kind: 'number' | 'literal' }>): void {
    this.token = NONE
    if (token.kind === 'number' && NUMBER.test(token.raw))
      this.valueDone(Number(token.raw))
    else if (token.kind === 'literal' && token.raw in LITERALS)
      this.valueDone(LITERALS[token.raw])
    else
      this.fail()
  }

  private open(array: boolean): void {
    const parent = this.top
    const depth = parent ? parent.depth + 1 : 1
    if (depth > MAX_PARTIAL_DEPTH) {
      this.tooDeep = true
      return
    }
    this.top = { parent, parentCount: parent ? parent.values.length : 0, parentKey: parent?.key, depth, array, keys: [], values: [], key: undefined, expect: 'first' }
  }

  private keyDone(key: string): void {
    const top = this.top!
    top.key = key
    top.expect = 'colon'
  }

  /** A finished value: a member of the open container, or the whole text's value. */
  private valueDone(value: unknown): void {
    const top = this.top
    if (!top) {
      this.root = value
      return
    }
    if (!top.array)
      top.keys.push(top.key!)
    top.values.push(value)
    top.expect = 'after'
  }

  private close(): void {
    const frame = this.top!
    this.top = frame.parent
    this.valueDone(build(frame, frame.values.length, NOTHING, undefined))
  }

  /** Leave the grammar for good; returns a past-the-end index so the caller's loop stops. */
  private fail(): number {
    this.failed = true
    return Number.MAX_SAFE_INTEGER
  }
}

/**
 * The open containers as they were at a mark: the innermost one with its
 * member count and key then; the outer ones are reached through `parent`
 * with the counts and keys they had when their child opened. A class rather
 * than a closure per delta: marks are made on every delta and most are never
 * read.
 */
class Mark implements PartialJsonMark {
  constructor(
    private readonly top: Frame | undefined,
    private readonly count: number,
    private readonly key: string | undefined,
    private readonly pending: unknown,
    private readonly root: unknown,
  ) {}

  value(): unknown {
    if (!this.top)
      return this.root !== NOTHING ? this.root : this.pending === NOTHING ? undefined : this.pending
    let inner = this.pending
    let count = this.count
    let key = this.key
    for (let frame: Frame | undefined = this.top; frame; frame = frame.parent) {
      inner = build(frame, count, !frame.array && key === undefined ? NOTHING : inner, key)
      count = frame.parentCount
      key = frame.parentKey
    }
    return inner
  }
}

function isNumberChar(char: string): boolean {
  return (char >= '0' && char <= '9') || char === '.' || char === 'e' || char === 'E' || char === '+' || char === '-'
}

/** The container's value with its first `count` members, plus `pending` (under `key` in an object) unless it is `NOTHING`. */
function build(frame: Frame, count: number, pending: unknown, key: string | undefined): unknown {
  if (frame.array) {
    const values = frame.values
    if (pending === NOTHING)
      return values.slice(0, count)
    // One exact-size copy: slicing and then pushing would copy the members a second time to grow the array.
    return count === values.length ? values.concat([pending]) : [...values.slice(0, count), pending]
  }
  const object: Record<string, unknown> = {}
  for (let i = 0; i < count; i++)
    setMember(object, frame.keys[i], frame.values[i])
  if (pending !== NOTHING)
    setMember(object, key!, pending)
  return object
}

/** As `JSON.parse` sets a member: an own property even for `__proto__`, a repeated key keeping its first place. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
  else
    object[key] = value
}
