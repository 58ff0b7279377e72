/**
 * Append every item of `items` to `target`, in order. `target.push(...items)`
 * passes each item as an argument, and on Node 20 an array of more than about
 * 120,000 items overflows the call stack with a `RangeError`. The lengths the
 * library appends mostly come from outside (a model's tool calls or
 * reasoning details, a server's tool list, a conversation), so a spread
 * there would let one oversized answer make every later request fail. A
 * lint rule keeps spreads out of `push`, `unshift`, `splice`, `Math.min`,
 * `Math.max` and `String.fromCharCode` calls.
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items)
    target.push(item)
  return target
}
