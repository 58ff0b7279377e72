import type { Attributes, Context, Span } from '@opentelemetry/api'
import type { SpanStarter } from './guarded'
import type { GenAiInstruments, MetricDimensions } from './metrics'
import type { AgentTelemetry } from './options'
import type { OtelApi } from './otel-api'
import { INSTRUMENTATION_SCOPE } from './conventions'
import { guardedInstruments, guardedRead, guardedTracer } from './guarded'
import { genAiInstruments } from './metrics'
import { DEFAULT_MAX_CONTENT_BYTES } from './options'
import { loadOtelApi } from './otel-api'

/** An agent's telemetry once `@opentelemetry/api` is loaded: where spans and metrics go, and what content is recorded. */
export interface TelemetryRuntime {
  readonly api: OtelApi
  /** The host's tracer behind a guard: nothing it (or its span processors) throws reaches the run. */
  readonly tracer: SpanStarter
  readonly instruments: GenAiInstruments
  readonly recordInputs: boolean
  readonly recordOutputs: boolean
  readonly content: { readonly maxBytes: number, readonly redact?: AgentTelemetry['redact'] }
  /** The served model names the agent's metrics carry (`responseModelDimension`). */
  readonly responseModels: Set<string>
}

/**
 * Where a run's (or a decision's) spans hang: the parent context, the
 * attributes every span of the run carries, and the live `execute_tool`
 * spans by call id (a nested call's and a subagent's parent).
 */
export interface TelemetryScope {
  readonly runtime: TelemetryRuntime
  readonly parent: Context
  /** `gen_ai.conversation.id`, `gen_ai.agent.name`, `gen_ai.agent.id`, when known. */
  readonly common: Attributes
  /** The metrics' agent dimension. */
  readonly agentName: string
  readonly toolSpans: Map<string, Span>
  /** The description of a tool, by canonical name. */
  readonly describeTool?: (name: string) => string | undefined
  /** The metric attributes of the scope's calls, by provider, model and response model (made once, read by every call). */
  readonly metricDimensions: Map<string, MetricDimensions>
}

const runtimes = new WeakMap<AgentTelemetry, Promise<TelemetryRuntime>>()

/** The runtime of `options`, made once (the API is loaded on the first call). */
export function telemetryRuntime(options: AgentTelemetry): Promise<TelemetryRuntime> {
  let runtime = runtimes.get(options)
  if (!runtime) {
    runtime = loadOtelApi().then(api => makeRuntime(api, options))
    // A failed load (a missing peer) is reported to each run that asks, and tried again.
    runtime.catch(() => runtimes.delete(options))
    runtimes.set(options, runtime)
  }
  return runtime
}

function makeRuntime(api: OtelApi, options: AgentTelemetry): TelemetryRuntime {
  const maxBytes = options.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES
  return {
    api,
    tracer: guardedTracer(api, options.tracer ?? guardedRead('trace.getTracer', () => api.trace.getTracer(INSTRUMENTATION_SCOPE), undefined)),
    instruments: guardedInstruments(() => genAiInstruments(options.meter ?? api.metrics.getMeter(INSTRUMENTATION_SCOPE))),
    recordInputs: options.recordInputs === true,
    recordOutputs: options.recordOutputs === true,
    content: { maxBytes, ...(options.redact ? { redact: options.redact } : {}) },
    responseModels: new Set(),
  }
}
