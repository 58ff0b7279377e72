/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import type { McpCredentialStore, McpServerConfig } from '../../src/mcp'
import type { ProtectedMcpServer, TestAuthServer } from './oauth-support'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  connectMcpServers,
  createFileMcpCredentialStore,
  createMemoryMcpCredentialStore,
  McpAuthRequiredError,
  mcpCredentialKey,
  normalizeServerConfig,
} from '../../src/mcp'
import { browser, freePort, listening, startAuthServer, startProtectedMcpServer } from './oauth-support'
import { toolContext, trackConnections } from './support'

let auth: TestAuthServer
let mcpServer: ProtectedMcpServer
const { cleanups, connect, closeAll } = trackConnections()

async function setup(options: Parameters<typeof startAuthServer>[0] = {}) {
  auth = await startAuthServer(options)
  mcpServer = await startProtectedMcpServer(auth)
  cleanups.push(() => mcpServer.close(), () => auth.close())
}

afterEach(async () => {
  await closeAll()
})

function server(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'calc', transport: 'streamable-http', url: mcpServer.url, auth: 'oauth', ...extra }
}

describe('oauth: dynamic registration', () => {
  beforeEach(() => setup())

  it('discovers, registers, authorizes with PKCE, and the tools work', async () => {
    const user = browser()
    const store = createMemoryMcpCredentialStore()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: store })

    expect(mcp.servers[0]).toMatchObject({ name: 'calc', status: 'connected' })
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 3 }, toolContext())).toBe('5')
    expect(auth.counts).toMatchObject({ register: 1, authorize: 1, authorizationCode: 1 })
    expect(user.seen).toHaveLength(1)
    expect(user.seen[0]).toMatchObject({ server: 'calc', url: mcpServer.url })
    expect(user.seen[0].authorizationUrl).toMatch(new RegExp(`^${auth.url}/authorize\\?`))
    expect(user.pages[0]).toContain('Authorization complete')

    // The registration named the loopback redirect, and the authorize step used it.
    const redirectUri = auth.authorizeRequests[0].get('redirect_uri')!
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect(auth.registrations[0].redirect_uris).toEqual([redirectUri])
    // The listener is gone once the connection is up.
    expect(await listening(redirectUri)).toBe(false)

    const stored = await store.load(mcpCredentialKey({ name: 'calc', url: mcpServer.url }))
    expect(stored?.tokens?.access_token).toBeTruthy()
    expect(stored?.tokens?.refresh_token).toBeTruthy()
    expect(stored?.tokens?.expires_at).toBeGreaterThan(Date.now())
    expect(stored?.client?.client_id).toMatch(/^dyn-/)
    expect(stored?.codeVerifier).toBeUndefined()
  })

  it('runs the same flow over the SSE transport', async () => {
    const user = browser()
    const store = createMemoryMcpCredentialStore()
    const mcp = await connect([server({ transport: 'sse', url: mcpServer.sseUrl })], { onAuthRequired: user.onAuthRequired, credentialStore: store })
    expect(mcp.servers[0]).toMatchObject({ status: 'connected' })
    expect(await mcp.tools.mcp__calc__add.execute({ a: 4, b: 5 }, toolContext())).toBe('9')
    expect(user.seen).toHaveLength(1)
    expect(auth.counts).toMatchObject({ register: 1, authorize: 1, authorizationCode: 1 })
    expect(mcpServer.rejected).toBeGreaterThan(0)
    expect((await store.load(mcpCredentialKey({ name: 'calc', url: mcpServer.sseUrl })))?.tokens?.access_token).toBeTruthy()
  })

  it('reuses stored tokens: a second connection neither registers nor authorizes', async () => {
    const store = createMemoryMcpCredentialStore()
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: store })
    const before = { ...auth.counts }

    const user = browser()
    const again = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: store })
    expect(again.servers[0].status).toBe('connected')
    expect(await again.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
    expect(user.seen).toEqual([])
    expect(auth.counts.register).toBe(before.register)
    expect(auth.counts.authorize).toBe(before.authorize)

    // A headless host runs on the tokens an interactive one saved.
    const headless = await connect([server()], { credentialStore: store })
    expect(headless.servers[0].status).toBe('connected')
  })

  it('keeps tokens per connectMcpServers call by default', async () => {
    await connect([server()], { onAuthRequired: browser().onAuthRequired })
    await connect([server()], { onAuthRequired: browser().onAuthRequired })
    expect(auth.counts.authorize).toBe(2)
  })

  it('reuses the loopback port of the stored registration', async () => {
    const store = createMemoryMcpCredentialStore()
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: store })
    auth.expireAccessTokens()
    auth.revokeRefreshTokens()
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: store })
    expect(auth.counts).toMatchObject({ register: 1, authorize: 2 })
    expect(auth.authorizeRequests[1].get('redirect_uri')).toBe(auth.authorizeRequests[0].get('redirect_uri'))
  })

  it('refreshes an expired access token silently and stores the rotated refresh token', async () => {
    const store = createMemoryMcpCredentialStore()
    const key = mcpCredentialKey({ name: 'calc', url: mcpServer.url })
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: store })
    const first = (await store.load(key))!.tokens!

    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 2 }, toolContext())).toBe('4')
    expect(auth.counts.refresh).toBe(1)
    expect(auth.counts.authorize).toBe(1)
    expect(user.seen).toHaveLength(1)
    const second = (await store.load(key))!.tokens!
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(second.access_token).not.toBe(first.access_token)

    // The spent refresh token is refused by the authorization server.
    const spent = await fetch(`${auth.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: (await store.load(key))!.client!.client_id! }),
    })
    expect(spent.status).toBe(400)
    expect(await spent.json()).toMatchObject({ error: 'invalid_grant' })

    // A new connection refreshes at connect time with the rotated token.
    auth.expireAccessTokens()
    const again = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: store })
    expect(again.servers[0].status).toBe('connected')
    expect(auth.counts).toMatchObject({ refresh: 2, authorize: 1 })
    expect((await store.load(key))!.tokens!.refresh_token).not.toBe(second.refresh_token)
  })

  it('falls back to authorization when the refresh token is refused', async () => {
    const store = createMemoryMcpCredentialStore()
    const key = mcpCredentialKey({ name: 'calc', url: mcpServer.url })
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: store })
    const stale = (await store.load(key))!.tokens!
    auth.expireAccessTokens()
    auth.revokeRefreshTokens()

    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: store })
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.counts.refreshRejected).toBe(1)
    expect(auth.counts.authorize).toBe(2)
    expect(user.seen).toHaveLength(1)
    const fresh = (await store.load(key))!.tokens!
    expect(fresh.refresh_token).not.toBe(stale.refresh_token)
    expect(await mcp.tools.mcp__calc__add.execute({ a: 3, b: 4 }, toolContext())).toBe('7')
  })

  it('a refused refresh during a tool call asks the user again, then the call goes through', async () => {
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired })
    auth.expireAccessTokens()
    auth.revokeRefreshTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
    expect(auth.counts.refreshRejected).toBe(1)
    expect(user.seen).toHaveLength(2)
    expect(auth.counts).toMatchObject({ register: 1, authorize: 2 })
  })

  it('headless: a refused refresh during a tool call fails that call with McpAuthRequiredError', async () => {
    const store = createMemoryMcpCredentialStore()
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: store })
    const headless = await connect([server()], { credentialStore: store })
    auth.expireAccessTokens()
    auth.revokeRefreshTokens()
    const error = await Promise.resolve(headless.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpAuthRequiredError)
    expect((error as McpAuthRequiredError).authorizationUrl).toMatch(new RegExp(`^${auth.url}/authorize\\?`))
    expect(auth.counts.authorize).toBe(1)
  })

  it('headless: fails the server with McpAuthRequiredError carrying the URL, and closes the listener', async () => {
    const errors: Error[] = []
    const mcp = await connect([server()], { onServerError: (_, e) => errors.push(e) })
    const info = mcp.servers[0]
    expect(info.status).toBe('failed')
    expect(info.error).toBeInstanceOf(McpAuthRequiredError)
    const error = info.error as McpAuthRequiredError
    expect(error.server).toBe('calc')
    expect(error.authorizationUrl).toMatch(new RegExp(`^${auth.url}/authorize\\?`))
    expect(error.message).toMatch(/onAuthRequired/)
    expect(errors).toEqual([error])
    expect(Object.keys(mcp.tools)).toEqual([])
    expect(auth.counts.authorize).toBe(0)
    const redirectUri = new URL(error.authorizationUrl!).searchParams.get('redirect_uri')!
    expect(await listening(redirectUri)).toBe(false)
  })

  it('refuses a callback whose state does not match, and completes with the right one', async () => {
    const refused: number[] = []
    const onAuthRequired = async (ctx: { authorizationUrl?: string }) => {
      const approved = await fetch(ctx.authorizationUrl!, { redirect: 'manual' })
      const location = new URL(approved.headers.get('location')!)
      const forged = new URL(location)
      forged.searchParams.set('state', 'forged')
      const answer = await fetch(forged)
      refused.push(answer.status)
      expect(await answer.text()).toMatch(/state/)
      await fetch(location)
    }
    const mcp = await connect([server()], { onAuthRequired })
    expect(refused).toEqual([400])
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.counts.authorizationCode).toBe(1)
  })

  it('never takes a code with a forged state: the wait ends at authorizationTimeoutMs', async () => {
    let redirectUri = ''
    const onAuthRequired = async (ctx: { authorizationUrl?: string }) => {
      const approved = await fetch(ctx.authorizationUrl!, { redirect: 'manual' })
      const forged = new URL(approved.headers.get('location')!)
      redirectUri = `${forged.origin}${forged.pathname}`
      forged.searchParams.set('state', 'forged')
      await fetch(forged)
    }
    const mcp = await connect([server()], { onAuthRequired, authorizationTimeoutMs: 300 })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error).toBeInstanceOf(McpAuthRequiredError)
    expect(mcp.servers[0].error!.message).toMatch(/authorizationTimeoutMs/)
    expect(auth.counts.authorizationCode).toBe(0)
    expect(await listening(redirectUri)).toBe(false)
  })

  it('does not let bootstrapTimeout cut the user\'s login short', async () => {
    const user = browser()
    const slowUser = async (ctx: Parameters<typeof user.onAuthRequired>[0]) => {
      await new Promise(resolve => setTimeout(resolve, 1500))
      await user.onAuthRequired(ctx)
    }
    const mcp = await connect([server({ bootstrapTimeout: 1000 })], { onAuthRequired: slowUser })
    expect(mcp.servers[0].status).toBe('connected')
  })

  it('closing the connection while the user is away closes the listener', async () => {
    let redirectUri = ''
    const onAuthRequired = (ctx: { authorizationUrl?: string }) => {
      redirectUri = new URL(ctx.authorizationUrl!).searchParams.get('redirect_uri')!
    }
    await expect(connectMcpServers([server()], { onAuthRequired, connectTimeoutMs: 1500 })).rejects.toThrow(/MCP connect/)
    expect(redirectUri).not.toBe('')
    expect(await listening(redirectUri)).toBe(false)
  })

  it('maps Cursor\'s authMethod: mcpOAuth onto auth: oauth', async () => {
    expect(normalizeServerConfig({ name: 'x', transport: 'sse', url: 'http://h', authMethod: 'mcpOAuth' }).auth).toBe('oauth')
    const user = browser()
    const mcp = await connect([{ name: 'calc', transport: 'streamable-http', url: mcpServer.url, authMethod: 'mcpOAuth' }], { onAuthRequired: user.onAuthRequired })
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.counts.authorize).toBe(1)
  })
})

describe('oauth: pre-registered client', () => {
  beforeEach(() => setup({
    registration: false,
    clients: [{ clientId: 'zidane-test', clientSecret: 's3cret' }],
  }))

  it('uses the configured client (expanded) with a secret the host stored, without registering', async () => {
    const store = createMemoryMcpCredentialStore()
    const key = mcpCredentialKey({ name: 'calc', url: mcpServer.url })
    await store.save(key, { client: { client_secret: 's3cret' } })
    const user = browser()
    const mcp = await connect(
      [server({ oauth: { clientId: '${CLIENT_ID}', scope: 'tools:read tools:call' } })],
      { onAuthRequired: user.onAuthRequired, credentialStore: store, env: { CLIENT_ID: 'zidane-test' } },
    )
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.counts.register).toBe(0)
    expect(auth.authorizeRequests[0].get('client_id')).toBe('zidane-test')
    expect(auth.authorizeRequests[0].get('scope')).toBe('tools:read tools:call')
    expect(auth.tokenRequests[0]).toMatchObject({ grantType: 'authorization_code', clientId: 'zidane-test', clientSecret: 's3cret' })
    expect(auth.tokenRequests[0].clientAuth).not.toBe('none')

    // The flow keeps the host's secret and adds the tokens.
    const stored = await store.load(key)
    expect(stored?.client).toEqual({ client_secret: 's3cret' })
    expect(stored?.tokens?.access_token).toBeTruthy()

    // Refresh with the same client.
    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 2 }, toolContext())).toBe('3')
    expect(auth.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', clientId: 'zidane-test', clientSecret: 's3cret' })
  })

  it('prefers the configured secret, and fails clearly when the server refuses the client', async () => {
    const user = browser()
    const mcp = await connect(
      [server({ oauth: { clientId: 'zidane-test', clientSecret: '${SECRET}' } })],
      { onAuthRequired: user.onAuthRequired, env: { SECRET: 'wrong' } },
    )
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error!.message).toMatch(/OAuth authorization failed/)
    expect(auth.tokenRequests[0]).toMatchObject({ clientId: 'zidane-test', clientSecret: 'wrong' })
    expect(user.seen.at(-1)?.error?.message).toMatch(/OAuth authorization failed/)
  })

  it('pins the redirect URI to callbackPort', async () => {
    const port = await freePort()
    const mcp = await connect(
      [server({ oauth: { clientId: 'zidane-test', clientSecret: 's3cret', callbackPort: port } })],
      { onAuthRequired: browser().onAuthRequired },
    )
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.authorizeRequests[0].get('redirect_uri')).toBe(`http://127.0.0.1:${port}/callback`)
    expect(auth.tokenRequests[0].redirectUri).toBe(`http://127.0.0.1:${port}/callback`)
    expect(await listening(`http://127.0.0.1:${port}/callback`)).toBe(false)
  })

  it('reports a registration that is impossible through onAuthRequired, without an authorization URL', async () => {
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error!.message).toMatch(/OAuth authorization failed: .*dynamic client registration/)
    expect(user.seen).toHaveLength(1)
    expect(user.seen[0].authorizationUrl).toBeUndefined()
    expect(user.seen[0].error).toBe(mcp.servers[0].error)
    expect(auth.counts.authorize).toBe(0)
  })
})

describe('oauth: config', () => {
  it('rejects OAuth on stdio, lazyConnect and an empty client id before connecting', async () => {
    await expect(connectMcpServers([{ name: 's', transport: 'stdio', command: 'node', auth: 'oauth' }])).rejects.toThrow(/OAuth needs an sse or streamable-http transport/)
    await expect(connectMcpServers([{ name: 's', transport: 'stdio', command: 'node', authMethod: 'mcpOAuth' }])).rejects.toThrow(/OAuth needs an sse or streamable-http/)
    await expect(connectMcpServers([{ name: 'h', transport: 'sse', url: 'http://127.0.0.1:9/sse', auth: 'oauth', lazyConnect: true, cachedTools: [] }])).rejects.toThrow(/lazyConnect cannot be combined with OAuth/)
    await expect(connectMcpServers([{ name: 'h', transport: 'sse', url: 'http://127.0.0.1:9/sse', oauth: { clientId: '${NOPE}' } }], { env: {} })).rejects.toThrow(/oauth.clientId is empty/)
    await expect(connectMcpServers([{ name: 'h', transport: 'sse', url: 'http://127.0.0.1:9/sse', auth: 'oauth', headers: { authorization: 'Bearer x' } }])).rejects.toThrow(/Authorization header cannot be combined with OAuth/)
  })

  it('an oauth block implies auth: oauth', () => {
    expect(normalizeServerConfig({ name: 'x', transport: 'sse', url: 'http://h', oauth: { clientId: 'c' } }).auth).toBe('oauth')
    const plain = { name: 'x', transport: 'sse' as const, url: 'http://h' }
    expect(normalizeServerConfig(plain)).toBe(plain)
  })

  it('leaves preExpanded client ids alone', async () => {
    await expect(connectMcpServers([{ name: 'h', transport: 'sse', url: 'http://127.0.0.1:9/sse', preExpanded: true, oauth: { clientId: '${NOPE}', callbackPort: 70000 } }], { env: {} })).rejects.toThrow(/callbackPort/)
  })
})

describe('oauth: credential stores', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zidane-oauth-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
  })

  it('memory store copies records in and out', async () => {
    const store = createMemoryMcpCredentialStore()
    const record = { tokens: { access_token: 'a', token_type: 'Bearer' } }
    await store.save('k', record)
    record.tokens.access_token = 'changed'
    const loaded = (await store.load('k'))!
    expect(loaded.tokens!.access_token).toBe('a')
    loaded.tokens!.access_token = 'mutated'
    expect((await store.load('k'))!.tokens!.access_token).toBe('a')
    await store.delete('k')
    expect(await store.load('k')).toBeUndefined()
  })

  it('file store round-trips, writes mode 0600, and survives concurrent saves', async () => {
    const path = join(dir, 'nested', 'mcp-credentials.json')
    const store: McpCredentialStore = createFileMcpCredentialStore(path)
    expect(await store.load('missing')).toBeUndefined()
    await Promise.all(Array.from({ length: 25 }, (_, i) => store.save(`server-${i}`, { tokens: { access_token: `t${i}`, token_type: 'Bearer', refresh_token: `r${i}` } })))
    // A second store on the same file (a later process) sees every record.
    const other = createFileMcpCredentialStore(path)
    for (let i = 0; i < 25; i++)
      expect((await other.load(`server-${i}`))?.tokens?.refresh_token).toBe(`r${i}`)
    if (process.platform !== 'win32')
      expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await readdir(join(dir, 'nested'))).filter(name => name.endsWith('.tmp'))).toEqual([])

    await other.delete('server-3')
    expect(await store.load('server-3')).toBeUndefined()
    expect(await store.load('server-4')).toBeDefined()
  })

  it('a file store carries tokens from one connection to the next', async () => {
    await setup()
    const path = join(dir, 'creds.json')
    await connect([server()], { onAuthRequired: browser().onAuthRequired, credentialStore: createFileMcpCredentialStore(path) })
    const user = browser()
    const mcp = await connect([server()], { onAuthRequired: user.onAuthRequired, credentialStore: createFileMcpCredentialStore(path) })
    expect(mcp.servers[0].status).toBe('connected')
    expect(user.seen).toEqual([])
    expect(auth.counts.authorize).toBe(1)
  })
})
