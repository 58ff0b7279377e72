import type { McpServerConfig } from '../../src/mcp'
import type { McpHttpApp } from './transport-support'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OperationTimeoutError } from '../../src/errors'
import { DEFAULT_CLOSE_TIMEOUT_MS } from '../../src/mcp'
import { startSilentServer, toolContext, trackConnections } from './support'
import { startMcpHttpApp } from './transport-support'

type HttpKind = 'sse' | 'streamable-http'

let app: McpHttpApp
const { cleanups, connect, closeAll } = trackConnections()

beforeEach(async () => {
  app = await startMcpHttpApp()
})

afterEach(async () => {
  await closeAll()
  await app.close()
})

function server(kind: HttpKind, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'remote', transport: kind, url: `${app.origin}${kind === 'sse' ? '/sse' : '/mcp'}`, ...extra }
}

describe('sse transport', () => {
  it('connects, lists, calls a tool, sends the headers, and closes the event stream', async () => {
    const mcp = await connect([server('sse', { headers: { 'x-api-key': 'k-123' } })])
    const [info] = mcp.servers
    expect(info.status).toBe('connected')
    expect(info.tools.sort()).toEqual(['echo', 'hang'])
    expect(await mcp.tools.mcp__remote__echo.execute({ message: 'hi' }, toolContext())).toBe('echo: hi')

    // The event stream (GET) and every message (POST) carry the configured header.
    const stream = app.hitsOn('/sse')
    const posts = app.hitsOn('/messages')
    expect(stream).toHaveLength(1)
    expect(posts.length).toBeGreaterThanOrEqual(3)
    for (const hit of [...stream, ...posts])
      expect(hit.headers['x-api-key']).toBe('k-123')
    expect(app.sseClosed).toBe(0)

    await mcp.close()
    expect(info.status).toBe('closed')
    await expect.poll(() => app.sseClosed).toBe(1)
    await expect(mcp.tools.mcp__remote__echo.execute({ message: 'again' }, toolContext())).rejects.toThrow(/closed/)
  })
})

describe.each<HttpKind>(['sse', 'streamable-http'])('%s timeouts', (kind) => {
  it('fails a server that never answers after bootstrapTimeout, while another still connects', async () => {
    const silent = await startSilentServer()
    cleanups.push(silent.close)
    const errors: string[] = []
    const mcp = await connect(
      [{ name: 'wedged', transport: kind, url: silent.url, bootstrapTimeout: 300 }, server(kind)],
      { onServerError: name => errors.push(name) },
    )
    expect(silent.requests).toBeGreaterThan(0)
    expect(mcp.servers.map(s => s.status)).toEqual(['failed', 'connected'])
    expect(mcp.servers[0].error).toBeInstanceOf(OperationTimeoutError)
    expect((mcp.servers[0].error as OperationTimeoutError).timeoutMs).toBe(300)
    expect(errors).toEqual(['wedged'])
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp__remote__echo', 'mcp__remote__hang'])
  })

  it('bounds a hanging tools/call with toolTimeout, and toolTimeouts overrides it per tool', async () => {
    const mcp = await connect([
      server(kind, { name: 'plain', toolTimeout: 300 }),
      server(kind, { name: 'override', toolTimeout: 60_000, toolTimeouts: { hang: 250 } }),
    ])
    expect(mcp.servers.map(s => s.status)).toEqual(['connected', 'connected'])
    // The server is alive: a quick tool still answers.
    expect(await mcp.tools.mcp__plain__echo.execute({ message: 'up' }, toolContext())).toBe('echo: up')

    const plain = await Promise.resolve(mcp.tools.mcp__plain__hang.execute({}, toolContext())).catch((e: unknown) => e)
    expect(plain).toBeInstanceOf(OperationTimeoutError)
    expect((plain as OperationTimeoutError).timeoutMs).toBe(300)

    const override = await Promise.resolve(mcp.tools.mcp__override__hang.execute({}, toolContext())).catch((e: unknown) => e)
    expect(override).toBeInstanceOf(OperationTimeoutError)
    expect((override as OperationTimeoutError).timeoutMs).toBe(250)
    // Both calls were cancelled on the server, not just abandoned.
    await expect.poll(() => app.cancelled).toBe(2)
  })
})

describe('closeTimeout', () => {
  it('bounds a close whose session termination never gets an answer', async () => {
    const mcp = await connect([server('streamable-http', { closeTimeout: 300 })])
    expect(mcp.servers[0].status).toBe('connected')
    app.hang = req => req.method === 'DELETE'
    const started = Date.now()
    // The DELETE is never answered, so only a bound ends the close. It must be this server's 300 ms
    // and not the 5 s default: the close has to settle well before the default could have fired.
    const outcome = await Promise.race([
      mcp.close().then(() => 'closed'),
      sleep(DEFAULT_CLOSE_TIMEOUT_MS - 1000).then(() => 'still closing'),
    ])
    expect(outcome).toBe('closed')
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(app.hits.filter(hit => hit.method === 'DELETE')).toHaveLength(1)
    expect(mcp.servers[0].status).toBe('closed')
  })
})
