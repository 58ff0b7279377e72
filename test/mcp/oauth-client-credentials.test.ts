/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import type { McpServerConfig } from '../../src/mcp'
import type { AuthServerOptions, ProtectedMcpServer, ProtectedServerOptions, TestAuthServer } from './oauth-support'
import { generateKeyPairSync } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { connectMcpServers, createMemoryMcpCredentialStore, mcpCredentialKey } from '../../src/mcp'
import { startAuthServer, startProtectedMcpServer } from './oauth-support'
import { toolContext, trackConnections } from './support'

let auth: TestAuthServer
let mcpServer: ProtectedMcpServer
const { cleanups, connect, closeAll } = trackConnections()

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PRIVATE_PEM = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const PUBLIC_PEM = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString()
const OTHER_PRIVATE_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

async function setup(options: AuthServerOptions = {}, protectedOptions: ProtectedServerOptions = {}) {
  auth = await startAuthServer({
    registration: false,
    clients: [
      { clientId: 'robot', clientSecret: 'r0b0t' },
      { clientId: 'signer', publicKey: PUBLIC_PEM },
    ],
    ...options,
  })
  mcpServer = await startProtectedMcpServer(auth, protectedOptions)
  cleanups.push(() => mcpServer.close(), () => auth.close())
}

afterEach(async () => {
  await closeAll()
})

function server(oauth: McpServerConfig['oauth']): McpServerConfig {
  return { name: 'calc', transport: 'streamable-http', url: mcpServer.url, oauth }
}

function secretClient(extra: Partial<NonNullable<McpServerConfig['oauth']>> = {}) {
  return server({ clientId: 'robot', clientSecret: '${ROBOT_SECRET}', grantType: 'client_credentials', scope: 'tools:read', ...extra })
}

describe('oauth client_credentials: client secret', () => {
  it('gets a token with client_secret_basic, with no user, no registration and no authorization', async () => {
    await setup()
    const store = createMemoryMcpCredentialStore()
    const mcp = await connect([secretClient()], { credentialStore: store, env: { ROBOT_SECRET: 'r0b0t' } })
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 5 }, toolContext())).toBe('7')
    expect(auth.tokenRequests).toHaveLength(1)
    expect(auth.tokenRequests[0]).toMatchObject({ grantType: 'client_credentials', clientAuth: 'basic', clientId: 'robot', clientSecret: 'r0b0t', scope: 'tools:read' })
    expect(auth.counts).toMatchObject({ register: 0, authorize: 0, clientCredentials: 1 })
    const stored = await store.load(mcpCredentialKey({ name: 'calc', url: mcpServer.url }))
    expect(stored?.tokens?.access_token).toBeTruthy()
    expect(stored?.tokens?.refresh_token).toBeUndefined()
    expect(stored?.tokens?.expires_at).toBeGreaterThan(Date.now())
  })

  it('sends the secret in the body with client_secret_post', async () => {
    await setup()
    const mcp = await connect([secretClient({ tokenEndpointAuthMethod: 'client_secret_post' })], { env: { ROBOT_SECRET: 'r0b0t' } })
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.tokenRequests[0]).toMatchObject({ grantType: 'client_credentials', clientAuth: 'post', clientSecret: 'r0b0t' })
  })

  it('grants again when the server refuses the token (401), and before sending once the token has expired', async () => {
    await setup({ accessTokenTtl: 6 })
    const mcp = await connect([secretClient()], { env: { ROBOT_SECRET: 'r0b0t' } })
    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
    expect(auth.counts.clientCredentials).toBe(2)

    // Within 5 s of `expires_at` the token counts as expired: the next request gets a new one first.
    await new Promise(resolve => setTimeout(resolve, 1100))
    const refusedBefore = mcpServer.rejected
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 2 }, toolContext())).toBe('4')
    expect(auth.counts.clientCredentials).toBe(3)
    expect(mcpServer.rejected).toBe(refusedBefore)
  })

  it('steps up a 403 insufficient_scope by asking for the wider scope', async () => {
    await setup({}, { scopes: { 'tools/list': 'tools:read', 'tools/call:add': 'tools:read', 'tools/call:write': 'tools:read tools:write' } })
    const mcp = await connect([secretClient()], { env: { ROBOT_SECRET: 'r0b0t' } })
    expect(await mcp.tools.mcp__calc__write.execute({ note: 'x' }, toolContext())).toBe('wrote x')
    expect(mcpServer.refusals.some(r => r.status === 403)).toBe(true)
    expect(auth.tokenRequests.map(r => r.scope)).toEqual(['tools:read', 'tools:read tools:write'])
  })

  it('a refused secret fails the server with a clear error, without calling onAuthRequired for a URL', async () => {
    await setup()
    const seen: Array<{ authorizationUrl?: string, error?: Error }> = []
    const mcp = await connect([secretClient()], { env: { ROBOT_SECRET: 'wrong' }, onAuthRequired: ctx => void seen.push(ctx) })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error!.message).toMatch(/OAuth authorization failed/)
    expect(seen.every(ctx => ctx.authorizationUrl === undefined)).toBe(true)
    expect(auth.counts.authorize).toBe(0)
  })
})

describe('oauth client_credentials: private_key_jwt', () => {
  const signer = (extra: Partial<NonNullable<McpServerConfig['oauth']>> = {}) =>
    server({ clientId: 'signer', grantType: 'client_credentials', tokenEndpointAuthMethod: 'private_key_jwt', ...extra })

  it('signs an assertion the authorization server verifies with the client\'s public key', async () => {
    await setup()
    const mcp = await connect([signer({ privateKey: '${SIGNER_KEY}' })], { env: { SIGNER_KEY: PRIVATE_PEM } })
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 3, b: 3 }, toolContext())).toBe('6')
    const [request] = auth.tokenRequests
    expect(request).toMatchObject({ grantType: 'client_credentials', clientAuth: 'jwt', clientId: 'signer' })
    expect(request.assertion).toMatchObject({ iss: 'signer', sub: 'signer', aud: auth.url })
    expect(request.clientSecret).toBeUndefined()

    // A re-grant signs a new assertion (the server refuses a replayed jti).
    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 3 }, toolContext())).toBe('4')
    expect(auth.tokenRequests[1].assertion!.jti).not.toBe(request.assertion!.jti)
  })

  it('uses a private key saved in the credential store', async () => {
    await setup()
    const store = createMemoryMcpCredentialStore()
    await store.save(mcpCredentialKey({ name: 'calc', url: mcpServer.url }), { client: { private_key: PRIVATE_PEM } })
    const mcp = await connect([signer()], { credentialStore: store })
    expect(mcp.servers[0].status).toBe('connected')
    expect(auth.tokenRequests[0].assertion).toMatchObject({ iss: 'signer' })
  })

  it('an assertion signed with the wrong key is refused, and the server fails clearly', async () => {
    await setup()
    const mcp = await connect([signer({ privateKey: OTHER_PRIVATE_PEM })])
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error!.message).toMatch(/OAuth authorization failed/)
    expect(auth.counts.clientCredentials).toBe(0)
  })

  it('refuses inconsistent settings before connecting', async () => {
    const url = 'http://127.0.0.1:9/mcp'
    await expect(connectMcpServers([{ name: 'x', transport: 'sse', url, oauth: { clientId: 'c', tokenEndpointAuthMethod: 'private_key_jwt' } }]))
      .rejects
      .toThrow(/applies to grantType 'client_credentials' or 'jwt_bearer' only/)
    await expect(connectMcpServers([{ name: 'x', transport: 'sse', url, oauth: { clientId: 'c', grantType: 'client_credentials', privateKey: 'k' } }]))
      .rejects
      .toThrow(/privateKey needs tokenEndpointAuthMethod 'private_key_jwt'/)
    await expect(connectMcpServers([{ name: 'x', transport: 'sse', url, oauth: { clientId: 'c', grantType: 'device' as 'client_credentials' } }]))
      .rejects
      .toThrow(/oauth.grantType must be/)
    await expect(connectMcpServers([{ name: 'x', transport: 'sse', url, oauth: { clientId: 'c', grantType: 'client_credentials', tokenEndpointAuthMethod: 'private_key_jwt', privateKey: '${NOPE}' } }], { env: {} }))
      .rejects
      .toThrow(/oauth.privateKey is empty/)
  })
})
