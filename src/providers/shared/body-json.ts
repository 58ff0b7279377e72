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
 * object. So each list item's encoded JSON is remembered by its object, the
 * bytes of a list's leading items by the list's first item, and a request
 * copies the remembered pieces into one buffer: one copy of the body, where
 * joining strings and encoding the result made three or four, and a handful
 * of copies per request however long the conversation is.
 *
 * The result is exactly the UTF-8 encoding of `JSON.stringify` of the body
 * with `trailing`'s members after its own. `JSON.stringify` of an object is its
 * members' pieces joined by commas, and of an array its items' pieces; its
 * output is well-formed UTF-16 (lone surrogates come out as `\u` escapes), so
 * encoding each piece alone gives the same bytes as encoding the whole (a
 * property test checks it against `JSON.stringify`).
 */

/**
 * Each list item's encoded JSON after a comma, by the item object; an item is
 * never edited once it is on the wire. The comma rides along so that a list
 * costs one copy per item (the first item is written without it): a copy of
 * a few hundred bytes costs about what its call does.
 */
const itemBytes = new WeakMap<object, Uint8Array>()

const encoder = new TextEncoder()
const OPEN_OBJECT = encoder.encode('{')
const CLOSE_OBJECT = encoder.encode('}')
const OPEN_LIST = encoder.encode('[')
const CLOSE_LIST = encoder.encode(']')
const COMMA_NULL = encoder.encode(',null')

/** The headers a body written here goes out with: a client handed bytes cannot tell that they are JSON. */
export const JSON_BODY_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' })

/**
 * The UTF-8 bytes of `JSON.stringify({ ...body, ...trailing })` for plain
 * data (no `toJSON`, no key of `trailing` also in `body`), with the items of
 * the arrays named in `lists` serialized and encoded once per item object.
 */
export function requestBodyBytes(body: object, lists: readonly string[], trailing: object): Uint8Array {
  const pieces = new BodyPieces()
  pieces.add(OPEN_OBJECT)
  addMembers(pieces, body, lists)
  addMembers(pieces, trailing, [])
  pieces.add(CLOSE_OBJECT)
  return pieces.join()
}

/** The encoded pieces of one body, in order, copied into one buffer at the end. */
class BodyPieces {
  private readonly pieces: Uint8Array[] = []
  private size = 0
  private wroteMember = false
  /** Lists written in this body, with where their items' bytes start (see `addItems`). */
  private readonly lists: { written: WrittenList, start: number }[] = []

  get length(): number {
    return this.size
  }

  add(piece: Uint8Array): void {
    this.pieces.push(piece)
    this.size += piece.length
  }

  /** A member's text (`"key":` and maybe its value), after a comma unless it is the first member. */
  addMember(text: string): void {
    this.add(encoder.encode(this.wroteMember ? `,${text}` : text))
    this.wroteMember = true
  }

  /** Once joined, `written` holds the bytes added from `start` on, as its `ends` say. */
  remember(written: WrittenList, start: number): void {
    this.lists.push({ written, start })
  }

  join(): Uint8Array {
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
}

function addMembers(pieces: BodyPieces, source: object, lists: readonly string[]): void {
  const record = source as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const value = record[key]
    const name = `${JSON.stringify(key)}:`
    if (lists.includes(key) && Array.isArray(value)) {
      pieces.addMember(name)
      pieces.add(OPEN_LIST)
      addItems(pieces, value)
      pieces.add(CLOSE_LIST)
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
    for (let i = 0; i < items.length; i++)
      pieces.add(listItemBytes(items[i], i))
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
  if (same > 0)
    pieces.add(written.bytes.subarray(0, written.ends[same - 1]))
  // Until this body is joined the entry has no bytes, so another list of the same body with this first item starts over.
  written.bytes = NO_BYTES
  for (let i = same; i < items.length; i++) {
    pieces.add(listItemBytes(items[i], i))
    written.items.push(items[i])
    written.ends.push(pieces.length - start)
  }
  pieces.remember(written, start)
}

/** An item's JSON, after a comma unless it is the first. */
function listItemBytes(item: unknown, index: number): Uint8Array {
  const bytes = bytesAfterComma(item)
  return index === 0 ? bytes.subarray(1) : bytes
}

/** `,` and the item's JSON, encoded; remembered for an object item. */
function bytesAfterComma(item: unknown): Uint8Array {
  if (typeof item !== 'object' || item === null)
    return encodedAfterComma(item)
  let bytes = itemBytes.get(item)
  if (bytes === undefined) {
    bytes = encodedAfterComma(item)
    itemBytes.set(item, bytes)
  }
  return bytes
}

function encodedAfterComma(item: unknown): Uint8Array {
  const json = JSON.stringify(item)
  // An array item with no JSON of its own is written `null`, as `JSON.stringify` writes it.
  return json === undefined ? COMMA_NULL : encoder.encode(`,${json}`)
}
