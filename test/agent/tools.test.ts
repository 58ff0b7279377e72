import type { ToolResultBlock } from '../../src/core/content'
import type { ToolDef } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { deferred, echoTool, ticks } from '../support/helpers'

/** Run one turn of tool calls and return the tool_result blocks the model received next. */
async function resultsOf(tools: Record<string, ToolDef>, calls: { name: string, input: Record<string, unknown>, id?: string }[], behavior = {}) {
  const provider = scriptedProvider([{ toolCalls: calls }, { text: 'done' }])
  const agent = createAgent({ provider, tools, behavior })
  const errors: unknown[] = []
  agent.hooks.hook('tool:error', ctx => void errors.push(ctx))
  const stats = await agent.run({ prompt: 'go' })
  const results = provider.requests[1].messages[2].content as ToolResultBlock[]
  return { stats, results, errors, provider }
}

/** A concurrency probe: tools that record how many of them are in flight at once. */
function concurrencyProbe() {
  const state = { inFlight: 0, max: 0, events: [] as string[] }
  const make = (name: string, safe: boolean, hold: (input: Record<string, unknown>) => Promise<void>): ToolDef => ({
    spec: { name, description: name, inputSchema: { type: 'object' } },
    isConcurrencySafe: safe,
    async execute(input, ctx) {
      state.inFlight++
      state.max = Math.max(state.max, state.inFlight)
      state.events.push(`start:${ctx.callId}`)
      await hold(input)
      state.events.push(`end:${ctx.callId}`)
      state.inFlight--
      return `${name} ${ctx.callId}`
    },
  })
  return { state, make }
}

describe('tool call failures become results', () => {
  it('answers an unknown tool with an error listing the available tools, and the run goes on', async () => {
    const { stats, results } = await resultsOf({ a: echoTool('a'), b: echoTool('b') }, [{ name: 'nope', input: {} }, { name: 'a', input: {} }])
    expect(stats.stopReason).toBe('completed')
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toContain('"nope"')
    expect(results[0].output).toContain('Available tools: a, b')
    expect(results[1]).toMatchObject({ output: 'a:{}' })
    expect(results[1].isError).toBeUndefined()
  })

  it('answers invalid arguments of a zod tool with an error naming the field, without running it', async () => {
    let ran = false
    const add = tool({
      name: 'add',
      description: 'Add',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        ran = true
        return String(a + b)
      },
    })
    const { results } = await resultsOf({ add }, [{ name: 'add', input: { a: 1, b: 'two' } }])
    expect(ran).toBe(false)
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toMatch(/^Invalid arguments for add: /)
    expect(results[0].output).toMatch(/\bb: /)
    expect(results[0].output).not.toMatch(/\ba: /)
  })

  it('checks a raw JSON-schema tool (no validate) against its inputSchema', async () => {
    let ran = false
    const raw: ToolDef = {
      spec: {
        name: 'raw',
        description: 'raw',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      },
      execute: () => {
        ran = true
        return 'ran'
      },
    }
    const { results } = await resultsOf({ raw }, [{ name: 'raw', input: { extra: 1 } }, { name: 'raw', input: { path: 'ok' } }])
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toContain('path: is required')
    expect(results[0].output).toContain('extra: is not an allowed property')
    expect(results[1]).toMatchObject({ output: 'ran' })
    expect(ran).toBe(true)
  })

  it('turns a throwing tool into an Error: result and fires tool:error', async () => {
    const boom = echoTool('boom', {
      execute: () => {
        throw new Error('disk on fire')
      },
    })
    const { results, errors, stats } = await resultsOf({ boom }, [{ name: 'boom', input: {}, id: 'x1' }])
    expect(stats.stopReason).toBe('completed')
    expect(results[0]).toMatchObject({ callId: 'x1', output: 'Error: disk on fire', isError: true })
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ callId: 'x1', name: 'boom', error: expect.objectContaining({ message: 'disk on fire' }) })
  })

  it('accepts ToolResultContent[] from a tool and sends the blocks as they are', async () => {
    const shot = echoTool('shot', {
      // The PNG signature: the wire checks an image's first bytes against its type.
      execute: () => [{ type: 'text', text: 'screenshot:' }, { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }],
    })
    const { results } = await resultsOf({ shot }, [{ name: 'shot', input: {} }])
    expect(results[0].output).toEqual([{ type: 'text', text: 'screenshot:' }, { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }])
  })
})

describe('tool concurrency', () => {
  it('overlaps concurrency-safe calls', async () => {
    const { state, make } = concurrencyProbe()
    const allIn = deferred()
    const safe = make('safe', true, async () => {
      if (state.inFlight === 4)
        allIn.resolve()
      // If the calls did not overlap, the gate would never open: fail fast instead of hanging.
      await Promise.race([allIn.promise, new Promise((_, reject) => setTimeout(reject, 1_000, new Error('gate never opened')))])
    })
    const calls = [1, 2, 3, 4].map(i => ({ name: 'safe', input: { i } }))
    const { results } = await resultsOf({ safe }, calls)
    expect(state.max).toBe(4)
    expect(results.every(r => !r.isError)).toBe(true)
  })

  it('keeps at most maxConcurrentTools safe calls in flight', async () => {
    const { state, make } = concurrencyProbe()
    const safe = make('safe', true, () => ticks(20))
    const calls = Array.from({ length: 7 }, (_, i) => ({ name: 'safe', input: { i } }))
    await resultsOf({ safe }, calls, { maxConcurrentTools: 3 })
    expect(state.max).toBe(3)
  })

  it.each([1, 0, -4, Number.NaN])('runs calls one at a time with maxConcurrentTools %s', async (limit) => {
    const { state, make } = concurrencyProbe()
    const safe = make('safe', true, () => ticks(20))
    const calls = Array.from({ length: 4 }, (_, i) => ({ name: 'safe', input: { i } }))
    const { results } = await resultsOf({ safe }, calls, { maxConcurrentTools: limit })
    expect(state.max).toBe(1)
    expect(results).toHaveLength(4)
  })

  it('runs an unsafe call alone, as a barrier between safe ones', async () => {
    const { state, make } = concurrencyProbe()
    const safe = make('safe', true, () => ticks(10))
    const unsafe = make('unsafe', false, () => ticks(10))
    const ids = ['s1', 's2', 'u', 's3', 's4']
    const calls = ids.map(id => ({ name: id === 'u' ? 'unsafe' : 'safe', input: {}, id }))
    await resultsOf({ safe, unsafe }, calls)

    const at = (event: string) => state.events.indexOf(event)
    expect(at('start:u')).toBeGreaterThan(at('end:s1'))
    expect(at('start:u')).toBeGreaterThan(at('end:s2'))
    expect(at('start:s3')).toBeGreaterThan(at('end:u'))
    expect(at('start:s4')).toBeGreaterThan(at('end:u'))
    // The safe neighbours still overlap each other.
    expect(at('start:s2')).toBeLessThan(at('end:s1'))
    expect(at('start:s4')).toBeLessThan(at('end:s3'))
  })

  it('treats tools without isConcurrencySafe as unsafe', async () => {
    const { state, make } = concurrencyProbe()
    const plain = make('plain', false, () => ticks(10))
    delete plain.isConcurrencySafe
    await resultsOf({ plain }, [{ name: 'plain', input: {} }, { name: 'plain', input: {} }, { name: 'plain', input: {} }])
    expect(state.max).toBe(1)
  })

  it('decides safety per call when isConcurrencySafe is a function', async () => {
    const { state, make } = concurrencyProbe()
    const io = make('io', true, () => ticks(10))
    io.isConcurrencySafe = (input: { write?: boolean }) => !input.write
    const calls = [{ name: 'io', input: { id: 1 }, id: 'r1' }, { name: 'io', input: { write: true }, id: 'w' }, { name: 'io', input: { id: 2 }, id: 'r2' }]
    await resultsOf({ io }, calls)
    expect(state.events.indexOf('start:w')).toBeGreaterThan(state.events.indexOf('end:r1'))
    expect(state.events.indexOf('start:r2')).toBeGreaterThan(state.events.indexOf('end:w'))
  })

  it('returns results in call order even when later calls finish first', async () => {
    const finished: string[] = []
    const slow = echoTool('slow', {
      isConcurrencySafe: true,
      execute: async (input: { wait: number }, ctx) => {
        await ticks(input.wait)
        finished.push(ctx.callId)
        return `done ${ctx.callId}`
      },
    })
    const calls = [30, 20, 10, 0].map((wait, i) => ({ name: 'slow', input: { wait }, id: `c${i}` }))
    const { results } = await resultsOf({ slow }, calls)
    expect(finished).toEqual(['c3', 'c2', 'c1', 'c0'])
    expect(results.map(r => r.callId)).toEqual(['c0', 'c1', 'c2', 'c3'])
    expect(results.map(r => r.output)).toEqual(['done c0', 'done c1', 'done c2', 'done c3'])
  })
})

describe('tool() helper', () => {
  it('produces the input-side JSON Schema: defaulted fields optional, no $schema', () => {
    const read = tool({
      name: 'read',
      description: 'Read a file',
      input: z.object({ path: z.string().describe('file path'), limit: z.number().int().default(100), flag: z.boolean().optional() }),
      execute: () => 'x',
    })
    const schema = read.spec.inputSchema
    expect(read.spec).toMatchObject({ name: 'read', description: 'Read a file' })
    expect(schema).not.toHaveProperty('$schema')
    expect(schema.type).toBe('object')
    expect(schema.required).toEqual(['path'])
    expect(Object.keys(schema.properties as object).sort()).toEqual(['flag', 'limit', 'path'])
    expect((schema.properties as Record<string, { description?: string }>).path.description).toBe('file path')
  })

  it('validates with zod and reports every bad field with its path', () => {
    const t = tool({
      name: 't',
      description: 't',
      input: z.object({ n: z.number(), nested: z.object({ s: z.string() }) }),
      execute: () => 'x',
    })
    const bad = t.validate!({ n: 'x', nested: { s: 1 } })
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.error).toMatch(/n: .*; nested\.s: /)
    expect(t.validate!({ n: 1, nested: { s: 'ok' } })).toEqual({ ok: true, value: { n: 1, nested: { s: 'ok' } } })
  })

  it('keeps the isConcurrencySafe flag', () => {
    const t = tool({ name: 't', description: 't', input: z.object({}), execute: () => 'x', isConcurrencySafe: true })
    expect(t.isConcurrencySafe).toBe(true)
  })
})

describe('schema checking never breaks a run', () => {
  it('validates a raw tool whose pattern is only valid outside unicode mode', async () => {
    const clock: ToolDef = {
      spec: { name: 'at', description: 'at', inputSchema: { type: 'object', properties: { time: { type: 'string', pattern: '^\\d+\\:\\d+$' } } } },
      execute: (input: { time: string }) => `at ${input.time}`,
    }
    const { stats, results } = await resultsOf({ at: clock }, [{ name: 'at', input: { time: '10:30' } }, { name: 'at', input: { time: 'noon' } }])
    expect(stats.stopReason).toBe('completed')
    expect(results[0]).toMatchObject({ output: 'at 10:30' })
    expect(results[1]).toMatchObject({ isError: true })
    expect(results[1].output).toContain('time: must match')
  })
})
