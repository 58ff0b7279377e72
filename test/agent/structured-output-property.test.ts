import type { FakeAnthropic } from '../support/fake-anthropic'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { parsePartialJson } from '../../src/tools/output-schema'
import { startFakeAnthropic } from '../support/fake-anthropic'

// Any value valid for a generated schema comes back as `stats.output`,
// unchanged, through the final-answer tool over the Anthropic wire; and every
// prefix of an output's JSON text reads as a partial value without throwing.

type Schema = Record<string, unknown>

const key = fc.string({ minLength: 1, maxLength: 6 }).filter(name => name !== '__proto__' && name !== 'constructor')

const schemas: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema, leaf: Schema, array: Schema, object: Schema }>(tie => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(
    fc.constant({ type: 'string' }),
    fc.constant({ type: 'number' }),
    fc.constant({ type: 'integer', minimum: -1000, maximum: 1000 }),
    fc.constant({ type: 'boolean' }),
    fc.constant({ type: 'null' }),
    fc.uniqueArray(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 3 }).map(options => ({ type: 'string', enum: options })),
  ),
  array: tie('node').map(items => ({ type: 'array', items })),
  object: fc.dictionary(key, tie('node'), { maxKeys: 4 }).chain(properties =>
    fc.subarray(Object.keys(properties)).map(required => ({ type: 'object', properties, required, additionalProperties: false }))),
})).node

function valueFor(schema: Schema): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'string':
      return Array.isArray(schema.enum) ? fc.constantFrom(...schema.enum as string[]) : fc.string({ maxLength: 12 })
    // Finite, and no negative zero: JSON has no way to write either.
    case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true }).map(n => Object.is(n, -0) ? 0 : n)
    case 'integer': return fc.integer({ min: -1000, max: 1000 })
    case 'boolean': return fc.boolean()
    case 'null': return fc.constant(null)
    case 'array': return fc.array(valueFor(schema.items as Schema), { maxLength: 3 })
    default: {
      const properties = schema.properties as Record<string, Schema>
      const model = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, valueFor(child)]))
      return fc.record(model, { requiredKeys: schema.required as string[] })
    }
  }
}

const pairs = schemas.chain(schema => valueFor(schema).map(value => ({ schema, value })))

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic()
})
afterAll(async () => {
  await fake.close()
})

describe('structured output round trip', () => {
  it('any value valid for a generated schema is the run\'s output, unchanged', async () => {
    await fc.assert(fc.asyncProperty(pairs, async ({ schema, value }) => {
      const wrapped = schema.type !== 'object'
      fake.enqueue({ type: 'turn', turn: { toolCalls: [{ name: 'final_answer', input: wrapped ? { value } : value }] } })
      const agent = createAgent({ provider: anthropic({ baseURL: fake.url, apiKey: 'test-key', defaultModel: 'claude-sonnet-4-6' }), behavior: { schema } })
      try {
        const stats = await agent.run({ prompt: 'answer' })
        expect(stats.stopReason).toBe('completed')
        expect(stats.output).toEqual(value)
      }
      finally {
        await agent.destroy()
      }
    }), { numRuns: 40 })
  }, 60_000)

  it('every prefix of an output\'s JSON text reads as a partial value, and the whole text as the value', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value)
      for (let end = 0; end < text.length; end++)
        parsePartialJson(text.slice(0, end))
      expect(parsePartialJson(text)).toEqual(JSON.parse(text))
    }), { numRuns: 300 })
  })

  it('a partial object shows its finished members and the string being written', () => {
    expect(parsePartialJson('{"city": "Ljub')).toEqual({ city: 'Ljub' })
    expect(parsePartialJson('{"city": "Ljubljana", "cel')).toEqual({ city: 'Ljubljana' })
    expect(parsePartialJson('{"city": "Ljubljana", "celsius": 2')).toEqual({ city: 'Ljubljana', celsius: 2 })
    expect(parsePartialJson('{"tags": ["a", "b')).toEqual({ tags: ['a', 'b'] })
    expect(parsePartialJson('{"a": "x\\')).toEqual({ a: 'x' })
    expect(parsePartialJson('{"a": tr')).toEqual({})
    expect(parsePartialJson('')).toBeUndefined()
  })
})
