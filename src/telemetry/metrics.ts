import type { Attributes, Histogram, Meter } from '@opentelemetry/api'
import { METRICS, SECONDS_BUCKETS, TOKEN_BUCKETS } from './conventions'

/** The GenAI client metrics, made once per meter. */
export interface GenAiInstruments {
  readonly tokenUsage: Histogram
  readonly operationDuration: Histogram
  readonly timeToFirstChunk: Histogram
}

/** The metric attributes of a model call's outcome: the call's own, and the token histogram's two (with `gen_ai.token.type`). */
export interface MetricDimensions {
  readonly call: Attributes
  readonly input: Attributes
  readonly output: Attributes
}

const made = new WeakMap<Meter, GenAiInstruments>()

/** Most distinct `gen_ai.response.model` values an agent's metrics carry. */
export const MAX_RESPONSE_MODELS = 32

/** What the metrics say for a served model past `MAX_RESPONSE_MODELS` (the conventions' overflow value). */
export const OTHER_RESPONSE_MODEL = '_OTHER'

/**
 * The `gen_ai.response.model` dimension of a call: the served model's name
 * while the agent has seen fewer than `MAX_RESPONSE_MODELS`, else `_OTHER`.
 * The name is the server's word, and each new one is a new series in every
 * histogram for as long as the process lives: before, a server naming a new
 * model on each answer made one series per call (300 calls, 300 series).
 * `seen` is the agent's set; the span keeps the name as served.
 */
export function responseModelDimension(seen: Set<string>, model: string | undefined): string | undefined {
  if (model === undefined || seen.has(model))
    return model
  if (seen.size >= MAX_RESPONSE_MODELS)
    return OTHER_RESPONSE_MODEL
  seen.add(model)
  return model
}

/** The instruments on `meter`, with the units and bucket boundaries the conventions advise. */
export function genAiInstruments(meter: Meter): GenAiInstruments {
  let instruments = made.get(meter)
  if (!instruments) {
    instruments = {
      tokenUsage: meter.createHistogram(METRICS.tokenUsage.name, {
        unit: METRICS.tokenUsage.unit,
        description: METRICS.tokenUsage.description,
        advice: { explicitBucketBoundaries: [...TOKEN_BUCKETS] },
      }),
      operationDuration: meter.createHistogram(METRICS.operationDuration.name, {
        unit: METRICS.operationDuration.unit,
        description: METRICS.operationDuration.description,
        advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS] },
      }),
      timeToFirstChunk: meter.createHistogram(METRICS.timeToFirstChunk.name, {
        unit: METRICS.timeToFirstChunk.unit,
        description: METRICS.timeToFirstChunk.description,
        advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS] },
      }),
    }
    made.set(meter, instruments)
  }
  return instruments
}

/** Attributes without their `undefined` entries (an SDK drops them anyway; a dimension must not be one). */
export function presentAttributes(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {}
  for (const key in attributes) {
    const value = attributes[key]
    if (value !== undefined)
      out[key] = value
  }
  return out
}
