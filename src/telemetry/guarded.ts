/**
 * The host's tracer, spans and histograms behind a guard. They are the host's
 * code (or an SDK's span processors and exporters, which run inside
 * `startSpan` and `span.end()`), and telemetry must never change what a run
 * does: before, a span processor whose `onStart` or `onEnd` threw, a tracer
 * whose `startSpan` threw, or a meter whose `createHistogram` threw failed the
 * run with that error, and a histogram whose `record` threw failed the model
 * call, reported as the provider's error. Behind the guard each such throw is
 * logged (`ZIDANE_DEBUG`) and dropped; a span that could not be started is a
 * non-recording one carrying its parent's context, so spans under it still
 * join the caller's trace.
 *
 * Every string that goes onto a span (names, attributes, event attributes,
 * the status message) is made well-formed on the way: a lone surrogate from a
 * tool's result or an error's text would otherwise reach the exporter, and
 * a protobuf exporter writes it as bytes that are not UTF-8, for which a
 * collector refuses the whole batch it came in.
 */

import type { Attributes, AttributeValue, Context, Exception, Histogram, Link, Span, SpanContext, SpanOptions, SpanStatus, TimeInput, Tracer } from '@opentelemetry/api'
import type { GenAiInstruments } from './metrics'
import type { OtelApi } from './otel-api'
import { mergeObjects } from '../core/merge-objects'
import { debugLog } from '../debug'
import { wellFormedText } from '../text/well-formed-text'

/** What zidane asks of a tracer: spans, started under a context. */
export interface SpanStarter {
  startSpan: (name: string, options: SpanOptions, context: Context) => Span
}

/** `run()`, or `fallback` (with the error logged) when it throws. */
function attempt<T>(what: string, run: () => T, fallback: T): T {
  try {
    return run()
  }
  catch (error) {
    debugLog(`telemetry: ${what} threw; ignored`, error)
    return fallback
  }
}

/** A string made well-formed; any other attribute value as it is. */
function wellFormedAttribute(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string')
    return wellFormedText(value)
  if (Array.isArray(value)) {
    const clean = value.map(item => typeof item === 'string' ? wellFormedText(item) : item)
    return clean.every((item, i) => item === value[i]) ? value : clean as AttributeValue
  }
  return value
}

/**
 * Attributes with every string well-formed: the same object when they all
 * are (nearly always; this runs for every span), else a copy.
 */
function wellFormedAttributes(attributes: Attributes | undefined): Attributes | undefined {
  if (attributes === undefined)
    return undefined
  let out: Attributes | undefined
  for (const key of Object.keys(attributes)) {
    const value = attributes[key]
    const clean = wellFormedAttribute(value)
    if (out === undefined && clean !== value)
      out = Object.assign({}, attributes)
    if (out !== undefined)
      out[key] = clean
  }
  return out ?? attributes
}

/** A span whose every method swallows what the host's span throws. */
class GuardedSpan implements Span {
  constructor(private readonly inner: Span, private readonly fallbackContext: SpanContext) {}

  spanContext(): SpanContext {
    return attempt('span.spanContext', () => this.inner.spanContext(), this.fallbackContext)
  }

  setAttribute(key: string, value: AttributeValue): this {
    attempt('span.setAttribute', () => this.inner.setAttribute(key, wellFormedAttribute(value)!), undefined)
    return this
  }

  setAttributes(attributes: Attributes): this {
    attempt('span.setAttributes', () => this.inner.setAttributes(wellFormedAttributes(attributes)!), undefined)
    return this
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    const isAttributes = typeof attributesOrTime === 'object' && attributesOrTime !== null && !Array.isArray(attributesOrTime) && !(attributesOrTime instanceof Date)
    const second = isAttributes ? wellFormedAttributes(attributesOrTime as Attributes) : attributesOrTime as TimeInput | undefined
    attempt('span.addEvent', () => this.inner.addEvent(wellFormedText(name), second, time), undefined)
    return this
  }

  addLink(link: Link): this {
    attempt('span.addLink', () => this.inner.addLink(link), undefined)
    return this
  }

  addLinks(links: Link[]): this {
    attempt('span.addLinks', () => this.inner.addLinks(links), undefined)
    return this
  }

  setStatus(status: SpanStatus): this {
    const message = status.message === undefined ? undefined : wellFormedText(status.message)
    attempt('span.setStatus', () => this.inner.setStatus(message === undefined ? { code: status.code } : { code: status.code, message }), undefined)
    return this
  }

  updateName(name: string): this {
    attempt('span.updateName', () => this.inner.updateName(wellFormedText(name)), undefined)
    return this
  }

  end(endTime?: TimeInput): void {
    attempt('span.end', () => this.inner.end(endTime), undefined)
  }

  isRecording(): boolean {
    return attempt('span.isRecording', () => this.inner.isRecording(), false)
  }

  recordException(exception: Exception, time?: TimeInput): void {
    attempt('span.recordException', () => this.inner.recordException(exception, time), undefined)
  }
}

/**
 * `tracer` behind the guard: each span it starts is guarded, and a
 * `startSpan` that throws (or returns no span, or a tracer that could not be
 * had) gives a non-recording span with the parent's context.
 */
export function guardedTracer(api: OtelApi, tracer: Tracer | undefined): SpanStarter {
  return {
    startSpan(name, options, context) {
      const parentContext = attempt('trace.getSpanContext', () => api.trace.getSpanContext(context), undefined) ?? api.INVALID_SPAN_CONTEXT
      const started = attempt('tracer.startSpan', () => tracer?.startSpan(wellFormedText(name), wellFormedOptions(options), context) as Span | undefined, undefined)
      const inner = typeof started === 'object' && started !== null ? started : api.trace.wrapSpanContext(parentContext)
      return new GuardedSpan(inner, parentContext)
    },
  }
}

/** Span options with their attributes well-formed. */
function wellFormedOptions(options: SpanOptions): SpanOptions {
  const attributes = wellFormedAttributes(options.attributes)
  return attributes === options.attributes ? options : mergeObjects(options, { attributes })
}

/** A histogram whose `record` swallows what the host's throws. */
function guardedHistogram(histogram: Histogram, name: string): Histogram {
  return { record: (value, attributes, context) => attempt(`${name}.record`, () => histogram.record(value, attributes, context), undefined) }
}

/** A histogram that records nothing, for a meter that could not make one. */
const NO_HISTOGRAM: Histogram = { record: () => {} }

/** The instruments `make` builds, each guarded; none that record anything when building them throws. */
export function guardedInstruments(make: () => GenAiInstruments): GenAiInstruments {
  const made = attempt('meter.createHistogram', make, undefined)
  if (!made)
    return { tokenUsage: NO_HISTOGRAM, operationDuration: NO_HISTOGRAM, timeToFirstChunk: NO_HISTOGRAM }
  return {
    tokenUsage: guardedHistogram(made.tokenUsage, 'tokenUsage'),
    operationDuration: guardedHistogram(made.operationDuration, 'operationDuration'),
    timeToFirstChunk: guardedHistogram(made.timeToFirstChunk, 'timeToFirstChunk'),
  }
}

/** `read()`, or `fallback` when it throws (a host's global provider or propagator). */
export function guardedRead<T>(what: string, read: () => T, fallback: T): T {
  return attempt(what, read, fallback)
}
