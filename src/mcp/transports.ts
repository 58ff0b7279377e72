import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ExecutionContext } from '../contexts/types'
import type { McpServerConfig } from './types'
import { StringDecoder } from 'node:string_decoder'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { mergeObjects } from '../core/merge-objects'
import { truncateTextTail } from '../text/truncate'
import { createContextTransport } from './context-transport'
import { EventStreamGate, gateEventStream } from './event-stream-gate'
import { pinnedTransportOptions } from './pinned-fetch'

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
    return { transport, stderrTail: () => tail }
  }
  const url = new URL(config.url!)
  const requestInit: RequestInit | undefined = config.headers ? { headers: { ...config.headers } } : undefined
  const pinned = pinnedTransportOptions(config)
  const fetchOptions = options.wrapFetch ? mergeObjects(pinned, { fetch: options.wrapFetch(pinned?.fetch) }) : pinned
  if (config.transport === 'sse')
    return { transport: new SSEClientTransport(url, { requestInit, ...fetchOptions }), stderrTail: () => '' }
  // The event stream is closed while the agent is idle, so it does not keep the program alive (event-stream-gate.ts).
  const gate = new EventStreamGate()
  const transport = new StreamableHTTPClientTransport(url, { requestInit, ...fetchOptions, fetch: gate.wrap(fetchOptions?.fetch) })
  gateEventStream(transport, gate)
  return { transport, stderrTail: () => '' }
}

/** The child's pid for a stdio transport that has started, else undefined. */
export function transportPid(transport: Transport): number | undefined {
  return transport instanceof StdioClientTransport ? transport.pid ?? undefined : undefined
}
