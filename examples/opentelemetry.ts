/**
 * OpenTelemetry GenAI traces and metrics from an agent, exported over OTLP/HTTP
 * (JSON) to a collector. Offline, the example starts its own tiny OTLP
 * receiver on 127.0.0.1 and a scripted model (`startFakeModelServer`), and
 * prints the span tree the receiver got: `invoke_agent`, `chat <model>` per
 * model call, `execute_tool <name>` per tool call, with the GenAI attributes.
 *
 *   node --import tsx examples/opentelemetry.ts
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set (e.g. http://localhost:4318, a local
 * collector or Jaeger), the spans go there instead; with ANTHROPIC_API_KEY,
 * the model is Claude. A real deployment would use the OTLP exporter packages
 * of OpenTelemetry; this one is written out so that the example needs only
 * the SDK.
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { FakeModelServer } from 'zidane/testing'
import { createServer } from 'node:http'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { startFakeModelServer } from 'zidane/testing'
import { z } from 'zod'

/** An OTLP attribute value (`AnyValue` of the OTLP JSON encoding). */
function otlpValue(value: unknown): Record<string, unknown> {
  if (Array.isArray(value))
    return { arrayValue: { values: value.map(otlpValue) } }
  if (typeof value === 'boolean')
    return { boolValue: value }
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  return { stringValue: String(value) }
}

const nanos = ([seconds, nanoseconds]: [number, number]) => (BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)).toString()

/** Spans as an OTLP/JSON `ExportTraceServiceRequest`. */
function otlpTraces(spans: readonly ReadableSpan[]) {
  return {
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'zidane-example' } }] },
      scopeSpans: [{
        scope: { name: 'zidane' },
        spans: spans.map(span => ({
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          ...(span.parentSpanContext ? { parentSpanId: span.parentSpanContext.spanId } : {}),
          name: span.name,
          // OTLP numbers kinds from 1 (INTERNAL); the API from 0.
          kind: span.kind + 1,
          startTimeUnixNano: nanos(span.startTime),
          endTimeUnixNano: nanos(span.endTime),
          attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: otlpValue(value) })),
          status: { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) },
        })),
      }],
    }],
  }
}

/** Posts each finished span to an OTLP/HTTP endpoint as JSON. */
class OtlpJsonExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>()
  constructor(private readonly endpoint: string) {}
  export(spans: ReadableSpan[], done: (result: { code: number, error?: Error }) => void): void {
    const posted = fetch(`${this.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(otlpTraces(spans)) })
      .then(response => done({ code: response.ok ? 0 : 1 }), (error: Error) => done({ code: 1, error }))
    this.pending.add(posted)
    void posted.finally(() => this.pending.delete(posted))
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending)
  }

  shutdown(): Promise<void> {
    return this.forceFlush()
  }
}

/** A minimal OTLP/HTTP receiver: keeps the spans of every JSON traces request it is sent. */
async function startOtlpReceiver() {
  const received: { name: string, spanId: string, parentSpanId?: string, attributes: { key: string, value: Record<string, unknown> }[] }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? [])
            received.push(...scope.spans)
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>(resolve => server.close(() => resolve())) }
}

/** Metrics read when the program asks (a real host would use a periodic OTLP metric exporter). */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const weather = tool({
  name: 'weather',
  description: 'The weather in a city.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `${city}: 18°C, light rain`,
})

const receiver = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? undefined : await startOtlpReceiver()
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? receiver!.url
let model: FakeModelServer | undefined
if (!process.env.ANTHROPIC_API_KEY) {
  model = await startFakeModelServer({
    script: [
      { toolCalls: [{ name: 'weather', input: { city: 'Ljubljana' } }] },
      ({ toolResults }) => ({ text: `It is ${toolResults[0]?.split(': ')[1] ?? 'unknown'} in Ljubljana.` }),
    ],
  })
}

const exporter = new OtlpJsonExporter(endpoint)
const tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const reader = new OnDemandReader()
const metering = new MeterProvider({ readers: [reader] })

try {
  const agent = createAgent({
    provider: model ? anthropic({ baseURL: model.url, apiKey: 'offline' }) : anthropic(),
    tools: { weather },
    telemetry: { tracer: tracing.getTracer('zidane'), meter: metering.getMeter('zidane'), agentName: 'forecaster', recordOutputs: true },
  })
  const stats = await agent.run({ prompt: 'What is the weather in Ljubljana?' })
  console.log(`answer: ${stats.text}\n`)
  await tracing.forceFlush()
  await exporter.forceFlush()

  if (receiver) {
    // The tree the collector got, with a few of the GenAI attributes of each span.
    const shown = ['gen_ai.request.model', 'gen_ai.response.id', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.tool.call.id']
    const print = (parent: string | undefined, depth: number) => {
      for (const span of receiver.received.filter(candidate => (candidate.parentSpanId || undefined) === parent)) {
        const attributes = span.attributes.filter(attribute => shown.includes(attribute.key)).map(attribute => `${attribute.key}=${Object.values(attribute.value)[0]}`)
        console.log(`${'  '.repeat(depth)}${span.name}  ${attributes.join(' ')}`)
        print(span.spanId, depth + 1)
      }
    }
    console.log(`the OTLP receiver at ${receiver.url} got ${receiver.received.length} spans:`)
    print(undefined, 1)
    if (!receiver.received.some(span => span.name === 'invoke_agent forecaster'))
      throw new Error('the receiver got no invoke_agent span')
  }
  else {
    console.log(`spans exported to ${endpoint}`)
  }

  const { resourceMetrics } = await reader.collect()
  for (const metric of resourceMetrics.scopeMetrics.flatMap(scope => scope.metrics)) {
    const points = metric.dataPoints.map(point => `${JSON.stringify(point.attributes['gen_ai.token.type'] ?? point.attributes['gen_ai.operation.name'])}: ${(point.value as { sum: number }).sum.toFixed(3)}`)
    console.log(`${metric.descriptor.name} (${metric.descriptor.unit}) ${points.join(', ')}`)
  }
}
finally {
  await tracing.shutdown()
  await metering.shutdown()
  await model?.close()
  await receiver?.close()
}
