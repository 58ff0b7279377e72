import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import * as z from 'zod'
import { streamableSession } from './support'

/** One request as the server saw it. */
export interface Hit {
  method: string
  path: string
  headers: IncomingHttpHeaders
}

/**
 * An HTTP server on 127.0.0.1 that speaks MCP two ways: streamable HTTP on
 * `/mcp`, and the legacy SSE transport (`GET /sse` opens the stream, messages
 * are POSTed to `/messages`). Anything can be redirected first, and requests
 * can be left unanswered, to play a misbehaving server.
 */
export interface McpHttpApp {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** Every request received, in order (redirected and unanswered ones too). */
  hits: Hit[]
  /** Calls of the `hang` tool that saw their cancellation. */
  cancelled: number
  /** SSE streams the client closed. */
  sseClosed: number
  /** Requests to the path given a 307 to the location (an absolute URL or a path). */
  redirects: Map<string, string>
  /** When set, every request not in `redirects` is redirected (307) to the same path and query there. */
  redirectAllTo?: string
  /** Requests this matches are never answered. */
  hang?: (req: IncomingMessage) => boolean
  /** Hits on one path. */
  hitsOn: (path: string) => Hit[]
  close: () => Promise<void>
}

function buildServer(app: McpHttpApp): McpServer {
  const server = new McpServer({ name: 'transports', version: '1.0.0' })
  server.registerTool('echo', {
    description: 'Echo the message back',
    inputSchema: { message: z.string() },
  }, async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }))
  server.registerTool('hang', { description: 'Never answers until cancelled' }, async (extra) => {
    await new Promise<void>(resolve => extra.signal.addEventListener('abort', () => resolve()))
    app.cancelled++
    return { content: [{ type: 'text', text: 'late' }] }
  })
  return server
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

export async function startMcpHttpApp(): Promise<McpHttpApp> {
  const streamable = new Map<string, { transport: StreamableHTTPServerTransport, server: McpServer }>()
  const sse = new Map<string, { transport: SSEServerTransport, server: McpServer }>()
  const app: McpHttpApp = {
    origin: '',
    hits: [],
    cancelled: 0,
    sseClosed: 0,
    redirects: new Map(),
    hitsOn: path => app.hits.filter(hit => hit.path === path),
    close: async () => {},
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', app.origin)
    app.hits.push({ method: req.method ?? '', path: url.pathname, headers: req.headers })
    const target = app.redirects.get(url.pathname) ?? (app.redirectAllTo ? new URL(url.pathname + url.search, app.redirectAllTo).href : undefined)
    if (target !== undefined) {
      // Drain the body first, so a 307 of a POST does not reset the connection under the client.
      await readBody(req).catch(() => undefined)
      res.writeHead(307, { location: target }).end()
      return
    }
    if (app.hang?.(req))
      return
    if (url.pathname === '/mcp') {
      const body = req.method === 'POST' ? await readBody(req) : undefined
      const entry = await streamableSession(streamable, req, () => buildServer(app))
      await entry.transport.handleRequest(req, res, body)
      return
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res)
      const entry = { transport, server: buildServer(app) }
      sse.set(transport.sessionId, entry)
      res.on('close', () => {
        app.sseClosed++
        sse.delete(transport.sessionId)
      })
      await entry.server.connect(transport)
      return
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const entry = sse.get(url.searchParams.get('sessionId') ?? '')
      if (!entry) {
        res.writeHead(404).end('unknown session')
        return
      }
      await entry.transport.handlePostMessage(req, res, await readBody(req))
      return
    }
    res.writeHead(404).end()
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent)
        res.writeHead(500)
      res.end(String(error))
    })
  })
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  if (!address || typeof address === 'string')
    throw new Error('no port')
  app.origin = `http://127.0.0.1:${address.port}`
  app.close = async () => {
    await Promise.all([...streamable.values(), ...sse.values()].map(entry => entry.server.close().catch(() => {})))
    http.closeAllConnections()
    await new Promise<void>(resolve => http.close(() => resolve()))
  }
  return app
}
