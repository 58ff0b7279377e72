import type { ToolResultBlock, ToolResultContent } from '../../src/core/content'
import type { ToolDef } from '../../src/tools/types'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'

// Whatever a tool returns reaches the model as a string or as valid content
// blocks: nothing is silently dropped, and nothing throws an untyped error.

function returning(value: () => unknown): ToolDef {
  return {
    spec: { name: 'produce', description: 'returns a value', inputSchema: { type: 'object', properties: {} } },
    execute: () => value() as never,
  }
}

/** Run one tool call returning `value`; the tool result as the next request carried it, and as recorded. */
async function resultOf(value: () => unknown, hooks = {}) {
  const provider = scriptedProvider([{ toolCalls: [{ name: 'produce', input: {} }] }, { text: 'ok' }])
  const session = await createSession()
  const stats = await createAgent({ provider, session, tools: { produce: returning(value) }, hooks }).run({ prompt: 'go' })
  const sent = provider.requests[1].messages.at(-1)!.content[0] as ToolResultBlock
  const recorded = session.turns.at(-2)!.content[0] as ToolResultBlock
  return { stats, sent, recorded, session, provider }
}

const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'video', 'document'])

function isValidBlock(block: unknown): block is ToolResultContent {
  if (typeof block !== 'object' || block === null)
    return false
  const b = block as Record<string, unknown>
  if (!BLOCK_TYPES.has(b.type as string))
    return false
  if (b.type === 'text')
    return typeof b.text === 'string'
  return typeof b.mediaType === 'string' && (typeof b.data === 'string' || typeof b.ref === 'string')
}

describe('array outputs', () => {
  it('an array of numbers reaches the model as its JSON text', async () => {
    const { sent } = await resultOf(() => [1, 2, 3])
    expect(sent.output).toBe('[1,2,3]')
    expect(sent.isError).toBeUndefined()
  })

  it('an array of plain objects reaches the model as its JSON text', async () => {
    const { sent } = await resultOf(() => [{ foo: 'bar' }])
    expect(sent.output).toBe('[{"foo":"bar"}]')
  })

  it('[null] is text too, and the session stays usable for the next run', async () => {
    const { sent, session, stats } = await resultOf(() => [null])
    expect(stats.stopReason).toBe('completed')
    expect(sent.output).toBe('[null]')
    const next = scriptedProvider([{ text: 'still fine' }])
    expect((await createAgent({ provider: next, session }).run({ prompt: 'again' })).text).toBe('still fine')
  })

  it('an empty array is the text "[]", not an empty result', async () => {
    expect((await resultOf(() => [])).sent.output).toBe('[]')
  })

  it('valid content blocks pass through unchanged', async () => {
    const blocks = [{ type: 'text', text: 'see' }, { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }]
    const { sent } = await resultOf(() => blocks)
    expect(sent.output).toEqual(blocks)
    expect(sent.isError).toBeUndefined()
  })

  it('a malformed content block is an error result naming what is wrong', async () => {
    const { sent, recorded } = await resultOf(() => [{ type: 'text', text: 'fine' }, { type: 'image', data: 42, mediaType: 'image/png' }, { type: 'document', data: 'x', mediaType: 'text/plain' }])
    expect(sent.isError).toBe(true)
    expect(sent.output).toBe('Error: tool "produce" returned malformed content blocks: item 1 (image) needs "data" as a string; item 2 (document) needs "encoding" as "text" or "base64".')
    expect(recorded).toEqual(sent)
  })

  it('a tool:transform hook that sets a bad array is checked the same way', async () => {
    const { sent } = await resultOf(() => 'fine', { 'tool:transform': (ctx: { result: unknown }) => void (ctx.result = [null, 1]) })
    expect(sent.output).toBe('[null,1]')
  })
})

describe('other non-string outputs', () => {
  const circular: Record<string, unknown> = { name: 'loop' }
  circular.self = circular

  it.each([
    ['a number', () => 42, '42'],
    ['NaN', () => Number.NaN, 'NaN'],
    ['a boolean', () => false, 'false'],
    ['a bigint', () => 12345678901234567890n, '12345678901234567890'],
    ['an object', () => ({ a: 1, b: [true] }), '{"a":1,"b":[true]}'],
    ['an object holding a bigint', () => ({ n: 1n }), '{"n":"1"}'],
    ['a Map', () => new Map([['k', 1]]), '{"k":1}'],
    ['undefined', () => undefined, ''],
    ['null', () => null, ''],
  ])('%s becomes text', async (_label, value, expected) => {
    const { sent } = await resultOf(value)
    expect(sent.output).toBe(expected)
    expect(sent.isError).toBeUndefined()
  })

  it.each([
    ['a circular object', () => circular, /returned a value that cannot be written as JSON/],
    ['a function', () => () => 1, /returned a function/],
    ['an object whose toJSON throws', () => ({ toJSON: () => { throw new Error('nope') } }), /cannot be written as JSON \(nope\)/],
    ['an Error', () => new Error('disk full'), /^Error: disk full$/],
  ])('%s becomes an error result that says why', async (_label, value, pattern) => {
    const { sent, stats } = await resultOf(value)
    expect(stats.stopReason).toBe('completed')
    expect(sent.isError).toBe(true)
    expect(sent.output).toMatch(pattern)
  })
})

describe('any output, as a property', () => {
  it('is sent as a string or valid blocks; plain JSON values keep their content', async () => {
    await fc.assert(fc.asyncProperty(fc.jsonValue(), async (value) => {
      const { sent, stats } = await resultOf(() => value)
      expect(stats.stopReason).toBe('completed')
      if (typeof value === 'string')
        expect(sent.output).toBe(value)
      else if (value === null)
        expect(sent.output).toBe('')
      else if (Array.isArray(value) && value.length > 0 && value.every(isValidBlock))
        expect(sent.output).toEqual(value)
      else if (typeof sent.output === 'string' && !sent.isError)
        expect(JSON.parse(sent.output)).toEqual(JSON.parse(JSON.stringify(value)))
      else
        expect(sent.isError).toBe(true)
    }), { numRuns: 150 })
  })

  it('never throws, and never sends a malformed block, whatever the value', async () => {
    const anything = fc.oneof(
      fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true, withNullPrototype: true, withTypedArray: true, withSparseArray: true }),
      fc.array(fc.oneof(fc.constant(null), fc.record({ type: fc.constantFrom('text', 'image', 'audio', 'video', 'document', 'other') }, { requiredKeys: [] }), fc.anything())),
    )
    await fc.assert(fc.asyncProperty(anything, async (value) => {
      const { sent, stats } = await resultOf(() => value)
      expect(stats.stopReason).toBe('completed')
      if (typeof sent.output !== 'string')
        expect(sent.output.every(isValidBlock)).toBe(true)
      expect(sent.isError === undefined || sent.isError === true).toBe(true)
    }), { numRuns: 150 })
  })
})

describe('on the wire', () => {
  it('[null] from a tool reaches the Messages API as text, and the next request still builds', async () => {
    const fake = await startFakeAnthropic()
    try {
      fake.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'produce', input: {} }] } },
        { type: 'turn', turn: { text: 'got it' } },
      )
      const agent = createAgent({ provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }), tools: { produce: returning(() => [null]) } })
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.text).toBe('got it')
      const last = fake.requests[1].body.messages.at(-1)
      const result = last.content.find((block: { type: string }) => block.type === 'tool_result')
      const text = typeof result.content === 'string' ? result.content : result.content.map((block: { text: string }) => block.text).join('')
      expect(text).toBe('[null]')
    }
    finally {
      await fake.close()
    }
  })
})
