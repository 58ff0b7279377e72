/**
 * The real OpenTelemetry SDK wired for a test: spans into the in-memory
 * exporter of `@opentelemetry/sdk-trace-base`, metrics read on demand by an
 * in-memory reader of `@opentelemetry/sdk-metrics`.
 */

import type { HistogramMetricData } from '@opentelemetry/sdk-metrics'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

/** A reader that exports nothing: the test collects when it wants to look. */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface OtelHarness {
  tracer: ReturnType<BasicTracerProvider['getTracer']>
  meter: ReturnType<MeterProvider['getMeter']>
  spans: () => ReadableSpan[]
  /** The histogram named `name` as the reader collects it now. */
  histogram: (name: string) => Promise<HistogramMetricData | undefined>
}

export function otelHarness(): OtelHarness {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new CollectingReader()
  const meters = new MeterProvider({ readers: [reader] })
  return {
    tracer: provider.getTracer('zidane-test'),
    meter: meters.getMeter('zidane-test'),
    spans: () => exporter.getFinishedSpans(),
    histogram: async (name) => {
      const { resourceMetrics } = await reader.collect()
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name)
            return metric as HistogramMetricData
        }
      }
      return undefined
    },
  }
}

/** The spans whose name starts with `prefix`, in the order they ended. */
export function spansNamed(spans: readonly ReadableSpan[], prefix: string): ReadableSpan[] {
  return spans.filter(span => span.name.startsWith(prefix))
}

/** The span id of a span's parent, or `undefined` for a root. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId
}
