import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { McpConnection } from '../../src/mcp'
import type { ToolContext } from '../../src/tools/types'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import * as z from 'zod'
import { connectMcpServers } from '../../src/mcp'

const require = createRequire(import.meta.url)

export const EVERYTHING_ENTRY = require.resolve('@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM_ENTRY = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')

/** A 1x1 PNG, enough for an image block. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** The least a tool's `execute` reads: the abort signal. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal } as ToolContext
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  }
  catch {
    return false
  }
}

export interface TestHttpServer {
  url: string
  /** JSON-RPC methods received, in order. */
  methods: string[]
  /** Request headers of every POST. */
  headers: IncomingMessage['headers'][]
  /** Calls of the `hang` tool that saw their cancellation. */
  cancelled: number
  /** `GET` requests: event streams the client opened. */
  eventStreams: number
  close: () => Promise<void>
}

function buildMcpServer(state: TestHttpServer): McpServer {
  const server = new McpServer({ name: 'inproc', version: '1.0.0' }, { instructions: '  Numbers are small.  ' })
  server.registerTool('add', {
    description: 'Add two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
    annotations: { readOnlyHint: true },
  }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }))
  server.registerTool('structured', {
    description: 'Structured only',
    outputSchema: { x: z.number() },
  }, async () => ({ content: [], structuredContent: { x: 1 } }))
  server.registerTool('image', { description: 'An image with a caption' }, async () => ({
    content: [{ type: 'text', text: 'a pixel' }, { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }],
  }))
  server.registerTool('fail', { description: 'Reports an error' }, async () => ({
    content: [{ type: 'text', text: 'boom' }],
    isError: true,
  }))
  server.registerTool('throws', { description: 'Handler throws' }, async () => {
    throw new Error('kaput')
  })
  server.registerTool('resources', { description: 'Embedded resources' }, async () => ({
    content: [
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inline text' } },
      { type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } },
      { type: 'resource', resource: { uri: 'file:///p.png', mimeType: 'image/png', blob: PIXEL_PNG } },
    ],
  }))
  server.registerTool('hang', { description: 'Never answers until cancelled' }, async (extra) => {
    await new Promise<void>(resolve => extra.signal.addEventListener('abort', () => resolve()))
    state.cancelled++
    return { content: [{ type: 'text', text: 'late' }] }
  })
  server.registerTool('do.thing', { description: 'Needs a sanitized name' }, async () => ({ content: [{ type: 'text', text: 'done' }] }))
  return server
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

async function listen(server: Server, path: string): Promise<string> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string')
    throw new Error('no port')
  return `http://127.0.0.1:${address.port}${path}`
}

async function shutdown(server: Server) {
  server.closeAllConnections()
  await new Promise<void>(resolve => server.close(() => resolve()))
}

/** A stateful streamable-HTTP MCP server on 127.0.0.1 that records what it receives. */
export async function startHttpMcpServer(): Promise<TestHttpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport, server: McpServer }>()
  const state: TestHttpServer = { url: '', methods: [], headers: [], cancelled: 0, eventStreams: 0, close: async () => {} }
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined
      if (req.method === 'GET')
        state.eventStreams++
      if (req.method === 'POST') {
        state.headers.push(req.headers)
        for (const message of Array.isArray(body) ? body : [body])
          state.methods.push(String((message as { method?: string })?.method))
      }
      const entry = await streamableSession(sessions, req, () => buildMcpServer(state))
      await entry.transport.handleRequest(req, res, body)
    })().catch((error) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })
  state.url = await listen(http, '/mcp')
  state.close = async () => {
    await Promise.all(Array.from(sessions.values(), s => s.server.close().catch(() => {})))
    await shutdown(http)
  }
  return state
}

/** An HTTP endpoint that accepts requests and never answers them (a wedged server). */
export async function startSilentServer(): Promise<{ url: string, requests: number, close: () => Promise<void> }> {
  const state = { url: '', requests: 0, close: async () => {} }
  const http = createServer(() => {
    state.requests++
  })
  state.url = await listen(http, '/mcp')
  state.close = () => shutdown(http)
  return state
}

/**
 * The connections and other resources a test opens, closed by `closeAll()`
 * after each test: connections first, then cleanups in reverse order.
 */
export function trackConnections() {
  const open: McpConnection[] = []
  const cleanups: Array<() => Promise<void>> = []
  return {
    cleanups,
    async connect(...args: Parameters<typeof connectMcpServers>): Promise<McpConnection> {
      const connection = await connectMcpServers(...args)
      open.push(connection)
      return connection
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map(c => c.close()))
      for (const fn of cleanups.splice(0).reverse())
        await fn()
    },
  }
}

/** A streamable-HTTP session of an in-test server: its transport and its own `McpServer`. */
export interface StreamableSession {
  transport: StreamableHTTPServerTransport
  server: McpServer
}

/** The session a request belongs to; a request without a known session id starts a new one. */
export async function streamableSession(sessions: Map<string, StreamableSession>, req: IncomingMessage, build: () => McpServer): Promise<StreamableSession> {
  const id = req.headers['mcp-session-id']
  const known = typeof id === 'string' ? sessions.get(id) : undefined
  if (known)
    return known
  const entry: StreamableSession = {
    transport: new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: sid => void sessions.set(sid, entry),
    }),
    server: build(),
  }
  await entry.server.connect(entry.transport)
  return entry
}
