import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { tool } from '../../src'
import { nestsDeeperThan } from '../../src/core/json-depth'
import { textReply } from '../../src/providers/shared/decision-reply'
import { invalidToolInput, MAX_TOOL_INPUT_DEPTH, parseToolInput, refuseOverDeepInput, TOO_DEEP_TOOL_INPUT, ToolJsonBuffer } from '../../src/providers/tool-json'
import { compileOutputSchema } from '../../src/tools/output-schema'

/** The depth by the definition, recursively (fine for the small values generated here). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null)
    return 0
  const members = Array.isArray(value) ? value : Object.values(value)
  return 1 + members.reduce<number>((deepest, member) => Math.max(deepest, depthOf(member)), 0)
}

/** A value of exactly `levels` levels: each level an object or an array, with scalar or shallow siblings beside the deep path. */
function nestedTo(levels: number) {
  return fc.array(fc.record({
    array: fc.boolean(),
    key: fc.string({ maxLength: 4 }),
    siblings: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.constant([]), fc.constant({})), { maxLength: 2 }),
  }), { minLength: levels, maxLength: levels }).map((shapes) => {
    let inner: unknown = 'leaf'
    for (const shape of shapes.reverse()) {
      if (shape.array) {
        inner = [...shape.siblings, inner]
      }
      else {
        const object: Record<string, unknown> = {}
        shape.siblings.forEach((sibling, index) => {
          object[`s${index}`] = sibling
        })
        object[`k${shape.key}`] = inner
        inner = object
      }
    }
    return inner
  })
}

describe('nestsDeeperThan', () => {
  it('agrees with the recursive definition on any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, max) => {
      expect(nestsDeeperThan(value, max)).toBe(depthOf(value) > max)
    }), { numRuns: 500 })
  })

  it('checks a value far deeper than the stack allows, without recursion', () => {
    let value: unknown = []
    for (let level = 1; level < 200_000; level++)
      value = [value]
    expect(nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH)).toBe(true)
    expect(nestsDeeperThan(value, 200_000)).toBe(false)
  })

  it('reads a cycle as too deep and walks a shared value once per level', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(nestsDeeperThan(cyclic, MAX_TOOL_INPUT_DEPTH)).toBe(true)
    // 60 levels, each holding the next one twice: 2^60 paths, 60 containers.
    let shared: unknown = {}
    for (let level = 1; level < 60; level++)
      shared = [shared, shared]
    expect(nestsDeeperThan(shared, 59)).toBe(true)
    expect(nestsDeeperThan(shared, 60)).toBe(false)
  })
})

describe('the tool-input depth cap', () => {
  it('refuses exactly the arguments nested deeper than the cap, however they are shaped', () => {
    fc.assert(fc.property(fc.integer({ min: MAX_TOOL_INPUT_DEPTH - 3, max: MAX_TOOL_INPUT_DEPTH + 3 }).chain(levels => nestedTo(levels)), (value) => {
      // Arguments are an object: wrapped once more when the generated value is not one.
      const input = typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : { value }
      const raw = JSON.stringify(input)
      const tooDeep = depthOf(input) > MAX_TOOL_INPUT_DEPTH
      const parsed = parseToolInput(raw)
      expect(invalidToolInput(parsed)).toEqual(tooDeep ? { raw, error: TOO_DEEP_TOOL_INPUT } : undefined)
      expect(refuseOverDeepInput(input) === input).toBe(!tooDeep)
      const buffer = new ToolJsonBuffer()
      buffer.push(raw)
      expect(invalidToolInput(buffer.finish(undefined))?.error).toBe(tooDeep ? TOO_DEEP_TOOL_INPUT : undefined)
    }), { numRuns: 300 })
  })

  it('keeps the refused text as it came, and the block\'s own input is checked too', () => {
    const raw = `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`
    expect(invalidToolInput(parseToolInput(raw))).toEqual({ raw, error: TOO_DEEP_TOOL_INPUT })
    const deep = JSON.parse(raw) as Record<string, unknown>
    expect(invalidToolInput(new ToolJsonBuffer().finish(deep))).toEqual({ raw: '', error: TOO_DEEP_TOOL_INPUT })
  })
})

describe('a decision answered as text', () => {
  it('is malformed when nested past the cap, and an answer at the cap is kept', () => {
    const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`
    expect(textReply(nested(MAX_TOOL_INPUT_DEPTH + 1), 'stop')).toEqual({ type: 'malformed', message: `the answer is nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep` })
    expect(textReply(nested(5_000), 'stop')).toMatchObject({ type: 'malformed' })
    expect(textReply(nested(MAX_TOOL_INPUT_DEPTH), 'stop')).toMatchObject({ type: 'answers' })
  })
})

describe('a zod schema that overflows on its input', () => {
  interface Tree { children?: Tree[] }
  const node: z.ZodType<Tree> = z.lazy(() => z.object({ children: z.array(node).optional() }))
  let deep: Tree = {}
  for (let level = 0; level < 5_000; level++)
    deep = { children: [deep] }

  /** Run `check`, then let any promise it left behind settle; the unhandled rejections seen meanwhile. */
  async function unhandledDuring(check: () => void): Promise<unknown[]> {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      check()
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    finally {
      process.off('unhandledRejection', onUnhandled)
    }
    return unhandled
  }

  it('gives tool() an error result, and the promise zod falls back to is handled', async () => {
    const walk = tool({ name: 'walk', description: 'd', input: node, execute: () => 'ok' })
    let result: ReturnType<NonNullable<typeof walk.validate>> | undefined
    expect(await unhandledDuring(() => {
      result = walk.validate!(deep as Record<string, unknown>)
    })).toEqual([])
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('could not check the input synchronously') })
  })

  it('gives structured output a failed check, and the promise is handled', async () => {
    const compiled = compileOutputSchema(node)
    let checked: ReturnType<typeof compiled.check> | undefined
    expect(await unhandledDuring(() => {
      checked = compiled.check(deep)
    })).toEqual([])
    expect(checked).toMatchObject({ ok: false })
  })
})
