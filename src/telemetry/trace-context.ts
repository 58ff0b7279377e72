import type { Context, SpanContext } from '@opentelemetry/api'
import type { OtelApi } from './otel-api'

/**
 * W3C Trace Context carriers (`traceparent`, `tracestate`): written for a
 * child run (`SpawnHookContext.tracingContext`) and with a run's record (so a
 * run resumed in another process joins its trace), read from
 * `AgentRunOptions.tracingContext`. The host's own propagator, when it
 * registered one, writes and reads its keys too (B3, baggage); the W3C keys
 * are written by zidane itself, so they are there without one.
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const ALL_ZERO = /^0+$/
/** W3C caps `tracestate` at 32 members; 512 characters is what its implementations keep. */
const MAX_TRACESTATE_LENGTH = 512
const MAX_TRACEPARENT_LENGTH = 55

/** The carrier of the span in `ctx`, or `{}` when it holds none. */
export function injectCarrier(api: OtelApi, ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {}
  api.propagation.inject(ctx, carrier)
  const span = api.trace.getSpanContext(ctx)
  if (span && api.trace.isSpanContextValid(span)) {
    carrier.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xFF).toString(16).padStart(2, '0')}`
    const state = span.traceState?.serialize()
    if (state)
      carrier.tracestate = state
  }
  return carrier
}

/** The remote span a carrier names, read by the host's propagator first, then as W3C; `undefined` when it names none. */
export function extractSpanContext(api: OtelApi, carrier: Readonly<Record<string, unknown>> | undefined): SpanContext | undefined {
  if (!carrier || typeof carrier !== 'object')
    return undefined
  const strings: Record<string, string> = {}
  for (const key of ['traceparent', 'tracestate']) {
    const value = carrier[key]
    if (typeof value === 'string')
      strings[key] = value
  }
  const byPropagator = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, carrier))
  if (byPropagator && api.trace.isSpanContextValid(byPropagator))
    return byPropagator
  return parseTraceparent(api, strings.traceparent, strings.tracestate)
}

function parseTraceparent(api: OtelApi, traceparent: string | undefined, tracestate: string | undefined): SpanContext | undefined {
  if (traceparent === undefined || traceparent.length > MAX_TRACEPARENT_LENGTH)
    return undefined
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase())
  if (!match || ALL_ZERO.test(match[1]) || ALL_ZERO.test(match[2]))
    return undefined
  const context: SpanContext = { traceId: match[1], spanId: match[2], traceFlags: Number.parseInt(match[3], 16) & 0x01, isRemote: true }
  if (tracestate && tracestate.length <= MAX_TRACESTATE_LENGTH)
    context.traceState = api.createTraceState(tracestate)
  return context
}
