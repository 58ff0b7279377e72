import type { McpCallFn } from '../../src/mcp/tools'
import type { ToolResultBlock } from '../../src/types'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createMcpToolDef } from '../../src/mcp/tools'
import { scriptedProvider } from '../../src/testing'
import { checkJsonSchema, untrustedSchema } from '../../src/tools/json-schema'
import { compileSchemaPattern } from '../../src/tools/schema-pattern'
import { blocksOfType } from '../support/helpers'

// A tool's schema may come from an MCP server and the strings it checks come from the model, and the check runs
// synchronously on the main thread. On V8's backtracking engine `^(a+)+$` against 30 `a`s and a `!` takes minutes
// and nothing can interrupt it. These tests would hang, not fail, without the linear engine; they check results only.

const HOSTILE = `${'a'.repeat(5000)}!`

describe('pattern and patternProperties on patterns that make a backtracking engine explode', () => {
  it('answers ^(a+)+$ against 5,000 a\'s and a ! with the must-match problem', () => {
    expect(checkJsonSchema({ type: 'string', pattern: '^(a+)+$' }, HOSTILE)).toEqual(['(input): must match /^(a+)+$/'])
    expect(checkJsonSchema({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(5000))).toEqual([])
    expect(checkJsonSchema(untrustedSchema({ type: 'string', pattern: '^(a+)+$' }), HOSTILE)).toEqual(['(input): must match /^(a+)+$/'])
  })

  it('answers other classic explosive patterns, nested in properties', () => {
    const schema = untrustedSchema({
      type: 'object',
      properties: {
        alt: { type: 'string', pattern: '^(a|a)*$' },
        overlap: { type: 'string', pattern: '^(a|aa)+$' },
        words: { type: 'string', pattern: '^(\\w+\\s?)*$' },
        twice: { type: 'string', pattern: '(x+x+)+y' },
      },
    })
    const problems = checkJsonSchema(schema, { alt: HOSTILE, overlap: HOSTILE, words: `${'word '.repeat(2000)}!`, twice: 'x'.repeat(5000) })
    expect(problems).toEqual([
      'alt: must match /^(a|a)*$/',
      'overlap: must match /^(a|aa)+$/',
      'words: must match /^(\\w+\\s?)*$/',
      'twice: must match /(x+x+)+y/',
    ])
  })

  it('answers a hostile patternProperties pattern against a hostile key', () => {
    for (const mark of [(schema: Record<string, unknown>) => schema, untrustedSchema]) {
      const schema = mark({ type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false })
      expect(checkJsonSchema(schema, { [HOSTILE]: 1 })).toEqual([`${HOSTILE}: is not an allowed property`])
      expect(checkJsonSchema(schema, { [HOSTILE.slice(0, -1)]: 'x' })).toEqual([`${HOSTILE.slice(0, -1)}: expected number, got string`])
      expect(checkJsonSchema(schema, { aaa: 1 })).toEqual([])
    }
  })
})

// Random small patterns from a grammar both engines read the same way, and random short strings.
const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '\\S', '[\\s]', '[^\\S]', '\\b', '\\u0061', '[^]')
const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '*?', '{2}')
const { alternation } = fc.letrec<{ alternation: string, piece: string }>(tie => ({
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('alternation'), quantifier).map(([inner, q]) => `(?:${inner})${q}`),
    fc.tuple(atom, quantifier).map(([inner, q]) => inner === '\\b' ? inner : `${inner}${q}`),
  ),
  alternation: fc.array(fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map(parts => parts.join('')), { minLength: 1, maxLength: 3 }).map(options => options.join('|')),
}))
const pattern = fc.tuple(fc.boolean(), alternation, fc.boolean()).map(([start, body, end]) => `${start ? '^' : ''}${body}${end ? '$' : ''}`)
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', '_', ' ', '\n', '\r', '\u2028', '\u00A0', '\u000B', 'é', '😀', '\uD800'), maxLength: 8 })

describe('the linear engine agrees with JavaScript', () => {
  it('matches like new RegExp(source, \'u\') on random patterns and strings', () => {
    fc.assert(fc.property(pattern, text, (source, value) => {
      // RE2 runs every pattern of this grammar: an MCP schema ignores a pattern it cannot run, so agreement here is RE2's.
      expect(compileSchemaPattern(source)?.linear).toBeDefined()
      const passes = checkJsonSchema(untrustedSchema({ type: 'string', pattern: source }), value).length === 0
      expect(passes).toBe(new RegExp(source, 'u').test(value))
    }), { numRuns: 1000 })
  })

  it('matches like new RegExp(source) on patterns only the legacy mode accepts', () => {
    // Each of these makes a pattern legacy-only; in such a pattern the others mean something else than in Unicode mode.
    const legacyAtom = fc.constantFrom('\\:', '\\@', '\\-', '\\e', '\\a', '\\A', '\\z', 'x{', '}', ']', '\\x4')
    const other = fc.constantFrom('\\p{L}', '\\u{2}', '\\cJ', '\\x4')
    const legacy = fc.tuple(fc.array(fc.oneof(atom, legacyAtom, other), { minLength: 1, maxLength: 5 }), legacyAtom).map(([parts, forced]) => `^${[...parts, forced].join('')}`)
    const legacyText = fc.string({ unit: fc.constantFrom('a', ':', '@', '-', 'e', 'A', 'z', 'x', '{', '}', ']', 'p', 'L', 'u', '\n', '4'), maxLength: 10 })
    fc.assert(fc.property(legacy, legacyText, (source, value) => {
      expect(() => new RegExp(source, 'u')).toThrow()
      expect(compileSchemaPattern(source)?.linear).toBeDefined()
      const passes = checkJsonSchema(untrustedSchema({ type: 'string', pattern: source }), value).length === 0
      expect(passes).toBe(new RegExp(source).test(value))
    }), { numRuns: 1000 })
  })

  it('translates JavaScript escapes RE2 spells differently', () => {
    const cases: [string, string, boolean][] = [
      ['^\\u0041\\u{1F600}$', 'A😀', true],
      ['^\\uD83D\\uDE00$', '😀', true],
      ['^[^]$', '\n', true],
      ['^[]$', '', false],
      ['^a.b$', 'a\rb', false],
      ['^a.b$', 'a\u2028b', false],
      ['^a.b$', 'a\u00A0b', true],
      ['^\\s$', '\uFEFF', true],
      ['^[\\b]$', '\b', true],
      ['^\\cJ$', '\n', true],
      ['^\\x41\\0$', 'A\0', true],
      ['^\\p{Lu}+$', 'ÀB', true],
      ['^[[:a]+$', '[:a', true],
      ['^.$', '😀', true],
    ]
    for (const [source, value, expected] of cases) {
      expect(compileSchemaPattern(source)?.linear, source).toBeDefined()
      expect(checkJsonSchema(untrustedSchema({ type: 'string', pattern: source }), value).length === 0, `${source} on ${JSON.stringify(value)}`).toBe(expected)
    }
  })
})

describe('escapes only JavaScript\'s legacy mode accepts', () => {
  it('still match as before, in pattern and in patternProperties, on the linear engine', () => {
    const source = '^\\@[a-z]+\\:\\d+$'
    expect(compileSchemaPattern(source)?.linear).toBeDefined()
    for (const mark of [(schema: Record<string, unknown>) => schema, untrustedSchema]) {
      const schema = mark({ type: 'string', pattern: source })
      expect(checkJsonSchema(schema, '@host:80')).toEqual([])
      expect(checkJsonSchema(schema, 'host:80')).toEqual([`(input): must match /${source}/`])
      const keyed = mark({ type: 'object', patternProperties: { '^x\\-\\:': { type: 'number' } }, additionalProperties: false })
      expect(checkJsonSchema(keyed, { 'x-:a': 1 })).toEqual([])
      expect(checkJsonSchema(keyed, { 'x-:a': 'one' })).toEqual(['x-:a: expected number, got string'])
      expect(checkJsonSchema(keyed, { 'x:a': 1 })).toEqual(['x:a: is not an allowed property'])
    }
    // Linear there too.
    expect(checkJsonSchema(untrustedSchema({ type: 'string', pattern: '^(\\:+)+$' }), `${':'.repeat(5000)}!`)).toEqual(['(input): must match /^(\\:+)+$/'])
  })

  it('ignores a pattern neither mode accepts, as before', () => {
    expect(checkJsonSchema({ type: 'string', pattern: '(' }, 'anything')).toEqual([])
    expect(checkJsonSchema({ type: 'object', patternProperties: { '[': { type: 'number' } }, additionalProperties: false }, { a: 1 })).toEqual(['a: is not an allowed property'])
  })
})

describe('a pattern RE2 cannot run (lookaround, backreferences, repeat counts over 1000)', () => {
  const sources = ['^(?!admin$)[a-z]+$', '^(?<!x)(.)\\1$', '^a{1001}$']
  const rejected = ['admin', 'ab', 'a']

  it('runs on V8 in the host\'s own schema, as before', () => {
    expect(checkJsonSchema({ type: 'string', pattern: sources[0] }, 'alice')).toEqual([])
    expect(checkJsonSchema({ type: 'string', pattern: sources[1] }, 'aa')).toEqual([])
    sources.forEach((source, index) => {
      expect(compileSchemaPattern(source)?.linear).toBeUndefined()
      expect(checkJsonSchema({ type: 'string', pattern: source }, rejected[index])).toEqual([`(input): must match /${source}/`])
    })
    const keyed = { type: 'object', patternProperties: { '^(?=x)': { type: 'number' } }, additionalProperties: false }
    expect(checkJsonSchema(keyed, { xa: 'one', y: 1 })).toEqual(['xa: expected number, got string', 'y: is not an allowed property'])
  })

  it('is ignored in an MCP server\'s schema, and decides nothing about the keys it might match', () => {
    sources.forEach((source, index) => {
      expect(checkJsonSchema(untrustedSchema({ type: 'string', pattern: source }), rejected[index])).toEqual([])
    })
    // A lookahead around an explosive group: never run, so it cannot hang.
    expect(checkJsonSchema(untrustedSchema({ type: 'string', pattern: '^(?=(a+)+$)' }), HOSTILE)).toEqual([])
    const keyed = untrustedSchema({ type: 'object', properties: { id: { type: 'string' } }, patternProperties: { '^(?=x)': { type: 'number' }, '^n_': { type: 'number' } }, additionalProperties: false })
    expect(checkJsonSchema(keyed, { xa: 'one', y: 1, id: 'i' })).toEqual([])
    // The patterns RE2 runs still apply.
    expect(checkJsonSchema(keyed, { n_a: 'one', id: 2 })).toEqual(['n_a: expected number, got string', 'id: expected string, got integer'])
  })

  it('shares one compiled pattern between the host\'s schema and a server\'s, each keeping its own rule', () => {
    const source = '^(?!root$)\\w+$'
    const server = untrustedSchema({ type: 'string', pattern: source })
    const host = { type: 'string', pattern: source }
    expect(checkJsonSchema(server, 'root')).toEqual([])
    expect(checkJsonSchema(host, 'root')).toEqual([`(input): must match /${source}/`])
    expect(checkJsonSchema(server, 'root')).toEqual([])
    // The mark belongs to the object: a copy is the host's.
    expect(checkJsonSchema({ ...server }, 'root')).toEqual([`(input): must match /${source}/`])
  })

  it('is ignored in the input schema of every MCP tool', () => {
    const call: McpCallFn = async () => ({ content: [{ type: 'text', text: 'ran' }] })
    const def = createMcpToolDef({
      server: 's',
      canonicalName: 'mcp__s__t',
      timeoutMs: 1000,
      call,
      schema: { name: 't', inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^(?!admin$)' }, id: { type: 'string', pattern: '^(a+)+$' } } } },
    })
    expect(checkJsonSchema(def.spec.inputSchema, { name: 'admin' })).toEqual([])
    expect(checkJsonSchema(def.spec.inputSchema, { id: HOSTILE })).toEqual(['id: must match /^(a+)+$/'])
  })
})

// A stdio MCP server (the SDK's low-level Server, which does not check arguments itself) publishing patterns
// that explode on a backtracking engine; it answers every call with the tool's name and the arguments' keys.
const SERVER_SOURCE = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
const server = new Server({ name: 'patterns', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'lookup',
      description: 'Looks an id up.',
      inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'number' } }, additionalProperties: false, required: ['id'] },
    },
    {
      name: 'guarded',
      description: 'A lookahead around an explosive group.',
      inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^(?!(a+)+$)' } }, required: ['name'] },
    },
  ],
}))
server.setRequestHandler(CallToolRequestSchema, async request => ({
  content: [{ type: 'text', text: 'reached ' + request.params.name + ' with ' + Object.keys(request.params.arguments ?? {}).map(key => key.length).join(',') }],
}))
server.connect(new StdioServerTransport()).catch(() => {})
`

describe('an agent calling an MCP server whose schemas carry explosive patterns', () => {
  it('answers hostile strings with error results, lets an ignored pattern reach the server, and the run ends normally', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url))
    // Long enough to take V8 longer than the age of the universe; short enough that the error result quotes it whole.
    const key = 'b'.repeat(64)
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: 'mcp_p_lookup', input: { id: HOSTILE } },
          { name: 'mcp_p_lookup', input: { id: 'aaa', [`${key}!`]: 1 } },
          { name: 'mcp_p_lookup', input: { id: 'aaa', [key]: 'x' } },
          { name: 'mcp_p_guarded', input: { name: HOSTILE } },
          { name: 'mcp_p_lookup', input: { id: 'aaa' } },
        ],
      },
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      mcpServers: [{ name: 'p', transport: 'stdio', command: process.execPath, args: ['--input-type=module', '-e', SERVER_SOURCE], cwd: root, toolTimeout: 10_000 }],
    })
    try {
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.stopReason).toBe('completed')
      expect(stats.text).toBe('done')
      const results = blocksOfType(provider.requests[1].messages, 'tool_result') as ToolResultBlock[]
      expect(results).toHaveLength(5)
      expect(results.slice(0, 3).map(result => result.isError)).toEqual([true, true, true])
      expect(results[0].output).toContain('id: must match /^(a+)+$/')
      expect(results[1].output).toContain(`${key}!: is not an allowed property`)
      expect(results[2].output).toContain(`${key}: expected number, got string`)
      expect(results[3]).toMatchObject({ output: 'reached guarded with 4' })
      expect(results[3].isError).toBeFalsy()
      expect(results[4]).toMatchObject({ output: 'reached lookup with 2' })
    }
    finally {
      await agent.destroy()
    }
  }, 30_000)
})
