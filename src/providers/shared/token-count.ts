/**
 * A token count as a provider's answer reports it, made a number the loop can
 * add up. Usage comes from the server or a gateway in front of it, and a
 * count that is a string (`"100"`), negative, `null`, an object, or past any
 * float (`1e309` parses as `Infinity`) would otherwise reach the run's totals:
 * a string turns the sum into text, `Infinity` or `NaN` makes every token
 * budget either trip at once or never, and the cost follows. A count is
 * taken when it is a number from 0 to `Number.MAX_SAFE_INTEGER` (no real
 * answer comes near it, and sums of such counts stay exact for any run);
 * anything else counts as 0.
 */
export function tokenCount(value: unknown): number {
  return isCount(value) ? value : 0
}

/** An optional count (reasoning tokens): `undefined` when the answer has none that is valid. */
export function optionalTokenCount(value: unknown): number | undefined {
  return isCount(value) ? value : undefined
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER
}
