import type { IncomingHttpHeaders } from 'node:http'
import type { McpConnection, McpServerConfig } from '../../src/mcp'
import type { McpHttpApp } from './transport-support'
import { createServer } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { connectMcpServers, createPinnedFetch } from '../../src/mcp'
import { toolContext } from './support'
import { startMcpHttpApp } from './transport-support'

type HttpKind = 'sse' | 'streamable-http'

const SECRET = { 'x-api-key': 'secret-key' }

/** Two servers on different ports of 127.0.0.1: two origins. `home` is the configured one. */
let home: McpHttpApp
let away: McpHttpApp
const open: McpConnection[] = []
const cleanups: Array<() => Promise<void>> = []

beforeEach(async () => {
  home = await startMcpHttpApp()
  away = await startMcpHttpApp()
})

afterEach(async () => {
  await Promise.all(open.splice(0).map(c => c.close()))
  await Promise.all(cleanups.splice(0).map(fn => fn()))
  await Promise.all([home.close(), away.close()])
})

async function connect(configs: McpServerConfig[]) {
  const connection = await connectMcpServers(configs)
  open.push(connection)
  return connection
}

/** The MCP endpoint path of a transport kind (SSE messages are then POSTed to /messages). */
const endpoint = (kind: HttpKind) => kind === 'sse' ? '/sse' : '/mcp'
const keyOf = (hit: { headers: IncomingHttpHeaders }) => hit.headers['x-api-key']

describe.each<HttpKind>(['streamable-http', 'sse'])('pinHeaderOrigin over %s', (kind) => {
  it('keeps the header across same-origin hops, up to the hop that leaves', async () => {
    home.redirects.set('/old', '/older')
    home.redirects.set('/older', `${away.origin}${endpoint(kind)}`)
    // SSE posts its messages to the configured origin; send those on to the other one too.
    home.redirectAllTo = away.origin
    const mcp = await connect([{ name: 'pinned', transport: kind, url: `${home.origin}/old`, headers: SECRET, pinHeaderOrigin: true }])
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__pinned__echo.execute({ message: 'hi' }, toolContext())).toBe('echo: hi')
    const older = home.hitsOn('/older')
    const served = away.hitsOn(endpoint(kind))
    expect(older.length).toBeGreaterThan(0)
    expect(served.length).toBeGreaterThanOrEqual(older.length)
    expect(older.map(keyOf)).toEqual(older.map(() => 'secret-key'))
    expect(served.map(keyOf)).toEqual(served.map(() => undefined))
  })

  it('keeps the header on a redirect that stays on the origin', async () => {
    home.redirects.set('/old', endpoint(kind))
    const mcp = await connect([{ name: 'pinned', transport: kind, url: `${home.origin}/old`, headers: SECRET, pinHeaderOrigin: true }])
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__pinned__echo.execute({ message: 'hi' }, toolContext())).toBe('echo: hi')
    const served = home.hitsOn(endpoint(kind))
    expect(served.length).toBeGreaterThan(0)
    expect(served.map(keyOf)).toEqual(served.map(() => 'secret-key'))
  })

  it('drops the header on the hop that leaves the origin', async () => {
    home.redirectAllTo = away.origin
    const mcp = await connect([{ name: 'pinned', transport: kind, url: `${home.origin}${endpoint(kind)}`, headers: SECRET, pinHeaderOrigin: true }])
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__pinned__echo.execute({ message: 'hi' }, toolContext())).toBe('echo: hi')
    // The configured origin got the header; the other origin served everything without it.
    expect(home.hits.length).toBeGreaterThan(0)
    expect(home.hits.every(hit => keyOf(hit) === 'secret-key')).toBe(true)
    expect(away.hits.length).toBeGreaterThanOrEqual(home.hits.length)
    expect(away.hits.map(keyOf)).toEqual(away.hits.map(() => undefined))
  })

  it('keeps the header dropped when a later hop comes back to the origin', async () => {
    home.redirects.set('/start', `${away.origin}/bounce`)
    away.redirects.set('/bounce', `${home.origin}${endpoint(kind)}`)
    const mcp = await connect([{ name: 'pinned', transport: kind, url: `${home.origin}/start`, headers: SECRET, pinHeaderOrigin: true }])
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__pinned__echo.execute({ message: 'hi' }, toolContext())).toBe('echo: hi')
    const start = home.hitsOn('/start')
    const bounce = away.hitsOn('/bounce')
    const back = home.hitsOn(endpoint(kind))
    expect(start.length).toBeGreaterThan(0)
    expect(bounce).toHaveLength(start.length)
    expect(back).toHaveLength(start.length)
    expect(start.map(keyOf)).toEqual(start.map(() => 'secret-key'))
    expect(bounce.map(keyOf)).toEqual(bounce.map(() => undefined))
    expect(back.map(keyOf)).toEqual(back.map(() => undefined))
  })

  it('compares header names case-insensitively', async () => {
    home.redirectAllTo = away.origin
    const mcp = await connect([{ name: 'pinned', transport: kind, url: `${home.origin}${endpoint(kind)}`, headers: { 'X-Api-KEY': 'secret-key' }, pinHeaderOrigin: true }])
    expect(mcp.servers[0].status).toBe('connected')
    expect(home.hits.every(hit => keyOf(hit) === 'secret-key')).toBe(true)
    expect(away.hits.length).toBeGreaterThan(0)
    expect(away.hits.some(hit => keyOf(hit) !== undefined)).toBe(false)
  })

  it('without pinHeaderOrigin the header is not protected by zidane', async () => {
    home.redirectAllTo = away.origin
    // The SDK's default refuses to follow a redirect to another origin: the server fails instead.
    const mcp = await connect([{ name: 'plain', transport: kind, url: `${home.origin}${endpoint(kind)}`, headers: SECRET, bootstrapTimeout: 5000 }])
    expect(mcp.servers[0].status).toBe('failed')
    expect(away.hits).toHaveLength(0)

    // When redirects are left to fetch (the mode pinning runs the SDK in), fetch forwards a
    // custom header to the other origin: what pinHeaderOrigin's own fetch is there to stop.
    const url = new URL(`${home.origin}${endpoint(kind)}`)
    const options = { requestInit: { headers: SECRET }, redirectPolicy: 'follow' as const }
    const transport = kind === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options)
    const client = new Client({ name: 'control', version: '1.0.0' })
    cleanups.push(() => client.close())
    await client.connect(transport)
    expect(away.hits.length).toBeGreaterThan(0)
    expect(away.hits.every(hit => keyOf(hit) === 'secret-key')).toBe(true)
  })
})

describe('createPinnedFetch', () => {
  interface Seen { method: string, path: string, headers: IncomingHttpHeaders, body: string }
  /** A bare HTTP server answering by path: `/to/<status>/<path>` redirects, anything else is 200 with what was received. */
  async function startEcho() {
    const seen: Seen[] = []
    const http = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x')
        seen.push({ method: req.method!, path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString() })
        const redirect = /^\/to\/(\d+)(\/.*)$/.exec(url.pathname)
        if (redirect) {
          res.writeHead(Number(redirect[1]), { location: url.searchParams.get('target') ?? redirect[2] }).end()
          return
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${url.pathname}`)
      })
    })
    await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
    const { port } = http.address() as { port: number }
    cleanups.push(async () => {
      http.closeAllConnections()
      await new Promise<void>(resolve => http.close(() => resolve()))
    })
    return { origin: `http://127.0.0.1:${port}`, seen }
  }

  it('forwards the header cross-origin with plain fetch, and drops it (and nothing else) when pinned', async () => {
    const a = await startEcho()
    const b = await startEcho()
    const target = encodeURIComponent(`${b.origin}/landing`)
    const init = { headers: { 'x-api-key': 'secret-key', 'x-trace': 't1' } }

    const plain = await fetch(`${a.origin}/to/307/?target=${target}`, init)
    expect(await plain.text()).toBe('GET /landing')
    expect(b.seen[0].headers['x-api-key']).toBe('secret-key')

    const pinned = createPinnedFetch({ url: `${a.origin}/mcp`, headerNames: ['X-API-Key'] })
    const response = await pinned(`${a.origin}/to/307/?target=${target}`, init)
    expect(await response.text()).toBe('GET /landing')
    expect(a.seen.at(-1)!.headers['x-api-key']).toBe('secret-key')
    expect(b.seen[1].headers['x-api-key']).toBeUndefined()
    expect(b.seen[1].headers['x-trace']).toBe('t1')
  })

  it('applies the method and body rules of each redirect status', async () => {
    const a = await startEcho()
    const pinned = createPinnedFetch({ url: a.origin, headerNames: [] })
    const post = (status: number) => pinned(`${a.origin}/to/${status}/landing`, { method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } })
    for (const status of [301, 302, 303]) {
      expect(await (await post(status)).text()).toBe('GET /landing')
      const landing = a.seen.at(-1)!
      expect(landing.body).toBe('')
      expect(landing.headers['content-type']).toBeUndefined()
    }
    for (const status of [307, 308]) {
      expect(await (await post(status)).text()).toBe('POST /landing')
      const landing = a.seen.at(-1)!
      expect(landing.body).toBe('{"x":1}')
      expect(landing.headers['content-type']).toBe('application/json')
    }
    // A DELETE keeps its method through a 302 (only POST becomes GET there), but not through a 303.
    expect(await (await pinned(`${a.origin}/to/302/landing`, { method: 'DELETE' })).text()).toBe('DELETE /landing')
    expect(await (await pinned(`${a.origin}/to/303/landing`, { method: 'DELETE' })).text()).toBe('GET /landing')
  })

  it('gives up after maxRedirects hops', async () => {
    const a = await startEcho()
    const pinned = createPinnedFetch({ url: a.origin, headerNames: [], maxRedirects: 3 })
    await expect(pinned(`${a.origin}/to/302/to/302/to/302/landing`)).resolves.toHaveProperty('status', 200)
    const before = a.seen.length
    await expect(pinned(`${a.origin}/to/302/to/302/to/302/to/302/landing`)).rejects.toThrow(/Too many redirects/)
    expect(a.seen.length - before).toBe(4)
  })

  it('passes manual redirects through unfollowed, still without the header off-origin', async () => {
    const a = await startEcho()
    const b = await startEcho()
    const pinned = createPinnedFetch({ url: a.origin, headerNames: ['x-api-key'] })
    const response = await pinned(`${a.origin}/to/307/next`, { redirect: 'manual', headers: SECRET })
    expect(response.status).toBe(307)
    expect(a.seen).toHaveLength(1)
    await pinned(`${b.origin}/elsewhere`, { headers: SECRET })
    expect(b.seen[0].headers['x-api-key']).toBeUndefined()
  })
})
