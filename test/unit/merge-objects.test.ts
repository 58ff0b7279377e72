import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergeObjects } from '../../src/core/merge-objects'

/** Own keys in order, each with its value and whether it is a plain data property, and the prototype. */
function shape(value: object) {
  return {
    proto: Object.getPrototypeOf(value),
    keys: Reflect.ownKeys(value).map(key => [key, Object.getOwnPropertyDescriptor(value, key)]),
  }
}

describe('mergeObjects', () => {
  it('gives what a spread gives: keys, order, values and prototype', () => {
    const objectArb = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 5 })
    fc.assert(fc.property(objectArb, objectArb, objectArb, (a, b, c) => {
      expect(shape(mergeObjects(a, b))).toEqual(shape({ ...a, ...b }))
      expect(shape(mergeObjects(a, b, c))).toEqual(shape({ ...a, ...b, ...c }))
    }), { numRuns: 300 })
  })

  it('keeps a parsed `__proto__` key as a property, as a spread does, instead of setting the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"isError": true}, "type": "text"}') as object
    const merged = mergeObjects({ kind: 'block' }, hostile) as Record<string, unknown>
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
    expect(merged.isError).toBeUndefined()
    expect(Object.hasOwn(merged, '__proto__')).toBe(true)
    expect(shape(merged)).toEqual(shape({ kind: 'block', ...hostile }))
  })

  it('skips an undefined or null source, as a spread does', () => {
    expect(mergeObjects({ a: 1 }, undefined)).toEqual({ a: 1 })
    expect(mergeObjects(null, { b: 2 })).toEqual({ b: 2 })
  })

  it('reads a getter of a source once and keeps its value, as a spread does', () => {
    let reads = 0
    const source = {
      get value() {
        reads += 1
        return reads
      },
    }
    const merged = mergeObjects(source, { other: true })
    expect(reads).toBe(1)
    expect(Object.getOwnPropertyDescriptor(merged, 'value')).toEqual({ value: 1, writable: true, enumerable: true, configurable: true })
  })
})
