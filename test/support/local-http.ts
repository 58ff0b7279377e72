/**
 * A real `node:http` server on 127.0.0.1 for the web-tool tests, and a bare
 * tool context to call a tool's `execute` directly. Nothing here reaches
 * beyond the loopback interface.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ToolContext, ToolDef } from '../../src/tools/types'
import { createServer } from 'node:http'

export interface LocalServer {
  /** `http://127.0.0.1:<port><path>` */
  url: (path?: string) => string
  port: number
  /** Method, path and body of every request, in arrival order. */
  requests: { method: string, url: string, headers: IncomingMessage['headers'], body: string }[]
  close: () => Promise<void>
}

export type LocalHandler = (request: IncomingMessage & { body: string }, response: ServerResponse) => void

export async function startLocalServer(handler: LocalHandler): Promise<LocalServer> {
  const requests: LocalServer['requests'] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      handler(Object.assign(request, { body }), response)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/**
 * A tool context for calling a web, interaction or todo tool directly. Those
 * tools read only `signal`, `behavior` and `state`; the run-side seams other
 * tools need (execution context, subagents) are left out on purpose.
 */
export function bareToolContext(options: { behavior?: Record<string, unknown>, signal?: AbortSignal, name?: string, state?: ToolContext['state'] } = {}): ToolContext {
  const ctx: Partial<ToolContext> = {
    callId: 'call-1',
    turnId: 'turn-1',
    runId: 'run-1',
    name: options.name ?? 'tool',
    displayName: options.name ?? 'tool',
    signal: options.signal ?? new AbortController().signal,
    depth: 0,
    behavior: options.behavior ?? {},
    state: options.state,
    reportOutcome: () => {},
    progress: () => {},
  }
  return ctx as ToolContext
}

/** Validate like the loop does, then execute; a validation failure throws. */
export async function callTool(def: ToolDef, input: Record<string, unknown>, ctx: ToolContext = bareToolContext({ name: def.spec.name })): Promise<string> {
  const checked = def.validate ? def.validate(input) : { ok: true as const, value: input }
  if (!checked.ok)
    throw new Error(checked.error)
  return String(await def.execute(checked.value, ctx))
}
