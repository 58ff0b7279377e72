import type { Provider, StreamCallbacks } from '../../src/providers/types'
import type { OutputPartialContext } from '../../src/tools/output-hooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { parseToolInput } from '../../src/providers/tool-json'
import { OUTPUT_TOOL_NAME, parsePartialJson } from '../../src/tools/output-schema'
import { MAX_PARTIAL_DEPTH, PartialJsonReader } from '../../src/tools/partial-json'

// Structured output's partial reader costs nothing without an `output:partial` handler, reads each piece once
// with one, whatever the nesting, and stops following text nested past its depth cap.

const SCHEMA = { type: 'object', properties: { rows: { type: 'array' } }, required: ['rows'] }

/** A model that writes `text` as the final answer's arguments, one piece per `pieceChars` characters, then stops. */
function answerWriter(text: string, pieceChars: number): Provider {
  return {
    name: 'writer',
    meta: { defaultModel: 'writer-model' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    async stream(_options: unknown, callbacks: StreamCallbacks) {
      const call = { id: 'call_answer', name: OUTPUT_TOOL_NAME }
      callbacks.onToolCallStart?.(call)
      for (let at = 0; at < text.length; at += pieceChars)
        callbacks.onToolCallDelta?.(call, text.slice(at, at + pieceChars))
      const input = parseToolInput(text)
      return {
        content: [{ type: 'tool_call', ...call, input }],
        toolCalls: [{ ...call, input }],
        usage: { input: 10, output: 5 },
        finishReason: 'tool-calls',
      }
    },
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('output:partial', () => {
  it('does no reading at all while no handler listens', async () => {
    const push = vi.spyOn(PartialJsonReader.prototype, 'push')
    const mark = vi.spyOn(PartialJsonReader.prototype, 'mark')
    const text = JSON.stringify({ rows: Array.from({ length: 200 }, (_, n) => ({ n })) })
    const stats = await createAgent({ provider: answerWriter(text, 3), behavior: { schema: SCHEMA, maxTurns: 1 } }).run({ prompt: 'rows' })
    expect(stats.output).toEqual(JSON.parse(text))
    expect(push).not.toHaveBeenCalled()
    expect(mark).not.toHaveBeenCalled()
  })

  it('costs linear work on 50 KB of nested brackets, sent one character at a time, with or without a handler', async () => {
    // Before: a mark copied every open container on every piece, 31 s here even with no handler.
    const text = `{"rows":${'['.repeat(50_000)}`
    for (const listen of [false, true]) {
      const agent = createAgent({ provider: answerWriter(text, 1), behavior: { schema: SCHEMA, maxTurns: 1 } })
      let seen = 0
      if (listen)
        agent.hooks.hook('output:partial', () => void seen++)
      const stats = await agent.run({ prompt: 'rows' })
      expect(stats.stopReason).toBe('output-invalid')
      expect(seen).toBe(listen ? text.length : 0)
    }
  }, 60_000)

  it('gives a handler that comes mid-answer the whole text and the value so far', async () => {
    const text = JSON.stringify({ rows: [{ a: 1 }, { b: [2, 3] }, 'four'] })
    const agent = createAgent({ provider: answerWriter(text, 4), behavior: { schema: SCHEMA, maxTurns: 1 } })
    const partials: { text: string, value: unknown }[] = []
    let pieces = 0
    // Attached after a few pieces went by unheard.
    agent.hooks.hook('stream:tool-input', () => {
      if (++pieces === 5)
        agent.hooks.hook('output:partial', (ctx: OutputPartialContext) => void partials.push({ text: ctx.text, value: ctx.value }))
    })
    await agent.run({ prompt: 'rows' })
    expect(partials.length).toBeGreaterThan(0)
    for (const partial of partials) {
      expect(text.startsWith(partial.text)).toBe(true)
      expect(partial.value).toEqual(parsePartialJson(partial.text))
    }
    expect(partials.at(-1)!.text).toBe(text)
  })
})

describe('the partial reader past its depth cap', () => {
  it('follows text exactly to the cap, and gives no value past it', () => {
    const reader = new PartialJsonReader()
    reader.push('['.repeat(MAX_PARTIAL_DEPTH))
    reader.push('1')
    let value: unknown = reader.mark()!.value()
    for (let level = 1; level < MAX_PARTIAL_DEPTH; level++)
      value = (value as unknown[])[0]
    expect(value).toEqual([1])
    reader.push(',[')
    expect(reader.mark()!.value()).toBeUndefined()
    // Nothing past the cap is read: more text leaves it there.
    reader.push(']]]')
    expect(reader.mark()!.value()).toBeUndefined()
  })

  it('keeps each mark\'s own value at every depth up to the cap', () => {
    // A mark holds the innermost container only; the outer ones, reached through it, still give the value of its time.
    const reader = new PartialJsonReader()
    const marks = []
    for (let level = 0; level < MAX_PARTIAL_DEPTH; level++) {
      reader.push('[')
      marks.push(reader.mark()!)
    }
    marks.forEach((mark, index) => {
      expect(JSON.stringify(mark.value())).toBe(`${'['.repeat(index + 1)}${']'.repeat(index + 1)}`)
    })
  })
})

describe('parsePartialJson', () => {
  it('closes text nested 100,000 levels in one pass', () => {
    // Before: the closers were rebuilt at every bracket, work in the square of the depth.
    const levels = 100_000
    let value = parsePartialJson(`${'['.repeat(levels)}1,`)
    for (let level = 1; level < levels; level++)
      value = (value as unknown[])[0]
    expect(value).toEqual([1])
    expect(parsePartialJson(`${'{"a":['.repeat(levels / 2)}"x`)).toBeDefined()
  }, 60_000)
})
