import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { tool } from '../../src'

/**
 * `tool()` converts a schema with the schema's own `toJSONSchema` method, so
 * the root never imports zod; a schema without the method falls back to
 * zidane's zod. Both paths must give the model the same JSON Schema.
 */

function input() {
  return z.object({
    path: z.string().describe('File to read.'),
    limit: z.number().int().min(1).default(200).meta({ examples: [50] }),
    mode: z.enum(['text', 'lines']).optional(),
  })
}

describe('tool() JSON Schema conversion', () => {
  it('uses the schema\'s own converter when it has one', () => {
    const schema = input()
    let calls = 0
    const own = schema.toJSONSchema.bind(schema)
    Object.defineProperty(schema, 'toJSONSchema', {
      value: (params: unknown) => {
        calls++
        return own(params as never)
      },
    })
    const def = tool({ name: 'read', description: 'Read.', input: schema, execute: () => 'ok' })
    expect(calls).toBe(1)
    expect(def.spec.inputSchema).toMatchObject({ type: 'object', required: ['path'] })
  })

  it('falls back to zidane\'s zod for a schema without the method, with the same result', () => {
    const withMethod = tool({ name: 'read', description: 'Read.', input: input(), execute: () => 'ok' })
    const bare = input()
    Object.defineProperty(bare, 'toJSONSchema', { value: undefined })
    const withoutMethod = tool({ name: 'read', description: 'Read.', input: bare, execute: () => 'ok' })
    expect(withoutMethod.spec.inputSchema).toEqual(withMethod.spec.inputSchema)
    expect(JSON.stringify(withoutMethod.spec.inputSchema)).toBe(JSON.stringify(withMethod.spec.inputSchema))
    expect(withMethod.spec.inputSchema).toMatchObject({
      properties: { path: { description: 'File to read.' }, limit: { default: 200, examples: [50] } },
    })
    expect(withMethod.spec.inputSchema).not.toHaveProperty('$schema')
  })
})
