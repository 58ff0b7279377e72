import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { tool } from '../../src'

/**
 * A schema built by another copy of zod (zod 3.25's `zod/v4`, a nested zod)
 * keeps its metadata in that copy's registry: its own `.meta()` sees it, the
 * converter's registry does not. Model that by giving the schema a `.meta()`
 * that answers from a registry zidane's zod does not know.
 */
function fromOtherCopy<Schema extends z.ZodType>(schema: Schema, meta: Record<string, unknown>): Schema {
  Object.defineProperty(schema, 'meta', { value: () => meta })
  return schema
}

describe('tool() and zod', () => {
  it('keeps descriptions set through the shared registry', () => {
    const t = tool({
      name: 'w',
      description: 'd',
      input: z.object({ city: z.string().describe('City name') }).describe('Where'),
      execute: () => 'ok',
    })
    expect(t.spec.inputSchema).toMatchObject({ description: 'Where', properties: { city: { type: 'string', description: 'City name' } } })
  })

  it('keeps descriptions a schema from another zod copy carries in its own registry', () => {
    const city = fromOtherCopy(z.string(), { description: 'City name', examples: ['Paris'] })
    const input = fromOtherCopy(z.object({ city }), { description: 'Where', id: 'ignored' })
    const t = tool({ name: 'w', description: 'd', input, execute: () => 'ok' })
    expect(t.spec.inputSchema).toEqual({
      type: 'object',
      description: 'Where',
      properties: { city: { type: 'string', description: 'City name', examples: ['Paris'] } },
      required: ['city'],
    })
  })

  it('refuses a zod 3 schema with a TypeError naming the fix', () => {
    const input = z3.object({ city: z3.string() })
    // @ts-expect-error a zod 3 schema has no `_zod`; the compiler refuses it too.
    expect(() => tool({ name: 'old', description: 'd', input, execute: () => 'ok' })).toThrow(TypeError)
    // @ts-expect-error see above
    expect(() => tool({ name: 'old', description: 'd', input, execute: () => 'ok' })).toThrow(/tool "old".*zod 3.*zod\/v4/)
  })

  it('refuses something that is not a schema', () => {
    // @ts-expect-error not a schema
    expect(() => tool({ name: 'raw', description: 'd', input: { type: 'object' }, execute: () => 'ok' })).toThrow(/must be a zod 4 schema/)
  })

  it('validates through the schema itself and names nested fields', () => {
    const t = tool({
      name: 'w',
      description: 'd',
      input: z.object({ items: z.array(z.object({ name: z.string() })), days: z.number().default(1) }),
      execute: () => 'ok',
    })
    expect(t.validate?.({ items: [{ name: 'a' }] })).toEqual({ ok: true, value: { items: [{ name: 'a' }], days: 1 } })
    const bad = t.validate?.({ items: [{ name: 3 }] })
    expect(bad).toMatchObject({ ok: false })
    expect(bad && !bad.ok && bad.error).toMatch(/^items\.0\.name: /)
  })

  it('reports an asynchronous schema as an error result instead of throwing', () => {
    const t = tool({
      name: 'w',
      description: 'd',
      input: z.object({ a: z.string() }).refine(async () => true),
      execute: () => 'ok',
    })
    expect(t.validate?.({ a: 'x' })).toMatchObject({ ok: false, error: expect.stringContaining('asynchronous') })
  })
})
