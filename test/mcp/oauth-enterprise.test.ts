/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import type { McpIdentityTokenContext, McpServerConfig } from '../../src/mcp'
import type { ProtectedMcpServer, TestAuthServer, TestIdentityProvider } from './oauth-support'
import { afterEach, describe, expect, it } from 'vitest'
import { McpIdentityAssertionError, OperationTimeoutError } from '../../src/errors'
import { connectMcpServers, createMemoryMcpCredentialStore, MAX_TOKEN_EXCHANGE_RESPONSE_BYTES, mcpCredentialKey } from '../../src/mcp'
import { listening, startAuthServer, startIdentityProvider, startProtectedMcpServer } from './oauth-support'
import { toolContext, trackConnections } from './support'

let idp: TestIdentityProvider
let auth: TestAuthServer
let mcpServer: ProtectedMcpServer
const { cleanups, connect, closeAll } = trackConnections()

/** The IdP, the MCP server's authorization server (which trusts that IdP), and the MCP server itself. */
async function setup(options: { idpSecret?: string, accessTokenTtl?: number } = {}) {
  idp = await startIdentityProvider({ clientSecret: options.idpSecret })
  auth = await startAuthServer({
    registration: false,
    clients: [{ clientId: 'agent', clientSecret: 'agent-secret' }, { clientId: 'other', clientSecret: 'other-secret' }],
    identityProvider: idp,
    accessTokenTtl: options.accessTokenTtl,
  })
  mcpServer = await startProtectedMcpServer(auth)
  cleanups.push(() => mcpServer.close(), () => auth.close(), () => idp.close())
}

afterEach(async () => {
  await closeAll()
})

function server(extra: { oauth?: Partial<NonNullable<McpServerConfig['oauth']>>, idp?: Partial<NonNullable<NonNullable<McpServerConfig['oauth']>['identityProvider']>>, bootstrapTimeout?: number } = {}): McpServerConfig {
  return {
    name: 'calc',
    transport: 'streamable-http',
    url: mcpServer.url,
    ...(extra.bootstrapTimeout !== undefined ? { bootstrapTimeout: extra.bootstrapTimeout } : {}),
    oauth: {
      clientId: 'agent',
      clientSecret: '${AGENT_SECRET}',
      grantType: 'jwt_bearer',
      identityProvider: { tokenEndpoint: idp.tokenEndpoint, clientId: idp.clientId, idToken: '${ID_TOKEN}', ...extra.idp },
      ...extra.oauth,
    },
  }
}

const jwtGrants = () => auth.tokenRequests.filter(r => r.grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer')

describe('enterprise-managed authorization (ID-JAG, then the JWT bearer grant)', () => {
  it('exchanges the identity token at the IdP, trades the ID-JAG for an access token, and calls the server with it', async () => {
    await setup({ idpSecret: 'idp-secret' })
    const store = createMemoryMcpCredentialStore()
    const seen: unknown[] = []
    const mcp = await connect([server({ idp: { clientSecret: '${IDP_SECRET}' } })], {
      credentialStore: store,
      env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice'), IDP_SECRET: 'idp-secret' },
      onAuthRequired: ctx => void seen.push(ctx),
    })
    expect(mcp.servers[0].status).toBe('connected')
    expect(await mcp.tools.mcp__calc__add.execute({ a: 2, b: 5 }, toolContext())).toBe('7')

    // One exchange at the IdP, with the parameters the extension asks for.
    expect(idp.exchanges).toHaveLength(1)
    expect(idp.exchanges[0].form).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: auth.url,
      resource: mcpServer.url,
      client_id: 'agent-at-idp',
      client_secret: 'idp-secret',
    })
    // One JWT bearer grant at the authorization server, with the client's own credentials there.
    expect(jwtGrants()).toHaveLength(1)
    expect(jwtGrants()[0]).toMatchObject({ clientAuth: 'basic', clientId: 'agent', clientSecret: 'agent-secret', resource: mcpServer.url })
    expect(jwtGrants()[0].idJag).toMatchObject({ sub: 'alice', aud: auth.url, client_id: 'agent', resource: mcpServer.url })
    // No browser, no registration, nobody asked.
    expect(auth.counts).toMatchObject({ register: 0, authorize: 0, jwtBearer: 1 })
    expect(seen).toEqual([])
    const stored = await store.load(mcpCredentialKey({ name: 'calc', url: mcpServer.url }))
    expect(stored?.tokens?.access_token).toBe(mcpServer.accepted.at(-1))
    expect(stored?.tokens?.refresh_token).toBeUndefined()
  })

  it('a refused token is exchanged again on the next call: a new ID-JAG, a new access token, the call goes through', async () => {
    await setup()
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].status).toBe('connected')
    const firstToken = mcpServer.accepted.at(-1)

    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).toBe('2')
    expect(idp.exchanges).toHaveLength(2)
    expect(jwtGrants()).toHaveLength(2)
    expect(mcpServer.accepted.at(-1)).not.toBe(firstToken)
    // The ID-JAGs are single-use assertions: each grant carried a new one.
    expect(jwtGrants()[1].idJag!.jti).not.toBe(jwtGrants()[0].idJag!.jti)
  })

  it('a token past its expires_at is exchanged again before the call, without a refused request', async () => {
    // Tokens live 6 s; within 5 s of `expires_at` they count as expired (the server would still take this one).
    await setup({ accessTokenTtl: 6 })
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    const refusedBefore = mcpServer.rejected
    await new Promise(resolve => setTimeout(resolve, 1100))
    expect(await mcp.tools.mcp__calc__add.execute({ a: 3, b: 4 }, toolContext())).toBe('7')
    expect(idp.exchanges).toHaveLength(2)
    expect(auth.counts.jwtBearer).toBe(2)
    expect(mcpServer.rejected).toBe(refusedBefore)
  })

  it('asks getIdentityToken before every exchange when the config has no idToken', async () => {
    await setup()
    const asked: McpIdentityTokenContext[] = []
    const mcp = await connect([server({ idp: { idToken: undefined } })], {
      env: { AGENT_SECRET: 'agent-secret' },
      getIdentityToken: (ctx) => {
        asked.push(ctx)
        return idp.idToken(`user-${asked.length}`)
      },
    })
    expect(mcp.servers[0].status).toBe('connected')
    auth.expireAccessTokens()
    expect(await mcp.tools.mcp__calc__add.execute({ a: 1, b: 2 }, toolContext())).toBe('3')
    expect(asked.map(a => [a.server, a.url, a.tokenEndpoint])).toEqual([['calc', mcpServer.url, idp.tokenEndpoint], ['calc', mcpServer.url, idp.tokenEndpoint]])
    expect(asked[0].signal).toBeInstanceOf(AbortSignal)
    expect(jwtGrants().map(g => g.idJag!.sub)).toEqual(['user-1', 'user-2'])
  })

  it('an IdP refusal fails the server with a typed error that says what the IdP said', async () => {
    await setup()
    const seen: Array<{ authorizationUrl?: string, error?: Error }> = []
    // An ID token that expired an hour ago: the IdP refuses it.
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice', -3600) }, onAuthRequired: ctx => void seen.push(ctx) })
    expect(mcp.servers[0].status).toBe('failed')
    const error = mcp.servers[0].error
    expect(error).toBeInstanceOf(McpIdentityAssertionError)
    expect(error).toMatchObject({ server: 'calc', stage: 'identity-provider', status: 400, code: 'invalid_grant' })
    expect(error!.message).toMatch(/identity provider refused .*HTTP 400, invalid_grant: the ID token is expired or not ours/)
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every(ctx => ctx.authorizationUrl === undefined && ctx.error instanceof McpIdentityAssertionError)).toBe(true)
    // Nothing reached the authorization server's token endpoint, and no browser flow started.
    expect(auth.tokenRequests).toEqual([])
    expect(auth.counts.authorize).toBe(0)
  })

  it('the IdP refusing mid-run fails that call with the typed error (the model reads it as a tool error)', async () => {
    await setup()
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    idp.behavior = { kind: 'refuse', status: 403, body: { error: 'access_denied', error_description: 'policy: calc is not allowed for alice' } }
    auth.expireAccessTokens()
    const failure = await Promise.resolve(mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).then(() => undefined, (error: unknown) => error)
    expect(failure).toBeInstanceOf(McpIdentityAssertionError)
    expect(failure).toMatchObject({ stage: 'identity-provider', status: 403, code: 'access_denied' })
    expect((failure as Error).message).toContain('policy: calc is not allowed for alice')
  })

  it('an authorization server refusal of the ID-JAG is a typed error too', async () => {
    await setup()
    // Authenticated as another client than the one the IdP vouched for: the authorization server refuses the grant.
    const mcp = await connect([server({ oauth: { clientId: 'other', clientSecret: 'other-secret' } })], { env: { ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].status).toBe('failed')
    const error = mcp.servers[0].error
    expect(error).toBeInstanceOf(McpIdentityAssertionError)
    expect(error).toMatchObject({ server: 'calc', stage: 'authorization-server', code: 'invalid_grant' })
    expect(error!.message).toMatch(/authorization server refused the identity assertion .*the ID-JAG is not valid for this client/)
    expect(auth.counts.jwtBearer).toBe(0)
    // invalid_grant: asked once more with a new ID-JAG, then given up.
    expect(idp.exchanges).toHaveLength(2)
    expect(jwtGrants()).toHaveLength(2)
  })

  it('the wrong client secret at the authorization server is refused with a typed error', async () => {
    await setup()
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'wrong', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(mcp.servers[0].error).toMatchObject({ stage: 'authorization-server', code: 'invalid_client' })
  })
})

describe('enterprise-managed authorization: bounded waits and hostile answers', () => {
  it('an IdP that never answers is given up after bootstrapTimeout, the request is aborted, and the error is typed', async () => {
    await setup()
    idp.behavior = { kind: 'stall' }
    const mcp = await connect([server({ bootstrapTimeout: 400 })], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].status).toBe('failed')
    const error = mcp.servers[0].error
    expect(error).toBeInstanceOf(McpIdentityAssertionError)
    expect(error!.message).toMatch(/did not answer the token exchange within 400 ms \(bootstrapTimeout\)/)
    expect(error!.cause).toBeInstanceOf(OperationTimeoutError)
    // The client closed its side: nothing is left waiting on the IdP.
    await expect.poll(() => idp.abandoned).toBe(idp.exchanges.length)
  }, 20_000)

  it('a getIdentityToken that never settles is bounded the same way, and is told through its signal', async () => {
    await setup()
    let signal: AbortSignal | undefined
    const mcp = await connect([server({ bootstrapTimeout: 400, idp: { idToken: undefined } })], {
      env: { AGENT_SECRET: 'agent-secret' },
      getIdentityToken: (ctx) => {
        signal = ctx.signal
        return new Promise<string>(() => {})
      },
    })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(mcp.servers[0].error!.message).toMatch(/getIdentityToken did not settle within 400 ms \(bootstrapTimeout\)/)
    expect(mcp.servers[0].error!.cause).toBeInstanceOf(OperationTimeoutError)
    expect(signal?.aborted).toBe(true)
    expect(idp.exchanges).toEqual([])
  }, 20_000)

  it('closing the connection aborts an exchange in flight', async () => {
    await setup()
    // Bounds far beyond the test's own timeout: only the close can end the exchange in time.
    const mcp = await connect([server({ bootstrapTimeout: 600_000 })], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    idp.behavior = { kind: 'stall' }
    auth.expireAccessTokens()
    const call = Promise.resolve(mcp.tools.mcp__calc__add.execute({ a: 1, b: 1 }, toolContext())).then(() => undefined, (error: unknown) => error)
    await expect.poll(() => idp.exchanges.length).toBe(2)
    await mcp.close()
    expect(await call).toBeInstanceOf(Error)
    await expect.poll(() => idp.abandoned).toBe(1)
  }, 20_000)

  it('an answer larger than the cap is refused without being read whole', async () => {
    await setup()
    idp.behavior = { kind: 'huge' }
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(mcp.servers[0].error!.message).toContain(`larger than ${MAX_TOKEN_EXCHANGE_RESPONSE_BYTES} bytes`)
  })

  it('refuses an answer that is not an ID-JAG, and a long error description is cut short', async () => {
    await setup()
    idp.behavior = { kind: 'raw', status: 200, body: { access_token: 'opaque', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer' } }
    let mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].error!.message).toMatch(/issued "urn:ietf:params:oauth:token-type:access_token", not an ID-JAG/)
    expect(auth.tokenRequests).toEqual([])

    idp.behavior = { kind: 'raw', status: 200, body: ['not', 'an', 'object'] }
    mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].error!.message).toMatch(/not a JSON object/)

    idp.behavior = { kind: 'refuse', status: 400, body: { error: 'invalid_grant', error_description: `line\n${'d'.repeat(10_000)}` } }
    mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    const message = mcp.servers[0].error!.message
    expect(message).toContain('invalid_grant: line d')
    expect(message.length).toBeLessThan(600)
  })

  it('never follows a redirect with the identity token', async () => {
    await setup()
    const thief = await startIdentityProvider()
    cleanups.push(() => thief.close())
    idp.behavior = { kind: 'redirect', location: thief.tokenEndpoint }
    const mcp = await connect([server()], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(thief.exchanges).toEqual([])
    expect(await listening(thief.url)).toBe(true)
  })

  it('a getIdentityToken that throws, or returns nothing, fails the server with the typed error', async () => {
    await setup()
    let mcp = await connect([server({ idp: { idToken: undefined } })], {
      env: { AGENT_SECRET: 'agent-secret' },
      getIdentityToken: () => {
        throw new Error('SSO session ended')
      },
    })
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(mcp.servers[0].error!.message).toMatch(/getIdentityToken failed: SSO session ended/)
    mcp = await connect([server({ idp: { idToken: undefined } })], { env: { AGENT_SECRET: 'agent-secret' }, getIdentityToken: () => '  ' })
    expect(mcp.servers[0].error!.message).toMatch(/getIdentityToken returned no identity token/)
    expect(idp.exchanges).toEqual([])
  })

  it('without an identity token anywhere, says where to put one', async () => {
    await setup()
    const mcp = await connect([server({ idp: { idToken: undefined } })], { env: { AGENT_SECRET: 'agent-secret' } })
    expect(mcp.servers[0].error).toBeInstanceOf(McpIdentityAssertionError)
    expect(mcp.servers[0].error!.message).toMatch(/set oauth.identityProvider.idToken, or pass getIdentityToken/)
    expect(idp.exchanges).toEqual([])
  })
})

describe('enterprise-managed authorization: config', () => {
  const url = 'http://127.0.0.1:9/mcp'
  const base = { name: 'x', transport: 'streamable-http' as const, url }

  it('refuses incomplete or misplaced settings before connecting', async () => {
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', grantType: 'jwt_bearer' } }]))
      .rejects
      .toThrow(/grantType 'jwt_bearer' needs oauth.identityProvider/)
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', identityProvider: { tokenEndpoint: 'https://idp.example/token', clientId: 'i' } } }]))
      .rejects
      .toThrow(/identityProvider applies to grantType 'jwt_bearer' only/)
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', grantType: 'jwt_bearer', identityProvider: { tokenEndpoint: '${IDP_URL}', clientId: 'i' } } }], { env: {} }))
      .rejects
      .toThrow(/identityProvider.tokenEndpoint must be an http\(s\) URL/)
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', grantType: 'jwt_bearer', identityProvider: { tokenEndpoint: 'file:///etc/passwd', clientId: 'i' } } }]))
      .rejects
      .toThrow(/identityProvider.tokenEndpoint must be an http\(s\) URL/)
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', grantType: 'jwt_bearer', identityProvider: { tokenEndpoint: 'https://idp.example/token', clientId: '${IDP_CLIENT}' } } }], { env: {} }))
      .rejects
      .toThrow(/identityProvider.clientId is empty/)
    await expect(connectMcpServers([{ ...base, oauth: { clientId: 'c', grantType: 'jwt_bearer', identityProvider: { tokenEndpoint: 'https://idp.example/token', clientId: 'i', idToken: '${ID_TOKEN}' } } }], { env: {} }))
      .rejects
      .toThrow(/identityProvider.idToken is empty/)
  })

  it('accepts tokenEndpointAuthMethod with jwt_bearer (the client authenticates at the authorization server)', async () => {
    await setup()
    const mcp = await connect([server({ oauth: { tokenEndpointAuthMethod: 'client_secret_post' } })], { env: { AGENT_SECRET: 'agent-secret', ID_TOKEN: idp.idToken('alice') } })
    expect(mcp.servers[0].status).toBe('connected')
    expect(jwtGrants()[0]).toMatchObject({ clientAuth: 'post', clientSecret: 'agent-secret' })
  })
})
