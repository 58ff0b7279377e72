/**
 * Telemetry never changes what a run does. The tracer, its span processors
 * and exporters, the meter and the propagator are the host's code, and what
 * reaches them (a carrier from a request's headers, a tool's text, a served
 * model's name) comes from outside. Before, a throwing `startSpan`, span
 * processor, span method, `createHistogram` or histogram `record` failed the
 * run (the last one as the provider's error); a carrier whose getter threw
 * failed the run; a megabytes-long `tracestate` reached the propagator whole;
 * a lone surrogate in a tool's result or error reached the exporter; and each
 * served model name a server made up was a new metric series.
 */

import type { Histogram, Meter, Span, TextMapPropagator, Tracer } from '@opentelemetry/api'
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { ToolDef, ToolResultBlock } from '../../src'
import { propagation } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { otelHarness, spansNamed } from './otel-harness'

const echo: ToolDef = {
  spec: { name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: {} } },
  execute: () => 'echoed',
}

/** A tool call then a text turn, with `telemetry`: the stats and the tool result the model got. */
async function runWith(telemetry: Record<string, unknown>, run: Record<string, unknown> = {}) {
  const provider = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'echo', input: {} }] }, { text: 'done' }])
  const agent = createAgent({ provider, tools: { echo }, telemetry })
  const stats = await agent.run({ prompt: 'go', ...run })
  const result = provider.requests[1].messages.at(-1)!.content.find((block): block is ToolResultBlock => block.type === 'tool_result')!
  return { stats, result }
}

function boom(what: string) {
  return () => {
    throw new Error(`host telemetry: ${what}`)
  }
}

/** A span whose every method throws. */
const throwingSpan = new Proxy({} as Span, { get: (_target, key) => key === 'then' ? undefined : boom(`span.${String(key)}`) })

function processorThrowingIn(hook: 'onStart' | 'onEnd'): SpanProcessor {
  const processor: SpanProcessor = { onStart: () => {}, onEnd: () => {}, forceFlush: async () => {}, shutdown: async () => {} }
  processor[hook] = boom(hook)
  return processor
}

afterEach(() => {
  propagation.disable()
})

describe('a host\'s telemetry that throws', () => {
  const otel = otelHarness()
  const cases: [string, () => Record<string, unknown>][] = [
    ['a tracer whose startSpan throws', () => ({ tracer: { startSpan: boom('startSpan') } as unknown as Tracer, meter: otel.meter })],
    ['a span processor whose onStart throws', () => ({ tracer: new BasicTracerProvider({ spanProcessors: [processorThrowingIn('onStart')] }).getTracer('t'), meter: otel.meter })],
    ['a span processor whose onEnd throws', () => ({ tracer: new BasicTracerProvider({ spanProcessors: [processorThrowingIn('onEnd')] }).getTracer('t'), meter: otel.meter })],
    ['spans whose every method throws (content recorded)', () => ({ tracer: { startSpan: () => throwingSpan } as unknown as Tracer, meter: otel.meter, recordInputs: true, recordOutputs: true })],
    ['a meter whose createHistogram throws', () => ({ tracer: otel.tracer, meter: { createHistogram: boom('createHistogram') } as unknown as Meter })],
    ['histograms whose record throws', () => ({ tracer: otel.tracer, meter: { createHistogram: () => ({ record: boom('record') }) as Histogram } as unknown as Meter })],
  ]

  it.each(cases)('%s: the run completes, and the model reads what it reads without telemetry', async (_name, telemetry) => {
    const { stats, result } = await runWith(telemetry())
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('done')
    expect(result.isError).toBeFalsy()
    expect(result.output).toBe('echoed')
  })

  it('a span that could not be started keeps its children in the caller\'s trace', async () => {
    const harness = otelHarness()
    let calls = 0
    // The run's span fails to start; the spans under it still hang from the caller's context.
    const tracer = { startSpan: (...args: Parameters<Tracer['startSpan']>) => calls++ === 0 ? boom('first startSpan')() : harness.tracer.startSpan(...args) } as unknown as Tracer
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const { stats } = await runWith({ tracer }, { tracingContext: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } })
    expect(stats.stopReason).toBe('completed')
    const tool = spansNamed(harness.spans(), 'execute_tool ')[0]
    expect(tool.spanContext().traceId).toBe(traceId)
  })
})

describe('telemetry options checked at createAgent', () => {
  const provider = () => scriptedProvider([{ text: 'never' }])
  it.each([
    ['a tracer without startSpan', { tracer: {} }, /telemetry\.tracer must be an OpenTelemetry tracer/],
    ['a meter without createHistogram', { meter: 42 }, /telemetry\.meter must be an OpenTelemetry meter/],
    ['recordInputs that is not a boolean', { recordInputs: 'yes' }, /telemetry\.recordInputs must be true or false, got "yes"/],
    ['recordOutputs that is not a boolean', { recordOutputs: 1 }, /telemetry\.recordOutputs must be true or false, got 1/],
    ['an agentName that is not a string', { agentName: { name: 'x' } }, /telemetry\.agentName must be a string of 1 to 256 characters, got an object/],
    ['an agentId of megabytes', { agentId: 'x'.repeat(1_000_000) }, /telemetry\.agentId must be a string of 1 to 256 characters, got "x{40}…"$/],
  ])('%s is a TypeError naming the field', (_name, telemetry, message) => {
    expect(() => createAgent({ provider: provider(), telemetry: telemetry as never })).toThrow(TypeError)
    expect(() => createAgent({ provider: provider(), telemetry: telemetry as never })).toThrow(message)
  })
})

describe('a run\'s tracingContext, as a request\'s headers might give it', () => {
  const traceId = '0af7651916cd43dd8448eb211c80319c'
  const traceparent = `00-${traceId}-b7ad6b7169203331-01`

  /** A propagator that keeps what it was handed and extracts nothing (the W3C fallback then reads the carrier). */
  function spyPropagator(): Record<string, unknown>[] {
    const seen: Record<string, unknown>[] = []
    const spy: TextMapPropagator = {
      inject: () => {},
      extract: (ctx, carrier) => {
        seen.push({ ...(carrier as Record<string, unknown>) })
        return ctx
      },
      fields: () => [],
    }
    propagation.setGlobalPropagator(spy)
    return seen
  }

  it('values over 8,192 characters and values that are not strings never reach the propagator', async () => {
    const seen = spyPropagator()
    const otel = otelHarness()
    const huge = 'k=v,'.repeat(2_000_000)
    const { stats } = await runWith({ tracer: otel.tracer }, { tracingContext: { traceparent, 'tracestate': huge, 'baggage': huge, 'x-count': 5, 'x-ok': 'fine' } })
    expect(stats.stopReason).toBe('completed')
    expect(seen[0]).toEqual({ traceparent, 'x-ok': 'fine' })
    const [root] = spansNamed(otel.spans(), 'invoke_agent ')
    expect(root.spanContext().traceId).toBe(traceId)
  })

  it('a carrier whose reads throw is ignored: the run completes in a trace of its own', async () => {
    spyPropagator()
    const otel = otelHarness()
    const trap = new Proxy({}, { get: boom('carrier get'), ownKeys: boom('carrier keys'), has: boom('carrier has') })
    const { stats } = await runWith({ tracer: otel.tracer }, { tracingContext: trap })
    expect(stats.stopReason).toBe('completed')
    const [root] = spansNamed(otel.spans(), 'invoke_agent ')
    expect(root.parentSpanContext).toBeUndefined()
  })

  it('a propagator whose extract and inject throw is ignored; the W3C keys are still read and written', async () => {
    propagation.setGlobalPropagator({ inject: boom('inject'), extract: boom('extract'), fields: () => [] })
    const otel = otelHarness()
    const { stats } = await runWith({ tracer: otel.tracer }, { tracingContext: { traceparent } })
    expect(stats.stopReason).toBe('completed')
    const [root] = spansNamed(otel.spans(), 'invoke_agent ')
    expect(root.spanContext().traceId).toBe(traceId)
  })
})

describe('outside text on spans', () => {
  const wellFormed = (value: unknown) => typeof value !== 'string' || (value as unknown as { isWellFormed: () => boolean }).isWellFormed()

  it('lone surrogates in a tool\'s result and in a thrown message reach the exporter as U+FFFD', async () => {
    const otel = otelHarness()
    const tools: Record<string, ToolDef> = {
      half: { spec: { name: 'half', description: 'cuts an emoji', inputSchema: { type: 'object' } }, execute: () => 'cut \uD83D here' },
      broken: { spec: { name: 'broken', description: 'throws', inputSchema: { type: 'object' } }, execute: () => {
        throw new Error('bad \uDE00 byte')
      } },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'half', input: {} }, { id: 'c2', name: 'broken', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools, telemetry: { tracer: otel.tracer, meter: otel.meter, recordOutputs: true } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    const [half] = spansNamed(otel.spans(), 'execute_tool half')
    const [broken] = spansNamed(otel.spans(), 'execute_tool broken')
    expect(half.attributes['gen_ai.tool.call.result']).toBe('cut \uFFFD here')
    expect(broken.status.message).toBe('bad \uFFFD byte')
    for (const span of otel.spans()) {
      expect(Object.values(span.attributes).every(wellFormed)).toBe(true)
      expect(span.events.every(event => Object.values(event.attributes ?? {}).every(wellFormed))).toBe(true)
      expect(wellFormed(span.status.message)).toBe(true)
    }
  })
})

describe('served model names in metrics', () => {
  it('past 32 distinct names per agent, gen_ai.response.model is _OTHER; spans keep the name as served', async () => {
    const otel = otelHarness()
    const calls = 40
    const turns = Array.from({ length: calls }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: 'echo', input: { i } }], usage: { modelId: `made-up-${i}` } }))
    const provider = scriptedProvider([...turns, { text: 'done', usage: { modelId: 'made-up-0' } }])
    const agent = createAgent({ provider, tools: { echo }, telemetry: { tracer: otel.tracer, meter: otel.meter } })
    expect((await agent.run({ prompt: 'go', behavior: { maxTurns: calls + 5 } })).stopReason).toBe('completed')
    const duration = await otel.histogram('gen_ai.client.operation.duration')
    const models = duration!.dataPoints.map(point => point.attributes['gen_ai.response.model'])
    expect(new Set(models).size).toBe(33)
    expect(models).toContain('_OTHER')
    expect(models).toContain('made-up-31')
    expect(models).not.toContain('made-up-32')
    const chats = spansNamed(otel.spans(), 'chat ')
    expect(chats.at(-2)!.attributes['gen_ai.response.model']).toBe(`made-up-${calls - 1}`)
  })
})

describe('a decision\'s answer under telemetry', () => {
  const decider = (value: unknown) => ({
    name: 'echo',
    meta: { defaultModel: 'echo-1' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    stream: () => Promise.reject(new Error('not used')),
    decisions: { defaultModel: 'echo-1', canAnswer: () => true, decide: async () => ({ body: { type: 'answers' as const, value }, model: 'echo-1', usage: { input: 1, output: 1 } }) },
  })

  it.each([false, true])('that JSON cannot write is the same invalid outcome as without telemetry (recordOutputs %s)', async (recordOutputs) => {
    const value = { safe: { value: 10n, refused: false, reason: 'big' } }
    const otel = otelHarness()
    const traced = createAgent({ provider: decider(value), telemetry: { tracer: otel.tracer, meter: otel.meter, recordOutputs } })
    const plain = createAgent({ provider: decider(value) })
    const request = { input: 'evidence', questions: { safe: { kind: 'predicate' as const, question: 'Safe?' } } }
    const [withTelemetry, without] = [await traced.decide(request), await plain.decide(request)]
    expect(without).toMatchObject({ ok: false, reason: 'invalid' })
    expect(withTelemetry).toMatchObject({ ok: false, reason: without.ok ? 'none' : without.reason, message: without.ok ? '' : without.message })
  })
})
