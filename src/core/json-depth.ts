/**
 * How deeply a JSON-like value nests, measured without recursion: a value
 * from outside (a model's tool arguments) may nest thousands of levels, and
 * a recursive walk would overflow the stack on exactly the input it checks.
 */

/**
 * Whether `value` has objects or arrays nested more than `max` levels deep.
 * A scalar is 0 levels; `{}` and `[]` are 1; `{ "a": [1] }` is 2. A parsed
 * JSON value is a tree and each container is visited once. A container
 * reached twice (shared, or a cycle) is walked again only when reached at a
 * deeper level, which ends once the level passes `max`: a cycle reads as too
 * deep, and the work stays bounded by the size times `max`.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (!isContainer(value))
    return false
  const deepestSeen = new Map<object, number>()
  const pending: object[] = [value]
  const levels: number[] = [1]
  while (pending.length > 0) {
    const container = pending.pop()!
    const level = levels.pop()!
    if (level > max)
      return true
    if ((deepestSeen.get(container) ?? 0) >= level)
      continue
    deepestSeen.set(container, level)
    const members = Array.isArray(container) ? container : Object.values(container)
    for (const member of members) {
      if (isContainer(member)) {
        pending.push(member)
        levels.push(level + 1)
      }
    }
  }
  return false
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}
