/**
 * A request body as UTF-8 JSON, built so that a turn pays for what it added
 * rather than for the whole conversation. A provider's SDK turns the body
 * object into JSON on every request, walking every message the conversation
 * has (and, in the Anthropic SDK, scanning every block for helper marks
 * first), and `fetch` then encodes that text to UTF-8: work and memory
 * touched that grow with the conversation, on every turn.
 *
 * The wire builders keep each message they send as one object from turn to
 * turn and never edit it once built (`../anthropic/wire.ts`,
 * `../openai-chat/wire.ts`); a moved cache breakpoint or a merge makes a new
 * object. So the bytes of a list's leading items are remembered by the list's
 * first item (a view of the last body) and go into the next body as one
 * piece, and each item's JSON text is remembered by its object for when the
 * leading items differ. Everything else a request writes (braces, member
 * names, the members that are not lists, the items new since the last body)
 * is text, collected and encoded once per run of it between two remembered
 * pieces, then all pieces are copied into one buffer: one copy of the
 * conversation per request, where joining strings and encoding the result
 * made three or four.
 *
 * The text is encoded with `Buffer.from`, which writes short strings into
 * Node's shared buffer pool: about a tenth of a `TextEncoder` call, which
 * allocates a buffer of its own each time (0.8 µs on Node 20). Those pooled
 * pieces live only until the body is joined, so no pool slab is kept alive
 * by a long-lived view.
 *
 * The result is exactly the UTF-8 encoding of `JSON.stringify` of the body
 * with `trailing`'s members after its own. `JSON.stringify` of an object is its
 * members' pieces joined by commas, and of an array its items' pieces; its
 * output is well-formed UTF-16 (lone surrogates come out as `\u` escapes), so
 * encoding each piece alone gives the same bytes as encoding the whole, and an
 * item's byte length can be counted from its text (`utf8ByteLength`) (a property test checks it
 * all against `JSON.stringify`).
 */

import { Buffer } from 'node:buffer'
import { utf8ByteLength } from '../../text/utf8-length'

/**
 * Each list item's JSON, by the item object; an item is never edited once it
 * is on the wire. Needed when a list's leading items are not the last body's
 * (an edit, a list that shrank): the items after the difference are written
 * from here instead of serialized again.
 */
const itemTexts = new WeakMap<object, string>()

/** The headers a body written here goes out with: a client handed bytes cannot tell that they are JSON. */
export const JSON_BODY_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' })

/**
 * The UTF-8 bytes of `JSON.stringify({ ...body, ...trailing })` for plain
 * data (no `toJSON`, no key of `trailing` also in `body`), with the items of
 * the arrays named in `lists` serialized once per item object.
 */
export function requestBodyBytes(body: object, lists: readonly string[], trailing: object): Uint8Array {
  const pieces = new BodyPieces()
  pieces.addText('{')
  addMembers(pieces, body, lists)
  addMembers(pieces, trailing, [])
  pieces.addText('}')
  return pieces.join()
}

/** The encoded pieces of one body, in order, copied into one buffer at the end. */
class BodyPieces {
  private readonly pieces: Uint8Array[] = []
  private size = 0
  /** Text after the last piece, not yet encoded. */
  private text = ''
  private wroteMember = false
  /** Lists written in this body, with where their items' bytes start (see `addItems`). */
  private readonly lists: { written: WrittenList, start: number }[] = []

  /** Bytes so far, the pending text included (encoded now, since the caller needs its byte length). */
  get length(): number {
    this.encodeText()
    return this.size
  }

  add(piece: Uint8Array): void {
    this.encodeText()
    this.pieces.push(piece)
    this.size += piece.length
  }

  /** Text to write next; consecutive texts are encoded together. */
  addText(text: string): void {
    this.text += text
  }

  /** A member's text (`"key":` and maybe its value), after a comma unless it is the first member. */
  addMember(text: string): void {
    if (this.wroteMember)
      this.text += ','
    this.text += text
    this.wroteMember = true
  }

  /** Once joined, `written` holds the bytes added from `start` on, as its `ends` say. */
  remember(written: WrittenList, start: number): void {
    this.lists.push({ written, start })
  }

  join(): Uint8Array {
    this.encodeText()
    const out = new Uint8Array(this.size)
    let at = 0
    for (const piece of this.pieces) {
      out.set(piece, at)
      at += piece.length
    }
    for (const { written, start } of this.lists)
      written.bytes = out.subarray(start, start + writtenLength(written))
    return out
  }

  /** The pending text as one pooled piece: it lives only until `join` copies it. */
  private encodeText(): void {
    if (this.text === '')
      return
    const bytes = Buffer.from(this.text, 'utf8')
    this.text = ''
    this.pieces.push(bytes)
    this.size += bytes.length
  }
}

function addMembers(pieces: BodyPieces, source: object, lists: readonly string[]): void {
  const record = source as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const value = record[key]
    const name = `${JSON.stringify(key)}:`
    if (lists.includes(key) && Array.isArray(value)) {
      pieces.addMember(name)
      pieces.addText('[')
      addItems(pieces, value)
      pieces.addText(']')
      continue
    }
    const json = JSON.stringify(value)
    // `JSON.stringify` leaves out a member whose value has no JSON (undefined, a function).
    if (json !== undefined)
      pieces.addMember(`${name}${json}`)
  }
}

/**
 * A list as the last body wrote it, remembered by the list's first item: its
 * items (by identity), where each item's bytes end, and those bytes (a view
 * of that body). A conversation grows at its end between requests, so the
 * next request finds the same leading items and adds their bytes as one
 * piece, where it would look up and copy each of them.
 */
interface WrittenList {
  readonly items: unknown[]
  readonly ends: number[]
  bytes: Uint8Array
}

const writtenLists = new WeakMap<object, WrittenList>()
const NO_BYTES = new Uint8Array(0)

function writtenLength(written: WrittenList): number {
  return written.ends.at(-1) ?? 0
}

/** The items' JSON, joined by commas. */
function addItems(pieces: BodyPieces, items: readonly unknown[]): void {
  const first = items[0]
  if (typeof first !== 'object' || first === null) {
    // No object to remember the list by: written as text.
    for (let i = 0; i < items.length; i++)
      pieces.addText(i === 0 ? itemJson(items[i]) : `,${itemJson(items[i])}`)
    return
  }
  let written = writtenLists.get(first)
  if (written === undefined) {
    written = { items: [], ends: [], bytes: NO_BYTES }
    writtenLists.set(first, written)
  }
  let same = 0
  // A body whose buffer was transferred away (a fetch that posts it elsewhere) has no bytes left: start over.
  if (written.bytes.length === writtenLength(written)) {
    const known = Math.min(written.items.length, items.length)
    while (same < known && written.items[same] === items[same])
      same++
  }
  written.items.length = written.ends.length = same
  const start = pieces.length
  let end = 0
  if (same > 0) {
    end = written.ends[same - 1]
    pieces.add(written.bytes.subarray(0, end))
  }
  // Until this body is joined the entry has no bytes, so another list of the same body with this first item starts over.
  written.bytes = NO_BYTES
  for (let i = same; i < items.length; i++) {
    const json = rememberedJson(items[i])
    pieces.addText(i === 0 ? json : `,${json}`)
    end += (i === 0 ? 0 : 1) + utf8ByteLength(json)
    written.items.push(items[i])
    written.ends.push(end)
  }
  pieces.remember(written, start)
}

/** An item's JSON, remembered for an object item (as text: its bytes are in the body that first carried it). */
function rememberedJson(item: unknown): string {
  if (typeof item !== 'object' || item === null)
    return itemJson(item)
  let json = itemTexts.get(item)
  if (json === undefined) {
    json = itemJson(item)
    itemTexts.set(item, json)
  }
  return json
}

/** An item's JSON; an array item with no JSON of its own (undefined, a function) is written `null`, as `JSON.stringify` writes it. */
function itemJson(item: unknown): string {
  return JSON.stringify(item) ?? 'null'
}
