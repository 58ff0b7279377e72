import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkJsonSchema } from '../../src/tools/json-schema'

describe('checkJsonSchema', () => {
  const object = {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      mode: { enum: ['r', 'w'] },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'] },
    },
    required: ['path'],
    additionalProperties: false,
  }

  it('accepts a valid value', () => {
    expect(checkJsonSchema(object, { path: 'a', limit: 5, mode: 'r', tags: ['x'], nested: { flag: true } })).toEqual([])
  })

  it('reports every problem at once, each with its path', () => {
    const problems = checkJsonSchema(object, { limit: 0, mode: 'x', tags: ['a', 2, 'c'], nested: {}, extra: true })
    expect(problems).toEqual(expect.arrayContaining([
      'path: is required',
      'limit: must be >= 1',
      'mode: must be one of "r", "w"',
      'tags: must have at most 2 items',
      'tags[1]: expected string, got integer',
      'nested.flag: is required',
      'extra: is not an allowed property',
    ]))
    expect(problems).toHaveLength(7)
  })

  it('names the root as (input)', () => {
    expect(checkJsonSchema({ type: 'object' }, 'text')).toEqual(['(input): expected object, got string'])
    expect(checkJsonSchema({ type: 'object' }, [])).toEqual(['(input): expected object, got array'])
    expect(checkJsonSchema({ type: 'object' }, null)).toEqual(['(input): expected object, got null'])
  })

  it('tells integers from numbers', () => {
    expect(checkJsonSchema({ type: 'integer' }, 1.5)).toEqual(['(input): expected integer, got number'])
    expect(checkJsonSchema({ type: 'integer' }, 2)).toEqual([])
    expect(checkJsonSchema({ type: 'number' }, 2)).toEqual([])
    expect(checkJsonSchema({ type: 'number' }, Number.NaN)).toHaveLength(1)
  })

  it('accepts any listed type', () => {
    const nullable = { type: ['string', 'null'] }
    expect(checkJsonSchema(nullable, null)).toEqual([])
    expect(checkJsonSchema(nullable, 'x')).toEqual([])
    expect(checkJsonSchema(nullable, 1)).toEqual(['(input): expected string or null, got integer'])
  })

  it('checks const with deep equality', () => {
    expect(checkJsonSchema({ const: { a: [1, 2] } }, { a: [1, 2] })).toEqual([])
    expect(checkJsonSchema({ const: { a: [1, 2] } }, { a: [2, 1] })).toEqual(['(input): must be {"a":[1,2]}'])
  })

  it('checks string and number bounds', () => {
    expect(checkJsonSchema({ type: 'string', maxLength: 2 }, 'abc')).toEqual(['(input): must have at most 2 characters'])
    expect(checkJsonSchema({ type: 'string', pattern: '^a+$' }, 'aab')).toEqual(['(input): must match /^a+$/'])
    expect(checkJsonSchema({ type: 'number', exclusiveMinimum: 0 }, 0)).toEqual(['(input): must be > 0'])
    expect(checkJsonSchema({ type: 'number', exclusiveMaximum: 1 }, 1)).toEqual(['(input): must be < 1'])
    expect(checkJsonSchema({ type: 'number', maximum: 1 }, 2)).toEqual(['(input): must be <= 1'])
    expect(checkJsonSchema({ type: 'array', minItems: 1 }, [])).toEqual(['(input): must have at least 1 items'])
  })

  it('counts string length in characters, not UTF-16 units', () => {
    expect(checkJsonSchema({ type: 'string', maxLength: 1 }, '😀')).toEqual([])
    expect(checkJsonSchema({ type: 'string', minLength: 2 }, '😀')).toEqual(['(input): must have at least 2 characters'])
  })

  it('does not throw on a pattern that is valid ECMA-262 but not in unicode mode', () => {
    const schema = { type: 'string', pattern: '^\\d+\\:\\d+$' }
    expect(() => checkJsonSchema(schema, '10:30')).not.toThrow()
    expect(checkJsonSchema(schema, '10:30')).toEqual([])
    expect(checkJsonSchema(schema, 'ten')).toHaveLength(1)
  })

  it('ignores a pattern that is not a regular expression at all', () => {
    expect(checkJsonSchema({ type: 'string', pattern: '(' }, 'x')).toEqual([])
  })

  it('matches anyOf and oneOf alternatives', () => {
    const schema = { anyOf: [{ type: 'string' }, { type: 'object', required: ['id'] }] }
    expect(checkJsonSchema(schema, 's')).toEqual([])
    expect(checkJsonSchema(schema, { id: 1 })).toEqual([])
    expect(checkJsonSchema(schema, {})).toEqual(['(input): does not match any allowed shape'])
    expect(checkJsonSchema({ oneOf: [{ type: 'number' }] }, 'x')).toEqual(['(input): does not match any allowed shape'])
  })

  it('checks additionalProperties given as a schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } }
    expect(checkJsonSchema(schema, { a: 'x', b: 1 })).toEqual([])
    expect(checkJsonSchema(schema, { a: 'x', b: 'y' })).toEqual(['b: expected number, got string'])
  })

  it('allows unknown properties unless additionalProperties is false', () => {
    expect(checkJsonSchema({ type: 'object', properties: {} }, { any: 1 })).toEqual([])
  })

  it('ignores unknown keywords', () => {
    expect(checkJsonSchema({ 'type': 'string', 'format': 'uri', 'x-custom': true }, 'not a uri')).toEqual([])
  })

  it('treats an explicit undefined as missing', () => {
    expect(checkJsonSchema({ type: 'object', required: ['a'] }, { a: undefined })).toEqual(['a: is required'])
  })

  it('reads a schema\'s keywords once, at its first check, not on every value checked against it', () => {
    let reads = 0
    const counted = new Proxy({ ...object }, {
      get(target, key, receiver) {
        reads++
        return Reflect.get(target, key, receiver)
      },
      getOwnPropertyDescriptor(target, key) {
        reads++
        return Reflect.getOwnPropertyDescriptor(target, key)
      },
    })
    expect(checkJsonSchema(counted, { path: 'a' })).toEqual([])
    expect(reads).toBeGreaterThan(0)
    reads = 0
    expect(checkJsonSchema(counted, { path: '' })).toEqual(['path: must have at least 1 characters'])
    expect(checkJsonSchema(counted, { limit: 0, extra: 1 })).toEqual(['path: is required', 'limit: must be >= 1', 'extra: is not an allowed property'])
    expect(reads).toBe(0)
  })

  it('finds the same problems with a schema it has seen before as with a fresh copy of it', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 4 },
        count: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
        list: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'string' }, { const: 7 }] } },
        any: { allOf: [{ type: ['string', 'null'] }, { enum: ['x', null] }] },
      },
      patternProperties: { '^p_': { type: 'boolean' } },
      additionalProperties: { type: 'integer' },
      required: ['name'],
    }
    fc.assert(fc.property(fc.dictionary(fc.constantFrom('name', 'count', 'list', 'any', 'p_a', 'other'), fc.jsonValue({ maxDepth: 2 })), (value) => {
      expect(checkJsonSchema(schema, value)).toEqual(checkJsonSchema(structuredClone(schema), value))
    }), { numRuns: 300 })
  })
})
