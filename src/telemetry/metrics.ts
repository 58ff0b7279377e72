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
