/** Freeze a value and everything it holds, so that any in-place edit throws (test files are ES modules: strict mode). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value))
      deepFreeze(inner)
  }
  return value
}
