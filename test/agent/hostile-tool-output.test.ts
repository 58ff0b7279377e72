import type { SessionTurn, ToolResultBlock } from '../../src/core/content'
import type { ToolDef } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { TOOL_OUTPUT_LIMITS } from '../../src/core/tool-io'
import { anthropic } from '../../src/providers/anthropic'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider, startFakeModelServer } from '../../src/testing'
import { tempDirForFile } from '../session/temp-dir'

// Whatever a host tool's `execute` returns or throws, the run ends, the call
// is paired with a result, the next request is built, and a file-backed
// session saves, reloads and replays to the provider.

const freshDir = tempDirForFile('hostile-tool-output')

function producing(execute: () => unknown): ToolDef {
  return {
    spec: { name: 'produce', description: 'returns a hostile value', inputSchema: { type: 'object', properties: {} } },
    execute: execute as ToolDef['execute'],
  }
}

function resultIn(turns: readonly SessionTurn[] | { role: string, content: unknown[] }[]): ToolResultBlock {
  for (const turn of turns) {
    for (const block of turn.content as { type: string }[]) {
      if (block.type === 'tool_result')
        return block as ToolResultBlock
    }
  }
  throw new Error('no tool_result')
}

/**
 * One run whose only tool call returns (or throws) what `execute` gives, on a
 * file-backed session; then the session is reloaded from a fresh store on the
 * same directory and replayed to a provider by a second run.
 */
async function probe(execute: () => unknown, hooks = {}) {
  const dir = freshDir()
  const session = await createSession({ store: createFileStore({ dir }) })
  const provider = scriptedProvider([{ toolCalls: [{ id: 'toolu_1', name: 'produce', input: {} }] }, { text: 'ok' }])
  const stats = await createAgent({ provider, session, hooks, tools: { produce: producing(execute) } }).run({ prompt: 'go' })
  expect(stats.stopReason).toBe('completed')
  expect(provider.requests).toHaveLength(2)
  const sent = resultIn(provider.requests[1].messages)
  expect(sent.callId).toBe('toolu_1')
  // What every wire does with the request: write it as JSON.
  expect(() => JSON.stringify(provider.requests[1].messages)).not.toThrow()
  await session.save()

  const reloaded = await loadSession(session.id, { store: createFileStore({ dir }) })
  expect(reloaded.turns).toHaveLength(session.turns.length)
  const replay = scriptedProvider([{ text: 'again' }])
  const again = await createAgent({ provider: replay, session: reloaded }).run({ prompt: 'again' })
  expect(again.stopReason).toBe('completed')
  const replayed = resultIn(replay.requests[0].messages)
  expect(replayed.callId).toBe('toolu_1')
  expect(() => JSON.stringify(replay.requests[0].messages)).not.toThrow()
  const stored = resultIn(reloaded.turns)
  expect(stored).toEqual(sent)
  expect(replayed.output).toEqual(sent.output)
  return { sent, replayed, reloaded: stored }
}

const MAX = TOOL_OUTPUT_LIMITS.maxChars
/** Room for the truncation note after the kept text. */
const NOTE = 200

function deepObject(levels: number): unknown {
  let value: unknown = 'bottom'
  for (let i = 0; i < levels; i++)
    value = { next: value }
  return value
}

function deepArray(levels: number): unknown {
  let value: unknown = 'bottom'
  for (let i = 0; i < levels; i++)
    value = [value]
  return value
}

function errorChain(levels: number): Error {
  let error = new Error('bottom')
  for (let i = 0; i < levels; i++)
    error = new Error(`level ${i}`, { cause: error })
  return error
}

function fail(message: string): never {
  throw new Error(message)
}

/** A function that throws `error` as it is. */
function thrower(error: unknown): () => never {
  return () => {
    throw error
  }
}

/** An object whose `toJSON` returns the object itself. */
function selfToJSON(): unknown {
  const value = { a: 1, toJSON: (): unknown => value }
  return value
}

function cyclicObject(): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  value.self = value
  return value
}

/** An Error whose `message` property is replaced by `descriptor`. */
function errorWithMessage(descriptor: PropertyDescriptor): Error {
  const error = new Error('x')
  Object.defineProperty(error, 'message', descriptor)
  return error
}

const THROWING_PROXY = new Proxy({}, new Proxy({}, { get: () => () => fail('trap') }))
/** Passes for a plain value when a promise resolves to it (`then` reads as missing); every other trap throws. */
const THEN_LESS_PROXY = new Proxy({}, new Proxy({}, {
  get: (_handler, trap) => trap === 'get'
    ? (_target: object, key: PropertyKey) => key === 'then' ? undefined : fail('trap')
    : () => fail('trap'),
}))

describe('execute returns a hostile value', () => {
  it.each([
    ['a cyclic object', cyclicObject, /cannot be written as JSON \(Converting circular structure/],
    ['an object with a getter that throws', () => ({ get boom() { return fail('getter') } }), /cannot be written as JSON \(getter\)/],
    ['a toJSON that throws', () => ({ toJSON: () => fail('toJSON') }), /cannot be written as JSON \(toJSON\)/],
    // Resolving the tool's promise reads `then`, so this one fails as a throw would.
    ['a Proxy whose every trap throws', () => THROWING_PROXY, /^Error: trap$/],
    ['a Proxy whose traps throw but for "then"', () => THEN_LESS_PROXY, /^Error: tool "produce" returned a value that could not be read \(trap\)/],
    ['an object nested 100,000 levels deep', () => deepObject(100_000), /cannot be written as JSON \(Maximum call stack size exceeded\)/],
    ['an array nested 100,000 levels deep', () => deepArray(100_000), /cannot be written as JSON \(Maximum call stack size exceeded\)/],
    ['a function', () => () => 1, /returned a function/],
  ])('%s is an error result', async (_label, value, pattern) => {
    const { sent } = await probe(value)
    expect(sent.isError).toBe(true)
    expect(sent.output).toMatch(pattern)
  })

  it.each<[string, () => unknown, string]>([
    ['an object with a BigInt', () => ({ n: 10n ** 30n }), '{"n":"1000000000000000000000000000000"}'],
    ['a toJSON that returns its own object', selfToJSON, '{"a":1}'],
    ['a Symbol', () => Symbol('s'), 'Symbol(s)'],
    ['undefined', () => undefined, ''],
  ])('%s is text', async (_label, value, expected) => {
    const { sent } = await probe(value)
    expect(sent.isError).toBeUndefined()
    expect(sent.output).toBe(expected)
  })

  it('a string with lone surrogates is recorded as it came, and reloads unchanged', async () => {
    const text = 'a\uD800b\uDFFFc\uDBFF'
    const { sent, replayed } = await probe(() => text)
    expect(sent.output).toBe(text)
    expect(replayed.output).toBe(text)
  })

  it('an array of 1,000,000 items is its JSON text', async () => {
    const items = Array.from({ length: 1_000_000 }, (_, i) => i % 10)
    const { sent } = await probe(() => items)
    expect(sent.output).toBe(JSON.stringify(items))
  }, 60_000)

  it('a 100 MB string is cut to the limit, with a note', async () => {
    const { sent } = await probe(() => 'x'.repeat(100 * 1024 * 1024))
    const output = sent.output as string
    expect(output.length).toBeLessThan(MAX + NOTE)
    expect(output.startsWith('x'.repeat(1000))).toBe(true)
    expect(output.endsWith(`[Truncated: the output was ${100 * 1024 * 1024} characters; the first ${MAX} are kept, as a tool result holds at most ${MAX}.]`)).toBe(true)
  }, 120_000)

  it('a 100 MB string of control characters (six characters each as JSON) still saves and reloads', async () => {
    const { sent } = await probe(() => '\u0001'.repeat(100 * 1024 * 1024))
    expect((sent.output as string).length).toBeLessThan(MAX + NOTE)
  }, 120_000)

  it('a cut never splits a surrogate pair', async () => {
    const { sent } = await probe(() => `${'x'.repeat(MAX - 1)}😀${'y'.repeat(10)}`)
    expect((sent.output as string).startsWith(`${'x'.repeat(MAX - 1)}\n\n[Truncated:`)).toBe(true)
  }, 60_000)
})

describe('execute rejects with a non-Error reason', () => {
  it.each([
    ['a string', () => Promise.reject('plain string'), 'Error: plain string'], // eslint-disable-line prefer-promise-reject-errors
    ['null', () => Promise.reject(null), 'Error: null'], // eslint-disable-line prefer-promise-reject-errors
    ['a cyclic object', () => Promise.reject(cyclicObject()), 'Error: [object Object]'],
    ['a Symbol', () => Promise.reject(Symbol('why')), 'Error: Symbol(why)'],
    ['an Error whose message getter throws', () => Promise.reject(errorWithMessage({ get: () => fail('message getter') })), 'Error: a value was thrown whose text could not be read'],
    ['an Error whose message is a Symbol', () => Promise.reject(errorWithMessage({ value: Symbol('odd') })), 'Error: Symbol(odd)'],
    ['an object with no prototype', () => Promise.reject(Object.create(null)), 'Error: a value was thrown whose text could not be read'],
    ['a Proxy whose every trap throws', () => Promise.reject(THROWING_PROXY), 'Error: a value was thrown whose text could not be read'],
  ])('%s is an error result', async (_label, value, expected) => {
    const { sent } = await probe(value)
    expect(sent.isError).toBe(true)
    expect(sent.output).toBe(expected)
  })

  it('a tool:error hook still sees the value that was thrown', async () => {
    const thrown = Object.create(null)
    const seen: unknown[] = []
    await probe(() => Promise.reject(thrown), { 'tool:error': ({ error }: { error: unknown }) => void seen.push(error) })
    expect(seen).toEqual([thrown])
  })
})

describe('execute throws a hostile Error', () => {
  it('with a 50 MB message: the message is cut to the limit, with a note', async () => {
    const { sent } = await probe(thrower(new Error('m'.repeat(50 * 1024 * 1024))))
    expect(sent.isError).toBe(true)
    const output = sent.output as string
    expect(output.length).toBeLessThan(MAX + NOTE)
    expect(output.startsWith('Error: mmmm')).toBe(true)
    expect(output.endsWith(`[Truncated: the message was ${50 * 1024 * 1024} characters; the first ${MAX} are kept, as a tool result holds at most ${MAX}.]`)).toBe(true)
  }, 60_000)

  it('with a cyclic cause chain', async () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    ;(a as { cause?: unknown }).cause = b
    const { sent } = await probe(thrower(a))
    expect(sent).toMatchObject({ isError: true, output: 'Error: a' })
  })

  it('with a cause chain 100,000 deep', async () => {
    const { sent } = await probe(thrower(errorChain(100_000)))
    expect(sent).toMatchObject({ isError: true, output: 'Error: level 99999' })
  })

  it('whose stack getter throws', async () => {
    const error = new Error('stacked')
    Object.defineProperty(error, 'stack', { get: () => fail('stack getter') })
    const { sent } = await probe(thrower(error))
    expect(sent).toMatchObject({ isError: true, output: 'Error: stacked' })
  })

  it('returned rather than thrown, with a message getter that throws', async () => {
    const error = errorWithMessage({ get: () => fail('message getter') })
    const { sent } = await probe(() => error)
    expect(sent).toMatchObject({ isError: true, output: 'Error: a value was thrown whose text could not be read' })
  })
})

describe('execute returns hostile content blocks', () => {
  it.each([
    ['an image whose base64 has a "data:" prefix', [{ type: 'image', mediaType: 'image/png', data: 'data:image/png;base64,iVBORw0KGgo=' }], 'item 0 (image) needs "data" as base64'],
    ['an image whose base64 is not base64 at all', [{ type: 'text', text: 'see' }, { type: 'image', mediaType: 'image/png', data: '!!not base64!!' }], 'item 1 (image) needs "data" as base64'],
    ['audio whose base64 has line breaks', [{ type: 'audio', mediaType: 'audio/wav', data: 'UklG\nRg==' }], 'item 0 (audio) needs "data" as base64'],
    ['a base64 document that is not base64', [{ type: 'document', mediaType: 'application/pdf', encoding: 'base64', data: '%PDF-1.7' }], 'item 0 (document) needs "data" as base64'],
    ['a text block whose text is a number', [{ type: 'text', text: 42 }], 'item 0 (text) needs "text" as a string'],
  ])('%s is an error result naming the block', async (_label, blocks, problem) => {
    const { sent } = await probe(() => blocks)
    expect(sent.isError).toBe(true)
    expect(sent.output).toContain(`Error: tool "produce" returned malformed content blocks: ${problem}`)
  })

  it('a text document keeps its text as it is (it is not base64)', async () => {
    const blocks = [{ type: 'document', mediaType: 'text/plain', encoding: 'text', data: 'not: base64!\n' }]
    const { sent } = await probe(() => blocks)
    expect(sent.isError).toBeUndefined()
    expect(sent.output).toEqual(blocks)
  })

  it('an unknown block type is data: its JSON text', async () => {
    const blocks = [{ type: 'tool_use', id: 'x', name: 'y', input: {} }]
    const { sent } = await probe(() => blocks)
    expect(sent.output).toBe(JSON.stringify(blocks))
  })

  it('an image with a media type that is no image is kept; the Anthropic wire sends a note in its place', async () => {
    const blocks = [{ type: 'text', text: 'see' }, { type: 'image', mediaType: 'text/html', data: 'PGgxPmhpPC9oMT4=' }]
    const { sent } = await probe(() => blocks)
    expect(sent.output).toEqual(blocks)
    await using server = await startFakeModelServer({ script: [{ toolCalls: [{ name: 'produce', input: {} }] }, { text: 'ok' }] })
    const provider = anthropic({ apiKey: 'fake', baseURL: server.url, defaultModel: 'claude-sonnet-4-6' })
    const stats = await createAgent({ provider, tools: { produce: producing(() => blocks) } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(server.requests).toHaveLength(2)
    const body = JSON.stringify(server.requests[1].body)
    expect(body).toContain('text/html')
    expect(body).not.toContain('PGgxPmhpPC9oMT4=')
  })

  it.each([
    ['a cyclic property', cyclicObject],
    ['a property nested 100,000 levels deep', () => deepObject(100_000)],
    ['a bigint property', () => 10n],
    ['a function property', () => () => 1],
  ])('a valid block that also carries %s is recorded without it', async (_label, extra) => {
    const blocks = [
      { type: 'text', text: 'hi', extra: extra() },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', name: 'shot.png', extra: extra() },
      { type: 'document', mediaType: 'application/pdf', encoding: 'base64', ref: 'doc-1', extra: extra() },
    ]
    const { sent } = await probe(() => blocks)
    expect(sent.isError).toBeUndefined()
    expect(sent.output).toStrictEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', name: 'shot.png' },
      { type: 'document', mediaType: 'application/pdf', encoding: 'base64', ref: 'doc-1' },
    ])
  })

  it('a block whose text getter answers differently on each read is recorded with the value it was checked with', async () => {
    let reads = 0
    const block = {
      type: 'text',
      get text(): unknown {
        return reads++ === 0 ? 'checked' : { not: 'a string' }
      },
    }
    const { sent } = await probe(() => [block])
    expect(sent.output).toEqual([{ type: 'text', text: 'checked' }])
  })

  it('a block whose getter throws is an error result', async () => {
    const block = {
      type: 'text',
      get text(): string {
        return fail('text getter')
      },
    }
    const { sent } = await probe(() => [block])
    expect(sent).toMatchObject({ isError: true, output: expect.stringMatching(/could not be read \(text getter\)/) })
  })

  it('blocks over the limit keep what fits, cut the text that crosses it, and drop media that does not fit', async () => {
    const half = MAX / 2
    const blocks = [
      // Starts with the PNG signature, which the wire checks against the type.
      { type: 'image', mediaType: 'image/png', data: `iVBORw0KGgo${'A'.repeat(half - 11)}` },
      { type: 'text', text: 'b'.repeat(half) },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ]
    const { sent } = await probe(() => blocks)
    const output = sent.output as { type: string, text?: string, data?: string }[]
    expect(output.map(block => block.type)).toEqual(['image', 'text', 'text'])
    expect(output[0].data).toHaveLength(half)
    expect(output[1].text).toHaveLength(half - 'image/png'.length)
    expect(output[2].text).toBe(`[Truncated: the result was ${MAX + 12 + 2 * 'image/png'.length} characters in 3 blocks; 2 blocks are kept, as a tool result holds at most ${MAX}.]`)
  }, 60_000)
})

describe('hooks and gates that hand back hostile values', () => {
  it('a tool:gate result that is a throwing Proxy is an error result', async () => {
    const { sent } = await probe(() => 'never run', { 'tool:gate': (ctx: { result?: unknown }) => void (ctx.result = THROWING_PROXY) })
    expect(sent).toMatchObject({ isError: true, output: expect.stringMatching(/could not be read \(trap\)/) })
  })

  it('a tool:transform result with a cyclic property on a block is recorded without it', async () => {
    const { sent } = await probe(() => 'fine', { 'tool:transform': (ctx: { result: unknown }) => void (ctx.result = [{ type: 'text', text: 'changed', a: cyclicObject() }]) })
    expect(sent.output).toStrictEqual([{ type: 'text', text: 'changed' }])
  })
})

describe('a hostile call among others', () => {
  it('every call of the turn is paired with its own result, in order', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'a', name: 'produce', input: {} }, { id: 'b', name: 'fine', input: {} }, { id: 'c', name: 'blocks', input: {} }] },
      { text: 'ok' },
    ])
    const fine: ToolDef = { spec: { name: 'fine', description: 'fine', inputSchema: { type: 'object' } }, execute: async () => 'fine' }
    const blocks: ToolDef = { spec: { name: 'blocks', description: 'blocks', inputSchema: { type: 'object' } }, execute: async () => [{ type: 'text', text: 'x', extra: cyclicObject() }] as never }
    const stats = await createAgent({ provider, tools: { produce: producing(() => Promise.reject(Object.create(null))), fine, blocks } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const results = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    expect(results.map(result => [result.callId, result.isError === true, result.output])).toEqual([
      ['a', true, 'Error: a value was thrown whose text could not be read'],
      ['b', false, 'fine'],
      ['c', false, [{ type: 'text', text: 'x' }]],
    ])
  })
})

describe('the results of one turn together', () => {
  const TURN = TOOL_OUTPUT_LIMITS.maxTurnChars

  it('stay writable as one JSON line even when every character takes six', () => {
    // The longest string V8 builds is 2^29 - 24 units; the turn's other fields are a few hundred.
    expect(6 * (TURN + 3 * NOTE)).toBeLessThan(2 ** 29 - 24)
    expect(TURN).toBeGreaterThanOrEqual(2 * MAX)
  })

  it('keep results while they fit, cut the one that crosses the budget, and answer the rest with an error', async () => {
    const dir = freshDir()
    const session = await createSession({ store: createFileStore({ dir }) })
    const calls = ['a', 'b', 'c', 'd'].map(id => ({ id, name: 'big', input: {} }))
    const provider = scriptedProvider([{ toolCalls: calls }, { text: 'ok' }])
    let served = 0
    // Each result just under the cap of one result: 3 of them cross the turn's budget.
    const sizes = [MAX - 10, MAX / 2, MAX, 5]
    const big: ToolDef = { spec: { name: 'big', description: 'big', inputSchema: { type: 'object' } }, execute: async () => 'x'.repeat(sizes[served++]) }
    const stats = await createAgent({ provider, session, tools: { big } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const results = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    expect(results.map(result => result.callId)).toEqual(['a', 'b', 'c', 'd'])
    expect(results[0].output).toHaveLength(MAX - 10)
    expect(results[1].output).toHaveLength(MAX / 2)
    const room = TURN - (MAX - 10) - MAX / 2
    const why = `this turn's tool results came to ${MAX - 10 + MAX / 2 + MAX + 5} characters, and one turn holds at most ${TURN}`
    expect(results[2].output).toBe(`${'x'.repeat(room)}\n\n[Truncated: ${why}; the first ${room} characters of this result are kept.]`)
    expect(results[2].isError).not.toBe(true)
    expect(results[3]).toMatchObject({ isError: true, output: `[Omitted: ${why}; this result did not fit.]` })

    await session.save()
    const reloaded = await loadSession(session.id, { store: createFileStore({ dir }) })
    const stored = reloaded.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result') as ToolResultBlock[]
    expect(stored.map(result => [result.callId, outputLength(result.output)])).toEqual(results.map(result => [result.callId, outputLength(result.output)]))
  }, 60_000)

  it('cut a result of blocks like a result of its own, leaving out media that does not fit', async () => {
    const calls = ['a', 'b', 'c'].map(id => ({ id, name: 'mixed', input: {} }))
    const provider = scriptedProvider([{ toolCalls: calls }, { text: 'ok' }])
    // Each result within the cap of one result; the last one crosses the turn's budget (MAX / 2 left).
    const outputs = [
      'y'.repeat(MAX),
      'w'.repeat(MAX / 2),
      [{ type: 'text', text: 'z'.repeat(MAX / 2 - 20) }, { type: 'image', mediaType: 'image/png', data: 'A'.repeat(1000) }],
    ]
    let served = 0
    const mixed: ToolDef = { spec: { name: 'mixed', description: 'mixed', inputSchema: { type: 'object' } }, execute: async () => outputs[served++] as never }
    await createAgent({ provider, tools: { mixed } }).run({ prompt: 'go' })
    const results = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    const third = results[2].output as { type: string, text?: string }[]
    expect(third.map(block => block.type)).toEqual(['text', 'text'])
    expect(third[0].text).toHaveLength(MAX / 2 - 20)
    expect(third[1].text).toMatch(/^\[Truncated: this turn's tool results came to \d+ characters, and one turn holds at most \d+; 1 blocks of this result are kept\.\]$/)
  }, 60_000)
})

function outputLength(output: ToolResultBlock['output']): number {
  return typeof output === 'string' ? output.length : output.length
}
