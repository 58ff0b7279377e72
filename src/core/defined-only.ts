/**
 * A shallow copy without the keys whose value is `undefined`: so a run's
 * unset options do not erase the agent's, and stored records carry no holes.
 */
export function definedOnly<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {}
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined)
      out[key] = value[key]
  }
  return out
}
