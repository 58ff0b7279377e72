import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer } from 'node:http'

/**
 * A hand-written MCP server on 127.0.0.1 whose tools answer with more bytes
 * than a client should read. It speaks streamable HTTP on `/mcp` (JSON
 * answers, or an event stream per request) and the legacy SSE transport
 * (`GET /sse`, messages POSTed to `/messages`). Every large answer is
 * written in chunks as the socket drains, so the server never holds it.
 *
 * Tools (`tools/call`, argument `bytes` where it applies):
 * - `small`: a normal one-line result.
 * - `big_json`: a valid JSON-RPC answer whose text is `bytes` long.
 * - `endless_event`: an event stream with one event that never ends.
 * - `many_events`: `count` progress-free events of `bytes` each (comments), then the answer.
 * - `lying_short`: `content-length: 100`, then a `bytes`-long answer.
 * - `lying_long`: `content-length` of 64 GiB, a small answer, then nothing.
 * - `big_error`: status 500 with a `bytes`-long plain-text body (streamable HTTP).
 */
export interface OversizedServer {
  origin: string
  /** Bytes written in answers to `tools/call`, counted as they go out. */
  sent: number
  /** Answers the client cut off before they were complete. */
  aborted: number
  close: () => Promise<void>
}

const CHUNK = Buffer.alloc(64 * 1024, 'a')

interface Rpc { id?: number | string, method?: string, params?: Record<string, any> }

const TOOLS = ['small', 'big_json', 'endless_event', 'many_events', 'lying_short', 'lying_long', 'big_error']
  .map(name => ({ name, inputSchema: { type: 'object' } }))

/** Resolves when `res` can take more, or is gone. */
async function drained(res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

async function readJson(req: IncomingMessage): Promise<Rpc> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Rpc
}

function answer(rpc: Rpc, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result })
}

/** The answer to everything but a hostile `tools/call`. */
function plainAnswer(rpc: Rpc): string {
  if (rpc.method === 'initialize')
    return answer(rpc, { protocolVersion: rpc.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'oversized', version: '1' } })
  if (rpc.method === 'tools/list')
    return answer(rpc, { tools: TOOLS })
  if (rpc.method === 'tools/call' && rpc.params?.name === 'small')
    return answer(rpc, { content: [{ type: 'text', text: 'small ok' }] })
  return JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'no' } })
}

export async function startOversizedServer(): Promise<OversizedServer> {
  const state: OversizedServer = { origin: '', sent: 0, aborted: 0, close: async () => {} }
  /** The one legacy SSE stream (the tests open one at a time). */
  let sseStream: ServerResponse | undefined

  /** Write `bytes` of `a` (and then `tail`) to `res` as the socket drains; stops when the client goes. */
  async function stream(res: ServerResponse, bytes: number, tail = ''): Promise<boolean> {
    for (let left = bytes; left > 0;) {
      if (res.destroyed || res.writableEnded) {
        state.aborted++
        return false
      }
      const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)
      left -= chunk.length
      state.sent += chunk.length
      if (!res.write(chunk))
        await drained(res)
    }
    if (res.destroyed) {
      state.aborted++
      return false
    }
    res.write(tail)
    return true
  }

  /** What a hostile tool writes to `res`; `sse` means an event stream already open (the legacy transport). */
  async function hostile(rpc: Rpc, res: ServerResponse, sse: boolean): Promise<void> {
    const name = rpc.params?.name as string
    const args = (rpc.params?.arguments ?? {}) as { bytes?: number, count?: number }
    const bytes = args.bytes ?? 0
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{"content":[{"type":"text","text":"`
    const tail = `"}]}}`
    if (!sse && (name === 'endless_event' || name === 'many_events'))
      res.writeHead(200, { 'content-type': 'text/event-stream' })
    if (name === 'big_json') {
      if (!sse)
        res.writeHead(200, { 'content-type': 'application/json' })
      res.write(sse ? `data: ${head}` : head)
      if (!await stream(res, bytes, tail))
        return
      if (sse)
        res.write('\n\n')
      else
        res.end()
      return
    }
    if (name === 'endless_event') {
      res.write(`data: ${head}`)
      await stream(res, Number.MAX_SAFE_INTEGER)
      return
    }
    if (name === 'many_events') {
      for (let i = 0; i < (args.count ?? 0); i++) {
        res.write(':')
        if (!await stream(res, bytes, '\n\n'))
          return
      }
      res.write(`data: ${answer(rpc, { content: [{ type: 'text', text: 'after many events' }] })}\n\n`)
      if (!sse)
        res.end()
      return
    }
    if (name === 'lying_short') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write(head)
      if (await stream(res, bytes, tail))
        res.end()
      return
    }
    if (name === 'big_error' && !sse) {
      res.writeHead(500, { 'content-type': 'text/plain' })
      if (await stream(res, bytes))
        res.end()
      return
    }
    if (name === 'lying_long') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 ** 3) })
      res.write(answer(rpc, { content: [{ type: 'text', text: 'short' }] }))
      // Then nothing: the rest of the declared length never comes.
    }
  }

  async function handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET') {
      res.writeHead(405).end()
      return
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end()
      return
    }
    const rpc = await readJson(req)
    if (rpc.id === undefined) {
      res.writeHead(202).end()
      return
    }
    if (rpc.method === 'tools/call' && rpc.params?.name !== 'small') {
      await hostile(rpc, res, false)
      return
    }
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' }).end(plainAnswer(rpc))
  }

  async function handleLegacy(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/sse' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('event: endpoint\ndata: /messages?sessionId=1\n\n')
      sseStream = res
      return
    }
    const rpc = await readJson(req)
    res.writeHead(202).end()
    const events = sseStream
    if (rpc.id === undefined || !events)
      return
    if (rpc.method === 'tools/call' && rpc.params?.name !== 'small')
      await hostile(rpc, events, true)
    else
      events.write(`data: ${plainAnswer(rpc)}\n\n`)
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', state.origin)
    const work = url.pathname === '/mcp' ? handleStreamable(req, res) : handleLegacy(req, res, url)
    work.catch(() => res.destroy())
  })
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  if (!address || typeof address === 'string')
    throw new Error('no port')
  state.origin = `http://127.0.0.1:${address.port}`
  state.close = async () => {
    http.closeAllConnections()
    await new Promise<void>(resolve => http.close(() => resolve()))
  }
  return state
}
