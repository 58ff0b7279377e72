import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { ExecutionContext } from '../contexts/types'
import type { McpResponseTooLargeError } from './capped-response'
import type { McpServerConfig } from './types'
import { StringDecoder } from 'node:string_decoder'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { mergeObjects } from '../core/merge-objects'
import { truncateTextTail } from '../text/truncate'
import { createCappedFetch, DEFAULT_MAX_RESPONSE_BYTES, requestIdsOf } from './capped-response'
import { createContextTransport } from './context-transport'
import { EventStreamGate, gateEventStream } from './event-stream-gate'
import { pinnedTransportOptions } from './pinned-fetch'
import { capStdinBacklog } from './stdin-backlog'
import { answerMalformedResponses } from './stdio-answers'

/** How much of a stdio server's stderr is kept for error messages. */
const STDERR_TAIL_CHARS = 4000

/** What a transport may need beyond the config. Each capability module adds its own field here. */
export interface TransportOptions {
  /** Receives a stdio server's stderr as it arrives. */
  onStderr?: (chunk: string) => void
  /** Where `scope: 'context'` stdio servers run (see context-transport.ts). */
  execution?: ExecutionContext
  /** OAuth for sse / streamable-http servers: wraps the transport's fetch (see oauth/session.ts). */
  wrapFetch?: (base: FetchLike | undefined) => FetchLike
  /** A sse / streamable-http answer went past `maxResponseBytes` and was cut (see capped-response.ts). */
  onResponseLimit?: (error: McpResponseTooLargeError) => void
  /** A host-spawned stdio server stopped reading its input and the connection was closed (see stdin-backlog.ts). */
  onStdinBacklog?: (error: Error) => void
}

export interface CreatedTransport {
  transport: Transport
  /** Last few kilobytes of a stdio server's stderr (empty for remote servers). */
  stderrTail: () => string
}

/**
 * Build the SDK transport for an (already expanded and validated) config.
 * stdio servers get stderr piped, never inherited: a chatty server must not
 * write over a host's terminal UI. The pipe is always drained so a server
 * that logs a lot cannot block on a full pipe.
 */
export function createTransport(config: McpServerConfig, options: TransportOptions = {}): CreatedTransport {
  const { onStderr } = options
  if (config.transport === 'stdio' && config.scope === 'context')
    return createContextTransport(config, options)
  if (config.transport === 'stdio') {
    const defaults = getDefaultEnvironment()
    // The SDK always spreads its default environment under ours. For `strictEnv` we mask each
    // default key with `undefined`, which `child_process.spawn` leaves out of the child's env.
    const env: Record<string, string | undefined> = config.strictEnv
      ? mergeObjects(Object.fromEntries(Object.keys(defaults).map(key => [key, undefined])), config.env)
      : mergeObjects(defaults, config.env)
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args ?? [],
      cwd: config.cwd,
      env: env as Record<string, string>,
      stderr: 'pipe',
    })
    let tail = ''
    // A character split across two chunks is held back by the decoder, never turned into U+FFFD.
    const decoder = new StringDecoder('utf8')
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
      tail = truncateTextTail(tail + text, STDERR_TAIL_CHARS)
      onStderr?.(text)
    })
    capStdinBacklog(transport, config.name, error => options.onStdinBacklog?.(error))
    answerMalformedResponses(transport, config.name)
    return { transport, stderrTail: () => tail }
  }
  return createRemoteTransport(config, options)
}

/** JSON-RPC "internal error": what a request whose answer was cut is failed with. */
const INTERNAL_ERROR = -32603

/** Fail the requests `ids` with `error`, as if the server had answered so: each call ends now, with the reason. */
function failRequests(transport: Transport, ids: Iterable<string | number>, error: Error): void {
  for (const id of ids)
    transport.onmessage?.({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: error.message } })
}

/**
 * The ids of the requests sent through `transport` that have no answer yet.
 * The client sets `onmessage` when it connects, so the property is replaced
 * by one that sees every answer on its way to the client's handler.
 */
function trackPending(transport: Transport): Set<string | number> {
  const pending = new Set<string | number>()
  const send = transport.send.bind(transport)
  transport.send = async (message, options) => {
    if ('method' in message && 'id' in message)
      pending.add(message.id)
    return send(message, options)
  }
  let handler: Transport['onmessage']
  const deliver = (message: JSONRPCMessage, extra?: Parameters<NonNullable<Transport['onmessage']>>[1]) => {
    if (!('method' in message) && 'id' in message && message.id !== undefined)
      pending.delete(message.id)
    handler?.(message, extra)
  }
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler && deliver,
    set: (next: Transport['onmessage']) => {
      handler = next
    },
  })
  return pending
}

/**
 * An `sse` or `streamable-http` transport. Every answer is read through a
 * cap of `maxResponseBytes` (capped-response.ts); what happens to the calls
 * when one is cut depends on where the answer was:
 * - a JSON answer to a `POST`: the SDK's read of it fails, and so does that call;
 * - an answer with an error status: the SDK would report only "Error POSTing
 *   to endpoint" without the reason, so the requests of that `POST` are failed
 *   with the error at once;
 * - an event of the event stream a `POST` opened (streamable HTTP): the stream
 *   ends without an answer, which the SDK would wait for until `toolTimeout`, so
 *   the requests of that `POST` are failed with the error at once;
 * - an event of the streamable-HTTP `GET` stream: the SDK reconnects and resumes
 *   from the last event id, as after any broken stream;
 * - an event of a legacy SSE session: that stream is the session and cannot be
 *   resumed, so every request in flight fails with the error and the transport
 *   closes, as the SDK's stdio reader does past its cap.
 * Each cut is also reported to `onResponseLimit`.
 */
function createRemoteTransport(config: McpServerConfig, options: TransportOptions): CreatedTransport {
  const url = new URL(config.url!)
  const requestInit: RequestInit | undefined = config.headers ? { headers: { ...config.headers } } : undefined
  const pinned = pinnedTransportOptions(config)
  const fetchOptions = options.wrapFetch ? mergeObjects(pinned, { fetch: options.wrapFetch(pinned?.fetch) }) : pinned
  const limits = { server: config.name, maxBytes: config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES }
  if (config.transport === 'sse') {
    // Set once the transport exists; an overflow can only happen after it has started.
    let session: { transport: SSEClientTransport, pending: Set<string | number> } | undefined
    const fetch = createCappedFetch(fetchOptions?.fetch, mergeObjects(limits, {
      onOverflow: (error: McpResponseTooLargeError) => {
        options.onResponseLimit?.(error)
        if (error.part !== 'event' || !session)
          return
        failRequests(session.transport, Array.from(session.pending), error)
        void session.transport.close().catch(() => {})
      },
    }))
    const transport = new SSEClientTransport(url, { requestInit, ...fetchOptions, fetch })
    session = { transport, pending: trackPending(transport) }
    return { transport, stderrTail: () => '' }
  }
  let streamable: StreamableHTTPClientTransport | undefined
  const fetch = createCappedFetch(fetchOptions?.fetch, mergeObjects(limits, {
    onOverflow: (error: McpResponseTooLargeError, init: RequestInit | undefined, ok: boolean) => {
      options.onResponseLimit?.(error)
      if (streamable && (error.part === 'event' || !ok) && (init?.method ?? 'GET').toUpperCase() === 'POST')
        failRequests(streamable, requestIdsOf(init), error)
    },
  }))
  // The event stream is closed while the agent is idle, so it does not keep the program alive (event-stream-gate.ts).
  const gate = new EventStreamGate()
  const transport = new StreamableHTTPClientTransport(url, { requestInit, ...fetchOptions, fetch: gate.wrap(fetch) })
  streamable = transport
  gateEventStream(transport, gate)
  return { transport, stderrTail: () => '' }
}

/** The child's pid for a stdio transport that has started, else undefined. */
export function transportPid(transport: Transport): number | undefined {
  return transport instanceof StdioClientTransport ? transport.pid ?? undefined : undefined
}
