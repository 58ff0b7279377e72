import type { McpServerConfig } from '../../src/mcp'
import type { ProtectedMcpServer, ProtectedServerOptions, TestAuthServer } from './oauth-support'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_AUTHORIZATIONS_PER_REQUEST, McpAuthRequiredError } from '../../src/mcp'
import { browser, listening, startAuthServer, startProtectedMcpServer } from './oauth-support'
import { toolContext, trackConnections } from './support'

const LOOPBACK_WITH_PORT = /^http:\/\/127\.0\.0\.1:\d+\/callback$/
/** What a server lets through without a token once it authorizes per request. */
const HANDSHAKE = ['initialize', 'notifications/initialized']

let auth: TestAuthServer
let mcpServer: ProtectedMcpServer
const { cleanups, connect, closeAll } = trackConnections()

async function setup(options: ProtectedServerOptions) {
  auth = await startAuthServer()
  mcpServer = await startProtectedMcpServer(auth, options)
  cleanups.push(() => mcpServer.close(), () => auth.close())
}

afterEach(async () => {
  await closeAll()
})

function server(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'calc', transport: 'streamable-http', url: mcpServer.url, auth: 'oauth', ...extra }
}

/** Exactly one dynamic registration, naming the port-carrying loopback URI every authorization used. */
function expectOneRegistrationWithPort() {
  expect(auth.registrations).toHaveLength(1)
  const [redirectUri] = auth.registrations[0].redirect_uris as string[]
  expect(redirectUri).toMatch(LOOPBACK_WITH_PORT)
  for (const request of auth.authorizeRequests)
    expect(request.get('redirect_uri')).toBe(redirectUri)
  return redirectUri
}

describe('oauth per request: a server that lets initialize through', () => {
  it('authorizes when tools/list answers 401, with the scope the challenge names', async () => {
    await setup({ open: HANDSHAKE, scopes: { 'tools/list': 'tools:read', 'tools/call': 'tools:read' } })
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired })

    expect(mcp.servers[0]).toMatchObject({ status: 'connected', tools: ['add', 'write'] })
    const listRefusal = mcpServer.refusals.find(r => r.methods.includes('tools/list'))!
    expect(listRefusal.status).toBe(401)
    expect(listRefusal.challenge).toContain('scope="tools:read"')
    expect(user.seen).toHaveLength(1)
    expect(new URL(user.seen[0].authorizationUrl!).searchParams.get('scope')).toBe('tools:read')
    const redirectUri = expectOneRegistrationWithPort()
    expect(await listening(redirectUri)).toBe(false)
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 3 }, toolContext())).toBe('5')
  })

  it('does the same over the SSE transport, whose POST reports the 401 only in its message', async () => {
    await setup({ open: ['GET', ...HANDSHAKE], scopes: { 'tools/list': 'tools:read', 'tools/call': 'tools:read' } })
    const user = browser()
    const mcp = await connect([server({ transport: 'sse', url: mcpServer.sseUrl })], { onAuthRequired: user.onAuthRequired })
    expect(mcp.servers[0]).toMatchObject({ status: 'connected', tools: ['add', 'write'] })
    expect(user.seen).toHaveLength(1)
    expectOneRegistrationWithPort()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 4, b: 4 }, toolContext())).toBe('8')
  })

  it('headless: the 401 on tools/list fails the server with McpAuthRequiredError, not a bare Unauthorized', async () => {
    await setup({ open: HANDSHAKE, scopes: { 'tools/list': 'tools:read' } })
    const mcp = await connect([server()])
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error).toBeInstanceOf(McpAuthRequiredError)
    const url = new URL((mcp.servers[0].error as McpAuthRequiredError).authorizationUrl!)
    expect(url.searchParams.get('redirect_uri')).toMatch(LOOPBACK_WITH_PORT)
    expect(await listening(url.searchParams.get('redirect_uri')!)).toBe(false)
    expectOneRegistrationWithPort()
  })
})

describe('oauth per request: later requests', () => {
  it('a 401 on a tools/call mid-run asks the user once for concurrent calls, and pauses the tool timeout meanwhile', async () => {
    await setup({ open: [...HANDSHAKE, 'tools/list', 'GET', 'DELETE'], scopes: { 'tools/call': 'tools:call' } })
    const user = browser()
    // The user takes longer than the whole toolTimeout; that time is not the tool's.
    const slowUser = async (ctx: Parameters<typeof user.onAuthRequired>[0]) => {
      await new Promise(resolve => setTimeout(resolve, 2000))
      await user.onAuthRequired(ctx)
    }
    const mcp = await connect([server({ toolTimeout: 1200 })], { onAuthRequired: slowUser })
    expect(mcp.servers[0].status).toBe('connected')
    expect(user.seen).toEqual([])
    expect(auth.registrations).toEqual([])

    const results = await Promise.all([
      mcp.tools.mcp__calc__add.execute({ a: 1, b: 2 }, toolContext()),
      mcp.tools.mcp__calc__add.execute({ a: 3, b: 4 }, toolContext()),
    ])
    expect(results).toEqual(['3', '7'])
    expect(user.seen).toHaveLength(1)
    expect(new URL(user.seen[0].authorizationUrl!).searchParams.get('scope')).toBe('tools:call')
    expect(auth.counts.authorize).toBe(1)
    expectOneRegistrationWithPort()
  })

  it('a 403 insufficient_scope steps up with the new scope, never by refreshing, and reuses the registration', async () => {
    await setup({
      open: HANDSHAKE,
      scopes: { 'tools/list': 'tools:read', 'tools/call:add': 'tools:read', 'tools/call:write': 'tools:read tools:write' },
    })
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired })
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
    expect(user.seen).toHaveLength(1)

    expect(await mcp.tools.mcp__calc__write.execute({ note: 'hi' }, toolContext())).toBe('wrote hi')
    const stepUp = mcpServer.refusals.find(r => r.status === 403)!
    expect(stepUp.methods).toEqual(['tools/call:write'])
    expect(stepUp.challenge).toContain('error="insufficient_scope"')
    expect(user.seen).toHaveLength(2)
    expect(auth.authorizeRequests.map(q => q.get('scope'))).toEqual(['tools:read', 'tools:read tools:write'])
    expect(auth.counts.refresh).toBe(0)
    expectOneRegistrationWithPort()
    // The stepped-up token still carries the first scope.
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 2 }, toolContext())).toBe('4')
    expect(user.seen).toHaveLength(2)
  })

  it('a server that keeps refusing gets a bounded number of authorizations, then a typed error', async () => {
    await setup({ refuseAll: true })
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired })
    const info = mcp.servers[0]
    expect(info.status).toBe('failed')
    expect(info.error).toBeInstanceOf(McpAuthRequiredError)
    expect(info.error!.message).toMatch(/still refuses access .* after 2 authorizations/)
    expect(MAX_AUTHORIZATIONS_PER_REQUEST).toBe(2)
    // Each authorization the user approved; none of them helped.
    expect(auth.counts.authorizationCode).toBe(MAX_AUTHORIZATIONS_PER_REQUEST)
    expect(user.seen.filter(ctx => ctx.authorizationUrl)).toHaveLength(MAX_AUTHORIZATIONS_PER_REQUEST)
    expect(user.seen.at(-1)?.error).toBe(info.error)
    const redirectUri = expectOneRegistrationWithPort()
    expect(await listening(redirectUri)).toBe(false)
  })
})
