import { McpError } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerElicitation } from '../../src/mcp/elicitation'
import { elicitationDefaults } from '../../src/mcp/elicitation-form'
import { mergeScopes } from '../../src/mcp/oauth/challenge'

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 20 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
    ok: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
  },
  required: ['name', 'age'],
}

/** The same rules, written out by hand: what an accepted answer must satisfy. */
function conforms(content: Record<string, unknown>): boolean {
  const { name, age, ratio, ok, color, tags } = content
  return typeof name === 'string' && name.length >= 1 && [...name].length <= 20
    && Number.isInteger(age) && (age as number) >= 0 && (age as number) <= 150
    && typeof ratio === 'number' && ratio >= 0 && ratio <= 1
    && typeof ok === 'boolean'
    && (color === 'red' || color === 'green')
    && (tags === undefined || (Array.isArray(tags) && tags.every(t => t === 'a' || t === 'b' || t === 'c')))
}

const anyValue = fc.oneof(fc.string({ maxLength: 25 }), fc.integer({ min: -10, max: 200 }), fc.double({ min: -2, max: 2, noNaN: true }), fc.boolean(), fc.constant(null), fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 3 }), fc.constantFrom('red', 'green', 'blue'))
/** Mostly-valid answers (so acceptance is exercised) mixed with arbitrary ones. */
const valid = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  age: fc.integer({ min: 0, max: 150 }),
  ratio: fc.double({ min: 0, max: 1, noNaN: true }),
  ok: fc.boolean(),
  color: fc.constantFrom('red', 'green'),
  tags: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
}, { requiredKeys: ['name', 'age'] })
const arbitrary = fc.record({ name: anyValue, age: anyValue, ratio: anyValue, ok: anyValue, color: anyValue, tags: anyValue }, { requiredKeys: [] })
const answer = fc.oneof(valid, arbitrary, fc.tuple(valid, arbitrary).map(([a, b]) => ({ ...a, ...b })))

describe('elicitation answers (property)', () => {
  it('an accepted answer reaches the server only when it matches the schema, with the defaults filled in', async () => {
    const outcomes = { accepted: 0, refused: 0 }
    await fc.assert(fc.asyncProperty(answer, async (content) => {
      const signal = new AbortController().signal
      const sent = await answerElicitation('s', { message: 'm', requestedSchema: SCHEMA }, signal, (ctx) => {
        ctx.action = 'accept'
        ctx.content = content
      }).catch((error: unknown) => error)
      const filled = { ...elicitationDefaults(SCHEMA), ...content }
      if (conforms(filled)) {
        outcomes.accepted++
        expect(sent).toEqual({ action: 'accept', content: filled })
      }
      else {
        outcomes.refused++
        expect(sent).toBeInstanceOf(McpError)
        expect((sent as McpError).message).toMatch(/does not match the requested schema/)
      }
    }), { numRuns: 300 })
    expect(outcomes.accepted).toBeGreaterThan(0)
    expect(outcomes.refused).toBeGreaterThan(0)
  })
})

describe('elicitation answers against a server\'s formats and patterns', () => {
  const FORM = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      day: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      code: { type: 'string', pattern: '^(a+)+$' },
    },
  }
  const answer = (content: Record<string, unknown>) => answerElicitation('s', { message: 'm', requestedSchema: FORM }, new AbortController().signal, (ctx) => {
    ctx.action = 'accept'
    ctx.content = content
  }).catch((error: unknown) => error as Error)

  it('accepts well-formed values of the four formats the MCP spec names', async () => {
    const content = { email: 'ada@example.org', site: 'https://example.org/x', day: '2026-12-04', at: '2026-12-04T19:30:00Z', code: 'aaa' }
    expect(await answer(content)).toEqual({ action: 'accept', content })
  })

  it.each([
    [{ email: 'ada at example.org' }, 'email: must be a valid email'],
    [{ site: 'not a url' }, 'site: must be a valid uri'],
    [{ day: '04/12/2026' }, 'day: must be a valid date'],
    [{ at: '2026-12-04 noon' }, 'at: must be a valid date-time'],
  ])('refuses %j', async (content, problem) => {
    const error = await answer(content)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).message).toContain(problem)
  })

  it('answers an explosive pattern against a long value at once (the server wrote the pattern)', async () => {
    const error = await answer({ code: `${'a'.repeat(5000)}!` })
    expect((error as McpError).message).toContain('code: must match /^(a+)+$/')
  })
})

describe('mergeScopes (property)', () => {
  const scope = fc.array(fc.stringMatching(/^[a-z:]{1,6}$/), { maxLength: 5 }).map(items => items.join(' '))
  it('is the set union, keeps first-seen order, and never repeats a scope', () => {
    fc.assert(fc.property(scope, scope, (a, b) => {
      const merged = mergeScopes(a, b)
      const items = [...a.split(' '), ...b.split(' ')].filter(Boolean)
      if (items.length === 0)
        expect(merged).toBeUndefined()
      else
        expect(merged!.split(' ')).toEqual([...new Set(items)])
    }))
  })
})
