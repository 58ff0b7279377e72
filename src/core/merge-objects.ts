/**
 * `{ ...a, ...b }` (and so on), built without the slow path Node 20's V8
 * takes for an object literal that begins with a spread: there every property
 * or spread after the first is a runtime call of about 0.3 µs, and the loop
 * builds such objects for every turn, tool call and streamed delta. An object
 * literal that begins with a plain property has no such cost, whatever
 * follows it.
 *
 * `Object.assign` onto a fresh object gives the same keys, in the same order,
 * with the same values (an `undefined` source adds nothing, as with a
 * spread), with one exception: a source whose own keys include `__proto__`
 * (JSON parsed from a model or a server can have one) would set the new
 * object's prototype instead of getting a property of that name. Such a
 * source takes the spread, so the result is always what the spread gives.
 */
export function mergeObjects<A extends Source, B extends Source>(a: A, b: B): Merged<A, B>
export function mergeObjects<A extends Source, B extends Source, C extends Source>(a: A, b: B, c: C): Merged<Merged<A, B>, C>
export function mergeObjects<A extends Source, B extends Source, C extends Source, D extends Source>(a: A, b: B, c: C, d: D): Merged<Merged<Merged<A, B>, C>, D>
export function mergeObjects(...sources: Source[]): object {
  for (const source of sources) {
    if (source != null && Object.hasOwn(source, '__proto__'))
      return sources.reduce<object>((merged, next) => ({ ...merged, ...next }), {})
  }
  return Object.assign({}, ...sources)
}

/** What may be spread: an object, or nothing. */
type Source = object | undefined | null

/** The type of `{ ...A, ...B }`: B's keys replace A's, member by member of a union. */
export type Merged<A, B> = A extends null | undefined ? Spread<B> : B extends null | undefined ? Spread<A> : A extends unknown ? B extends unknown ? Omit<A, keyof B> & B : never : never

type Spread<T> = T extends null | undefined ? unknown : T
