import type { Context, SpanContext } from '@opentelemetry/api'
import type { OtelApi } from './otel-api'
import { guardedRead } from './guarded'

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
/** Most entries of a caller's carrier handed to the propagators (HTTP requests carry a few dozen headers). */
const MAX_CARRIER_KEYS = 64
/** Longest carrier value handed to the propagators: W3C caps `baggage`, the longest they read, at 8,192 bytes. */
const MAX_CARRIER_VALUE_LENGTH = 8192

/** The carrier of the span in `ctx`, or `{}` when it holds none. */
export function injectCarrier(api: OtelApi, ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {}
  // The host's propagator is the host's code: what it throws must not fail the run.
  guardedRead('propagation.inject', () => api.propagation.inject(ctx, carrier), undefined)
  const span = api.trace.getSpanContext(ctx)
  if (span && api.trace.isSpanContextValid(span)) {
    carrier.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xFF).toString(16).padStart(2, '0')}`
    const state = guardedRead('traceState.serialize', () => span.traceState?.serialize(), undefined)
    if (state)
      carrier.tracestate = state
  }
  return carrier
}

/** The remote span a carrier names, read by the host's propagator first, then as W3C; `undefined` when it names none. */
export function extractSpanContext(api: OtelApi, carrier: Readonly<Record<string, unknown>> | undefined): SpanContext | undefined {
  if (!carrier || typeof carrier !== 'object')
    return undefined
  const strings = guardedRead('reading tracingContext', () => plainCarrier(carrier), undefined)
  if (!strings)
    return undefined
  const byPropagator = guardedRead('propagation.extract', () => api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, strings)), undefined)
  if (byPropagator && api.trace.isSpanContextValid(byPropagator))
    return byPropagator
  return parseTraceparent(api, strings.traceparent, strings.tracestate)
}

/**
 * The carrier as the propagators get it: its own string entries, read once,
 * at most `MAX_CARRIER_KEYS` of them (the W3C keys first), each at most
 * `MAX_CARRIER_VALUE_LENGTH` long. A carrier is often a request's headers, so
 * it is outside input: before, a megabytes-long `tracestate` was parsed
 * member by member by the host's W3C propagator (an 8 MB one held a run's
 * start for 1.5 s), and a value that was not a string made it throw.
 */
function plainCarrier(carrier: Readonly<Record<string, unknown>>): Record<string, string> {
  const strings = Object.create(null) as Record<string, string>
  let count = 0
  const take = (key: string) => {
    if (count >= MAX_CARRIER_KEYS || key in strings)
      return
    const raw = carrier[key]
    // A header sent twice arrives as an array; a propagator reads its first value.
    const value = Array.isArray(raw) ? raw[0] as unknown : raw
    if (typeof value === 'string' && value.length <= MAX_CARRIER_VALUE_LENGTH) {
      strings[key] = value
      count++
    }
  }
  take('traceparent')
  take('tracestate')
  for (const key of Object.keys(carrier)) {
    if (count >= MAX_CARRIER_KEYS)
      break
    take(key)
  }
  return strings
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
