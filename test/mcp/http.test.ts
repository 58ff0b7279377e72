/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import type { TestHttpServer } from './support'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OperationTimeoutError } from '../../src/errors'
import { connectMcpServers, McpToolError } from '../../src/mcp'
import { PIXEL_PNG, startHttpMcpServer, startSilentServer, toolContext, trackConnections } from './support'

let server: TestHttpServer
const { cleanups, connect, closeAll } = trackConnections()

beforeEach(async () => {
  server = await startHttpMcpServer()
})

afterEach(async () => {
  await closeAll()
  await server.close()
})

const http = () => ({ name: 'calc', transport: 'streamable-http' as const, url: server.url })

describe('streamable-http', () => {
  it('lists tools under canonical names with wire aliases, and captures instructions', async () => {
    const mcp = await connect([http()])
    expect(Object.keys(mcp.tools)).toContain('mcp__calc__add')
    expect(mcp.tools.mcp__calc__add.spec).toMatchObject({ name: 'mcp__calc__add', description: 'Add two numbers', inputSchema: { type: 'object' } })
    expect(mcp.tools.mcp__calc__add.isConcurrencySafe).toBe(true)
    expect(mcp.aliases.mcp__calc__add).toBe('mcp_calc_add')
    expect(mcp.aliases.mcp__calc__do_thing).toBe('mcp_calc_do_thing')
    expect(mcp.origins.mcp__calc__do_thing).toEqual({ server: 'calc', tool: 'do.thing' })
    expect(mcp.servers).toEqual([expect.objectContaining({ name: 'calc', status: 'connected', instructions: 'Numbers are small.' })])
    expect(await mcp.tools.mcp__calc__do_thing.execute({}, toolContext())).toBe('done')
  })

  it('uses the double-underscore separator when asked', async () => {
    const mcp = await connect([http()], { toolNameSeparator: '__' })
    expect(mcp.aliases.mcp__calc__add).toBe('mcp__calc__add')
  })

  it('maps text, image, structured, embedded resources and error results', async () => {
    const mcp = await connect([http()])
    const ctx = toolContext()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 3 }, ctx)).toBe('5')
    expect(await mcp.tools.mcp__calc__structured.execute({}, ctx)).toBe('{"x":1}')
    expect(await mcp.tools.mcp__calc__image.execute({}, ctx)).toEqual([
      { type: 'text', text: 'a pixel' },
      { type: 'image', data: PIXEL_PNG, mediaType: 'image/png' },
    ])
    expect(await mcp.tools.mcp__calc__resources.execute({}, ctx)).toEqual([
      { type: 'text', text: 'inline text' },
      { type: 'document', data: 'JVBERi0=', encoding: 'base64', mediaType: 'application/pdf', name: 'file:///a.pdf' },
      { type: 'image', data: PIXEL_PNG, mediaType: 'image/png', name: 'file:///p.png' },
    ])
    await expect(mcp.tools.mcp__calc__fail.execute({}, ctx)).rejects.toThrow(McpToolError)
    await expect(mcp.tools.mcp__calc__fail.execute({}, ctx)).rejects.toThrow('boom')
    await expect(mcp.tools.mcp__calc__throws.execute({}, ctx)).rejects.toThrow(/kaput/)
  })

  it('bounds a call with toolTimeouts over toolTimeout and cancels it on the server', async () => {
    const mcp = await connect([{ ...http(), toolTimeout: 5000, toolTimeouts: { hang: 150 } }])
    const started = Date.now()
    const error = await Promise.resolve(mcp.tools.mcp__calc__hang.execute({}, toolContext())).catch((e: unknown) => e) as OperationTimeoutError
    expect(error).toBeInstanceOf(OperationTimeoutError)
    expect(error.timeoutMs).toBe(150)
    expect(Date.now() - started).toBeLessThan(2000)
    await expect.poll(() => server.cancelled).toBe(1)
  })

  it('honors the call signal', async () => {
    const mcp = await connect([http()])
    const controller = new AbortController()
    const pending = mcp.tools.mcp__calc__hang.execute({}, toolContext(controller.signal))
    setTimeout(() => controller.abort(new Error('user abort')), 50)
    await expect(pending).rejects.toThrow('user abort')
  })

  it('sends expanded headers', async () => {
    const mcp = await connect([{ ...http(), headers: { 'x-token': '${TEST_TOKEN}', 'x-team': '${TEAM:-core}' } }], { env: { TEST_TOKEN: 'secret' } })
    expect(mcp.servers[0].status).toBe('connected')
    expect(server.headers[0]).toMatchObject({ 'x-token': 'secret', 'x-team': 'core' })
  })

  it('applies filters, and rejects both lists before connecting', async () => {
    const mcp = await connect([{ ...http(), enabledTools: ['add', 'image', 'fail'], toolFilter: t => t.name !== 'fail' }])
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp__calc__add', 'mcp__calc__image'])
    const before = server.methods.length
    await expect(connectMcpServers([{ ...http(), enabledTools: ['add'], disabledTools: ['fail'] }])).rejects.toThrow(/mutually exclusive/)
    expect(server.methods.length).toBe(before)
  })

  it('skips tools/list with cachedTools', async () => {
    const mcp = await connect([{ ...http(), cachedTools: [{ name: 'add', description: 'cached add', inputSchema: { type: 'object' } }] }])
    expect(server.methods).toContain('initialize')
    expect(server.methods).not.toContain('tools/list')
    expect(mcp.tools.mcp__calc__add.spec.description).toBe('cached add')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
  })

  it('lazyConnect connects on the first call, and retries after a failed connect', async () => {
    const cachedTools = [{ name: 'add', inputSchema: { type: 'object' } }]
    const mcp = await connect([{ ...http(), lazyConnect: true, cachedTools }])
    expect(server.methods).toEqual([])
    expect(mcp.servers[0].status).toBe('lazy')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 2 }, toolContext())).toBe('3')
    expect(server.methods.filter(m => m === 'initialize')).toHaveLength(1)
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 3 }, toolContext())).toBe('4')
    expect(server.methods.filter(m => m === 'initialize')).toHaveLength(1)

    const down = await startSilentServer()
    await down.close()
    const errors: string[] = []
    const flaky = await connect([{ name: 'flaky', transport: 'streamable-http', url: down.url, lazyConnect: true, cachedTools }], { onServerError: name => errors.push(name) })
    await expect(flaky.tools.mcp__flaky__add.execute({ a: 1, b: 1 }, toolContext())).rejects.toThrow()
    expect(flaky.servers[0].status).toBe('lazy')
    expect(errors).toEqual(['flaky'])
    await expect(flaky.tools.mcp__flaky__add.execute({ a: 1, b: 1 }, toolContext())).rejects.toThrow()
    expect(errors).toEqual(['flaky', 'flaky'])
  })

  it('fails a server that never answers initialize after bootstrapTimeout, keeping the others', async () => {
    const silent = await startSilentServer()
    cleanups.push(silent.close)
    const errors: Error[] = []
    const started = Date.now()
    const mcp = await connect(
      [{ name: 'wedged', transport: 'streamable-http', url: silent.url, bootstrapTimeout: 200 }, http()],
      { onServerError: (_, e) => errors.push(e) },
    )
    expect(Date.now() - started).toBeLessThan(3000)
    expect(silent.requests).toBeGreaterThan(0)
    expect(mcp.servers.map(s => s.status)).toEqual(['failed', 'connected'])
    expect(mcp.servers[0].error).toBeInstanceOf(OperationTimeoutError)
    expect(errors).toHaveLength(1)
    expect(Object.keys(mcp.tools).every(name => name.startsWith('mcp__calc__'))).toBe(true)
  })

  it('rejects when the aggregate connectTimeoutMs fires', async () => {
    const silent = await startSilentServer()
    cleanups.push(silent.close)
    await expect(connectMcpServers(
      [{ name: 'wedged', transport: 'streamable-http', url: silent.url, bootstrapTimeout: 5000 }],
      { connectTimeoutMs: 150 },
    )).rejects.toBeInstanceOf(OperationTimeoutError)
  })

  it('close is idempotent and makes later calls fail', async () => {
    const mcp = await connect([http()])
    await Promise.all([mcp.close(), mcp.close()])
    expect(mcp.servers[0].status).toBe('closed')
    await expect(mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).rejects.toThrow(/closed/)
  })
})
