import type { ToolResultBlock } from '../../src/core/content'
import type { ToolDef } from '../../src/tools/types'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { schemaRefProblem } from '../../src/schema/refs'
import { scriptedProvider } from '../../src/testing'
import { checkJsonSchema } from '../../src/tools/json-schema'

/** Every name `Object.prototype` answers to, the ones a plain `obj[key]` lookup would find on any object. */
const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__']

/** An object with exactly these own keys, `__proto__` included as an ordinary key (as JSON.parse makes it). */
function objectWithKeys(keys: readonly string[]): Record<string, unknown> {
  return JSON.parse(`{${keys.map(key => `${JSON.stringify(key)}: 1`).join(',')}}`) as Record<string, unknown>
}

describe('checkJsonSchema: keys named after Object.prototype members', () => {
  it('flags exactly the keys not declared, whatever they are named (property)', () => {
    const key = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 6 }))
    fc.assert(fc.property(fc.uniqueArray(key, { maxLength: 6 }), fc.uniqueArray(key, { maxLength: 6 }), (declared, given) => {
      const properties = objectWithKeys(declared)
      for (const name of Object.keys(properties)) properties[name] = { type: 'integer' }
      const schema = { type: 'object', properties, additionalProperties: false }
      const problems = checkJsonSchema(schema, objectWithKeys(given))
      const undeclared = given.filter(name => !declared.includes(name))
      expect(problems.sort()).toEqual(undeclared.map(name => `${name}: is not an allowed property`).sort())
    }))
  })

  it('reports a required key named after a prototype member when it is missing (property)', () => {
    fc.assert(fc.property(fc.constantFrom(...PROTOTYPE_NAMES), (name) => {
      expect(checkJsonSchema({ type: 'object', required: [name] }, {})).toEqual([`${name}: is required`])
      expect(checkJsonSchema({ type: 'object', required: [name] }, objectWithKeys([name]))).toEqual([])
    }))
  })

  it('does not take an inherited member for a property schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'boolean' } }
    expect(checkJsonSchema(schema, { constructor: true, toString: 'x' })).toEqual(['toString: expected boolean, got string'])
  })
})

describe('checkJsonSchema: $ref and the combinators', () => {
  const tree = {
    type: 'object',
    properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#' } } },
    required: ['value'],
    additionalProperties: false,
  }

  it('checks a recursive schema through its $ref at every level', () => {
    expect(checkJsonSchema(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] })).toEqual([])
    expect(checkJsonSchema(tree, { value: 1, children: [{ value: 2, children: [{ value: 'x', extra: 1 }] }] })).toEqual([
      'children[0].children[0].value: expected integer, got string',
      'children[0].children[0].extra: is not an allowed property',
    ])
  })

  it('resolves $defs and definitions pointers, escaped tokens included', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/name' }, b: { $ref: '#/definitions/a~1b' }, c: { $ref: '#/$defs/with%20space' } },
      $defs: { 'name': { type: 'string', minLength: 2 }, 'with space': { enum: [1, 2] } },
      definitions: { 'a/b': { type: 'boolean' } },
    }
    expect(checkJsonSchema(schema, { a: 'ok', b: true, c: 2 })).toEqual([])
    expect(checkJsonSchema(schema, { a: 'x', b: 1, c: 3 })).toEqual([
      'a: must have at least 2 characters',
      'b: expected boolean, got integer',
      'c: must be one of 1, 2',
    ])
  })

  it('applies allOf, patternProperties and boolean subschemas', () => {
    const schema = {
      type: 'object',
      allOf: [{ required: ['id'] }, { properties: { id: { type: 'string' } } }],
      patternProperties: { '^x-': { type: 'number' } },
      properties: { id: true, never: false },
      additionalProperties: false,
    }
    expect(checkJsonSchema(schema, { 'id': 'a', 'x-size': 2 })).toEqual([])
    expect(checkJsonSchema(schema, { 'x-size': 'big', 'never': 1, 'other': 1 })).toEqual([
      'id: is required',
      'x-size: expected number, got string',
      'never: is not allowed here',
      'other: is not an allowed property',
    ])
  })

  it('ends on a schema whose references loop without descending (as an MCP server may send)', () => {
    expect(checkJsonSchema({ $ref: '#' }, { a: 1 })).toEqual([])
    expect(checkJsonSchema({ allOf: [{ $ref: '#/$defs/a' }], $defs: { a: { $ref: '#' } }, type: 'string' }, 1)).toEqual(['(input): expected string, got integer'])
  })
})

describe('schemaRefProblem', () => {
  it('accepts local references and recursion that descends', () => {
    expect(schemaRefProblem({ type: 'object', properties: { next: { $ref: '#' } } })).toBeUndefined()
    expect(schemaRefProblem({ $ref: '#/$defs/a', $defs: { a: { type: 'array', items: { $ref: '#/$defs/a' } } } })).toBeUndefined()
  })

  it('names a reference that leaves the schema or points at nothing', () => {
    expect(schemaRefProblem({ properties: { a: { $ref: 'https://example.com/s.json' } } })).toMatch(/"\$ref" "https:\/\/example\.com\/s\.json" at #\/properties\/a does not point inside the schema/)
    expect(schemaRefProblem({ properties: { a: { $ref: '#/$defs/missing' } } })).toMatch(/#\/\$defs\/missing/)
    expect(schemaRefProblem({ $ref: 7 })).toMatch(/not a string/)
  })

  it('names a loop that never reaches the value', () => {
    expect(schemaRefProblem({ $ref: '#' })).toMatch(/loop/)
    expect(schemaRefProblem({ anyOf: [{ $ref: '#/$defs/b' }], $defs: { b: { allOf: [{ $ref: '#' }] } } })).toMatch(/loop/)
  })

  it('walks a deep schema without recursion', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { a: deep } }
    expect(schemaRefProblem(deep)).toBeUndefined()
  })
})

function rawTool(inputSchema: Record<string, unknown>, calls: unknown[] = []): ToolDef {
  return {
    spec: { name: 'save', description: 'save a tree', inputSchema },
    execute: (input) => {
      calls.push(input)
      return 'saved'
    },
  }
}

describe('raw-schema tools through the agent', () => {
  it('refuses at createAgent a tool whose schema refers outside itself, naming the tool and the reference', () => {
    const provider = scriptedProvider([])
    expect(() => createAgent({ provider, tools: { save: rawTool({ type: 'object', properties: { a: { $ref: 'other.json#/a' } } }) } }))
      .toThrow(/Tool "save": its inputSchema cannot be checked: the "\$ref" "other\.json#\/a"/)
    expect(() => createAgent({ provider, tools: { save: rawTool({ $ref: '#' }) } })).toThrow(/loop/)
  })

  it('refuses at run() a per-run tool with such a schema', async () => {
    const agent = createAgent({ provider: scriptedProvider([{ text: 'x' }]) })
    await expect(agent.run({ prompt: 'go', tools: { save: rawTool({ $ref: '#/nowhere' }) } })).rejects.toThrow(TypeError)
  })

  it('refuses a structured-output JSON schema zidane cannot check', () => {
    expect(() => createAgent({ provider: scriptedProvider([]), behavior: { schema: { type: 'object', properties: { a: { $ref: '#/$defs/gone' } } } } }))
      .toThrow(/a JSON Schema zidane can check/)
  })

  it('answers a call whose nested input breaks a $ref-d part with an error result, without running the tool', async () => {
    const calls: unknown[] = []
    const schema = { type: 'object', properties: { root: { $ref: '#/$defs/node' } }, required: ['root'], $defs: { node: { type: 'object', properties: { id: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['id'], additionalProperties: false } } }
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'save', input: { root: { id: 1, kids: [{ id: 2, kids: [{ constructor: 1 }] }] } } }] },
      { toolCalls: [{ name: 'save', input: { root: { id: 1, kids: [{ id: 2 }] } } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { save: rawTool(schema, calls) } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const first = provider.requests[1]!.messages.at(-1)!.content as ToolResultBlock[]
    expect(first[0]!.isError).toBe(true)
    expect(first[0]!.output).toContain('root.kids[0].kids[0].id: is required')
    expect(first[0]!.output).toContain('root.kids[0].kids[0].constructor: is not an allowed property')
    expect(calls).toEqual([{ root: { id: 1, kids: [{ id: 2 }] } }])
  })
})

describe('repair messages repeat a bounded part of the schema', () => {
  const options = Array.from({ length: 100_000 }, (_, i) => `code-${i}`)

  it('lists a few options of a huge enum and says how many there are', () => {
    const [problem] = checkJsonSchema({ enum: options }, 'nope')
    expect(problem).toContain('"code-0", "code-1"')
    expect(problem).toContain('(100000 options in all)')
    expect(problem!.length).toBeLessThan(600)
  })

  it('keeps the error result of a raw-schema tool small', async () => {
    const properties = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, { enum: options.slice(0, 1000) }]))
    const provider = scriptedProvider([{ toolCalls: [{ name: 'save', input: Object.fromEntries(Object.keys(properties).map(key => [key, 'bad'])) }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { save: rawTool({ type: 'object', properties }) } })
    await agent.run({ prompt: 'go' })
    const [result] = provider.requests[1]!.messages.at(-1)!.content as ToolResultBlock[]
    expect(result!.isError).toBe(true)
    expect(result!.output).toContain('and 280 more problems')
    expect(String(result!.output).length).toBeLessThan(12_000)
  })

  it('keeps the error result of a zod tool with a huge enum small', async () => {
    const pick = tool({ name: 'pick', description: 'pick a code', input: z.object({ code: z.enum(options.slice(0, 20_000) as [string, ...string[]]) }), execute: () => 'ok' })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'pick', input: { code: 'nope' } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { pick } })
    await agent.run({ prompt: 'go' })
    const [result] = provider.requests[1]!.messages.at(-1)!.content as ToolResultBlock[]
    expect(result!.isError).toBe(true)
    expect(result!.output).toContain('code:')
    expect(String(result!.output).length).toBeLessThan(1_000)
  })

  it('keeps the structured-output repair message small', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'final_answer', input: { value: 'nope' } }] },
      { toolCalls: [{ name: 'final_answer', input: { value: 'code-7' } }] },
    ])
    const agent = createAgent({ provider, behavior: { schema: { enum: options } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.output).toBe('code-7')
    const request = JSON.stringify(provider.requests[1]!.messages.at(-1))
    expect(request).toContain('100000 options in all')
    expect(request.length).toBeLessThan(2_000)
  })
})
