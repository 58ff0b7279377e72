/**
 * A streamable-HTTP server's event stream, open only while the agent holds
 * the event loop (see event-loop-hold.ts and decisions,
 * 2026-12-02-idle-agent-exit).
 *
 * After `initialize` the SDK's transport opens a `GET` event stream for the
 * server's own messages and keeps it open, and a socket with a response in
 * progress keeps Node's event loop alive. That socket belongs to `fetch`,
 * which cannot be told to let go of it, so the gate closes the stream
 * instead: letting go aborts it, and any `GET` for an event stream while
 * idle is answered 405, which the SDK reads as "this server offers no event
 * stream" and stops asking. Holding again reopens the stream with
 * `resumeStream`, from the last event id the SDK asked to resume from, so a
 * server that keeps its events replays what it sent meanwhile. The session,
 * and every request and its response stream, are untouched.
 */

import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { mergeObjects } from '../core/merge-objects'
import { delay, timerNow } from '../core/timer'

/** The status the SDK takes for "no event stream here": it neither fails nor retries. */
const NO_EVENT_STREAM = 405

/**
 * Least time between the starts of two event-stream `GET`s of one transport,
 * in milliseconds. The SDK reconnects after the delay the server's `retry`
 * asks for, and a server that ends each stream right after `retry: 0` had it
 * reconnecting in a tight loop (638 `GET`s in 2 s); its own backoff never
 * grows, since every attempt succeeds. A later `GET` waits out the rest.
 */
export const MIN_MCP_EVENT_STREAM_INTERVAL_MS = 1_000

function isEventStreamRequest(init: RequestInit | undefined): boolean {
  if ((init?.method ?? 'GET').toUpperCase() !== 'GET')
    return false
  return (new Headers(init?.headers).get('accept') ?? '').includes('text/event-stream')
}

function noEventStream(): Response {
  return new Response(null, { status: NO_EVENT_STREAM, statusText: 'Event stream paused while idle' })
}

/** The gate of each streamable-HTTP transport made by `createTransport`. */
const gates = new WeakMap<object, EventStreamGate>()

/** The gate that `holdTransport` opens and closes for `transport`, if it has one. */
export function eventStreamGateOf(transport: object): EventStreamGate | undefined {
  return gates.get(transport)
}

/** Gate `transport`'s event stream: its fetch must be `gate.wrap(...)`. */
export function gateEventStream(transport: StreamableHTTPClientTransport, gate: EventStreamGate): void {
  gate.attach(transport)
  gates.set(transport, gate)
}

export class EventStreamGate {
  private held = true
  /** Aborted when the gate lets go: ends the streams opened while held. */
  private streams = new AbortController()
  /** A stream was refused or cut while idle: reopen it when held again. */
  private wanted = false
  private lastEventId = ''
  private transport?: StreamableHTTPClientTransport
  /** When the next event-stream `GET` may start (see `MIN_MCP_EVENT_STREAM_INTERVAL_MS`). */
  private nextOpening = 0

  /** The fetch the transport uses: event-stream `GET`s go through the gate, everything else straight to `base`. */
  wrap(base: FetchLike | undefined): FetchLike {
    const send: FetchLike = base ?? ((url, init) => fetch(url, init))
    return async (url, init) => {
      if (!isEventStreamRequest(init))
        return send(url, init)
      const resumeFrom = new Headers(init?.headers).get('last-event-id')
      if (resumeFrom)
        this.lastEventId = resumeFrom
      if (!this.held) {
        this.wanted = true
        return noEventStream()
      }
      const streams = this.streams
      const signal = init?.signal ? AbortSignal.any([init.signal, streams.signal]) : streams.signal
      // Booked before waiting, so that a request arriving meanwhile queues behind this one.
      const wait = this.nextOpening - timerNow()
      this.nextOpening = Math.max(this.nextOpening, timerNow()) + MIN_MCP_EVENT_STREAM_INTERVAL_MS
      try {
        if (wait > 0)
          await delay(wait, signal)
        return await send(url, mergeObjects(init, { signal }))
      }
      catch (error) {
        // Cut by the gate before the server answered (or while waiting its turn): quietly no stream, reopened when held again.
        if (streams.signal.aborted && !init?.signal?.aborted) {
          this.wanted = true
          return noEventStream()
        }
        throw error
      }
    }
  }

  /** The transport whose stream is reopened by `hold(true)`. */
  attach(transport: StreamableHTTPClientTransport): void {
    this.transport = transport
  }

  /** Open the event stream (again) or close it. */
  hold(hold: boolean): void {
    if (hold === this.held)
      return
    this.held = hold
    if (!hold) {
      this.streams.abort()
      this.streams = new AbortController()
      return
    }
    if (this.wanted && this.transport) {
      this.wanted = false
      // Not awaited: a run never waits for the server's event stream.
      this.transport.resumeStream(this.lastEventId).catch(() => {})
    }
  }
}
