import { Buffer } from 'node:buffer'

/**
 * Encode a tool-state value as JSON, refusing anything JSON would change on
 * the way through (a `Map` becoming `{}`, `NaN` becoming `null`, a `Date`
 * coming back as a string): state crosses a store and maybe a journal, and a
 * value that reads back different from what was written is a silent bug.
 * Object properties holding `undefined` are allowed and left out, as JSON
 * does, since a read reports a missing key the same way.
 */
export function encodeStateValue(key: string, value: unknown, maxBytes: number): string {
  const problem = describeNonJson(value, 'value', new Set())
  if (problem)
    throw new TypeError(`Tool state "${key}" cannot be stored: ${problem}; only plain JSON data is allowed`)
  const json = JSON.stringify(value)
  const bytes = Buffer.byteLength(json, 'utf8')
  if (bytes > maxBytes)
    throw new RangeError(`Tool state "${key}" is ${bytes} bytes of JSON, more than the store's limit of ${maxBytes} bytes`)
  return json
}

/** A fresh copy of a stored value (`undefined` for a missing one). */
export function decodeStateValue<T>(json: string | undefined): T | undefined {
  return json === undefined ? undefined : JSON.parse(json) as T
}

export function assertStateKey(key: unknown): asserts key is string {
  if (typeof key !== 'string')
    throw new TypeError(`Tool state keys are strings, got ${typeof key}`)
}

/** What keeps `value` from being plain JSON (naming where, from `path`), or `undefined` when it is. */
export function describeNonJson(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  const found = nonJsonPart(value, ancestors)
  return found && `${path}${found.where.reverse().join('')} ${found.problem}`
}

/** Where (path segments, innermost first) and what breaks JSON in `value`. */
interface NonJsonPart {
  where: string[]
  problem: string
}

/**
 * The check behind `describeNonJson`. It runs on every policy state a phase
 * returns, so the path is put together only on the way out of a failed check:
 * building it for every element made the check cost several times the walk.
 */
function nonJsonPart(value: unknown, ancestors: Set<object>): NonJsonPart | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : { where: [], problem: `is ${value}` }
    case 'object':
      break
    default:
      return { where: [], problem: `is ${value === undefined ? 'undefined' : `a ${typeof value}`}` }
  }
  if (value === null)
    return undefined
  if (ancestors.has(value))
    return { where: [], problem: 'refers back to itself' }
  ancestors.add(value)
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = nonJsonPart(value[i], ancestors)
        if (found) {
          found.where.push(`[${i}]`)
          return found
        }
      }
      return undefined
    }
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null)
      return { where: [], problem: `is a ${(value as { constructor?: { name?: string } }).constructor?.name || 'non-plain'} object` }
    for (const name of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[name]
      if (child === undefined)
        continue
      const found = nonJsonPart(child, ancestors)
      if (found) {
        found.where.push(`.${name}`)
        return found
      }
    }
    return undefined
  }
  finally {
    ancestors.delete(value)
  }
}
