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
 * object. So each list item's encoded JSON is remembered by its object, and a
 * request copies the remembered pieces into one buffer: one copy of the body,
 * where joining strings and encoding the result made three or four.
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

  add(piece: Uint8Array): void {
    this.pieces.push(piece)
    this.size += piece.length
  }

  /** A member's text (`"key":` and maybe its value), after a comma unless it is the first member. */
  addMember(text: string): void {
    this.add(encoder.encode(this.wroteMember ? `,${text}` : text))
    this.wroteMember = true
  }

  join(): Uint8Array {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const piece of this.pieces) {
      out.set(piece, at)
      at += piece.length
    }
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
      addList(pieces, value)
      continue
    }
    const json = JSON.stringify(value)
    // `JSON.stringify` leaves out a member whose value has no JSON (undefined, a function).
    if (json !== undefined)
      pieces.addMember(`${name}${json}`)
  }
}

function addList(pieces: BodyPieces, items: readonly unknown[]): void {
  pieces.add(OPEN_LIST)
  for (let i = 0; i < items.length; i++) {
    const bytes = bytesAfterComma(items[i])
    pieces.add(i === 0 ? bytes.subarray(1) : bytes)
  }
  pieces.add(CLOSE_LIST)
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
