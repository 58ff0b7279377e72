/**
 * A request body as JSON, built so that a turn pays for what it added rather
 * than for the whole conversation. A provider's SDK turns the body object
 * into JSON on every request, walking every message the conversation has
 * (and, in the Anthropic SDK, scanning every block for helper marks first):
 * work and memory touched that grow with the conversation, on every turn.
 *
 * The wire builders keep each message they send as one object from turn to
 * turn and never edit it once built (`../anthropic/wire.ts`); a moved cache
 * breakpoint or a merge makes a new object. So each list item's JSON is
 * remembered by its object, and a request joins the remembered pieces.
 *
 * The result is exactly `JSON.stringify` of the body with `trailing`'s members
 * after its own: `JSON.stringify` of an object is its members' pieces joined
 * by commas, and of an array its items' pieces, so joining the same pieces
 * gives the same bytes (a property test checks it against `JSON.stringify`).
 */

/** Each list item's JSON, by the item object; an item is never edited once it is on the wire. */
const itemJson = new WeakMap<object, string>()

/**
 * `JSON.stringify({ ...body, ...trailing })` for plain data (no `toJSON`, no
 * key of `trailing` also in `body`), with the items of the arrays named in
 * `lists` serialized once per item object.
 */
export function requestBodyJson(body: object, lists: readonly string[], trailing: object): string {
  const members: string[] = []
  addMembers(members, body, lists)
  addMembers(members, trailing, [])
  return `{${members.join(',')}}`
}

function addMembers(members: string[], source: object, lists: readonly string[]): void {
  const record = source as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const value = record[key]
    const json = lists.includes(key) && Array.isArray(value) ? listJson(value) : JSON.stringify(value)
    // `JSON.stringify` leaves out a member whose value has no JSON (undefined, a function).
    if (json !== undefined)
      members.push(`${JSON.stringify(key)}:${json}`)
  }
}

function listJson(items: readonly unknown[]): string {
  const pieces = Array.from({ length: items.length })
  for (let i = 0; i < items.length; i++) pieces[i] = memoizedJson(items[i])
  return `[${pieces.join(',')}]`
}

function memoizedJson(item: unknown): string {
  if (typeof item !== 'object' || item === null)
    return JSON.stringify(item) ?? 'null'
  let json = itemJson.get(item)
  if (json === undefined) {
    // An array item with no JSON of its own is written `null`, as `JSON.stringify` writes it.
    json = JSON.stringify(item) ?? 'null'
    itemJson.set(item, json)
  }
  return json
}
