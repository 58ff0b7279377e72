/**
 * A failed tool call's span records what was thrown, and what is thrown comes
 * from outside: a tool echoing a file into its error, an MCP server's error
 * text, a value whose message getter or `toString` throws, a proxy. Before,
 * a 20 MB message went on the span three times (status, exception message,
 * stack: 60 MB per span, held by the exporter's queue), and a value that
 * could not be read made the telemetry throw its own error in place of the
 * tool's: the span ended looking successful, and the model's error result
 * carried telemetry's text instead of the loop's.
 */

import type { ToolResultBlock } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { UNREADABLE_THROWN } from '../../src/loop/call-answer'
import { SPAN_ERROR_MESSAGE_MAX_CHARS, SPAN_ERROR_STACK_MAX_CHARS } from '../../src/telemetry/span-errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool } from '../support/helpers'
import { otelHarness, spansNamed } from './otel-harness'

const ERROR = 2

/** One call of a tool that throws `thrown()`, with telemetry on, then a text turn: the tool's span, and the result the model got. */
async function runThrowing(thrown: () => unknown, telemetry = true) {
  const otel = otelHarness()
  const provider = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'broken', input: {} }] }, { text: 'done' }])
  const broken = echoTool('broken', { execute: () => {
    throw thrown()
  } })
  const agent = createAgent({ provider, tools: { broken }, ...(telemetry ? { telemetry: { tracer: otel.tracer, meter: otel.meter } } : {}) })
  const stats = await agent.run({ prompt: 'go' })
  expect(stats.stopReason).toBe('completed')
  const [span] = spansNamed(otel.spans(), 'execute_tool ')
  const result = provider.requests[1].messages.at(-1)!.content.find((block): block is ToolResultBlock => block.type === 'tool_result')!
  return { span, result }
}

/** Values whose text cannot be read. */
const UNREADABLE: [string, () => unknown][] = [
  ['an object whose toString throws', () => ({ toString: () => {
    throw new Error('toString')
  } })],
  ['an Error whose message getter throws', () => Object.defineProperty(new Error('m'), 'message', { get: () => {
    throw new Error('getter')
  } })],
  ['a proxy whose every trap throws', () => new Proxy({}, {
    get: () => {
      throw new Error('trap')
    },
    getPrototypeOf: () => {
      throw new Error('trap')
    },
  })],
]

describe('a thrown value on a tool\'s span', () => {
  it('a 20 MB message and its stack are cut on the span; the model\'s result is what it is without telemetry', async () => {
    const huge = () => new RangeError(`${'x'.repeat(20_000_000)}`)
    const { span, result } = await runThrowing(huge)
    expect(span.status.code).toBe(ERROR)
    expect(span.status.message).toHaveLength(SPAN_ERROR_MESSAGE_MAX_CHARS)
    expect(span.status.message!.endsWith('x…')).toBe(true)
    expect(span.attributes['error.type']).toBe('RangeError')
    const [event] = span.events
    expect(event.name).toBe('exception')
    expect(event.attributes).toMatchObject({ 'exception.type': 'RangeError', 'exception.message': span.status.message })
    expect(String(event.attributes!['exception.stacktrace']).length).toBe(SPAN_ERROR_STACK_MAX_CHARS)
    expect(result.output).toEqual((await runThrowing(huge, false)).result.output)
  })

  it('a short message and its stack are kept whole', async () => {
    const { span } = await runThrowing(() => new TypeError('no such row'))
    expect(span.status).toEqual({ code: ERROR, message: 'no such row' })
    expect(span.events[0].attributes).toMatchObject({ 'exception.type': 'TypeError', 'exception.message': 'no such row', 'exception.stacktrace': expect.stringMatching(/^TypeError: no such row\n {4}at /) })
  })

  it.each(UNREADABLE)('%s: the span is marked failed, and the model gets the loop\'s own result', async (_name, thrown) => {
    const { span, result } = await runThrowing(thrown)
    expect(span.status).toEqual({ code: ERROR, message: UNREADABLE_THROWN })
    expect(typeof span.attributes['error.type']).toBe('string')
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining(UNREADABLE_THROWN) })
    expect(result.output).toEqual((await runThrowing(thrown, false)).result.output)
  })
})
