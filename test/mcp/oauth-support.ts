import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { KeyObject } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, randomUUID, sign, verify } from 'node:crypto'
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import * as z from 'zod'
import { streamableSession } from './support'

async function listen(server: Server): Promise<string> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string')
    throw new Error('no port')
  return `http://127.0.0.1:${address.port}`
}

async function shutdown(server: Server) {
  server.closeAllConnections()
  await new Promise<void>(resolve => server.close(() => resolve()))
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req)
    chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
  res.end(JSON.stringify(body))
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const ID_JAG_TYP = 'oauth-id-jag+jwt'
const LOOPBACK_CALLBACK = /^http:\/\/127\.0\.0\.1:\d+\/callback$/
const BASIC = /^Basic (.+)$/
const BEARER = /^Bearer (.+)$/

function token() {
  return randomBytes(18).toString('base64url')
}

export interface TestOAuthClient {
  clientId: string
  clientSecret?: string
  /** PEM public key that verifies this client's `private_key_jwt` assertions. */
  publicKey?: string
  /** Exact redirect URIs accepted at /authorize; absent: any loopback `/callback`. */
  redirectUris?: string[]
}

export interface AuthServerOptions {
  /** Offer RFC 7591 registration at /register. Default true. */
  registration?: boolean
  /** Lifetime of access tokens in seconds. Default 3600. */
  accessTokenTtl?: number
  /** Pre-registered clients. */
  clients?: TestOAuthClient[]
  /** Accept the JWT bearer grant with ID-JAGs signed by this identity provider. */
  identityProvider?: TestIdentityProvider
}

export interface TokenRequest {
  grantType: string
  clientId?: string
  /** How the client authenticated: `basic`, `post` or `none`. */
  clientAuth: 'basic' | 'post' | 'none' | 'jwt'
  clientSecret?: string
  redirectUri?: string
  scope?: string
  /** Claims of a verified `private_key_jwt` assertion. */
  assertion?: Record<string, unknown>
  /** Claims of the ID-JAG of a JWT bearer grant, once verified. */
  idJag?: Record<string, unknown>
  resource?: string
}

/** A local OAuth 2.1 authorization server that approves every authorization on its own. */
export interface TestAuthServer {
  url: string
  counts: { metadata: number, register: number, authorize: number, authorizationCode: number, refresh: number, refreshRejected: number, clientCredentials: number, jwtBearer: number }
  /** Query of every /authorize request. */
  authorizeRequests: URLSearchParams[]
  tokenRequests: TokenRequest[]
  registrations: Array<Record<string, unknown>>
  /** Whether an access token is currently good (and, with `scope`, was granted every scope listed). */
  isValid: (accessToken: string, scope?: string) => boolean
  /** Make every access token issued so far stop working (as if their lifetime ran out). */
  expireAccessTokens: () => void
  /** Forget every refresh token (as if the grant had been revoked). */
  revokeRefreshTokens: () => void
  close: () => Promise<void>
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const registration = options.registration ?? true
  const ttl = options.accessTokenTtl ?? 3600
  const clients = new Map<string, TestOAuthClient>((options.clients ?? []).map(c => [c.clientId, c]))
  const codes = new Map<string, { clientId: string, challenge: string, redirectUri: string, scope?: string }>()
  const accessTokens = new Map<string, { expiresAt: number, scope: Set<string> }>()
  const refreshTokens = new Map<string, { clientId: string, scope?: string }>()
  const seenJti = new Set<string>()

  const state: TestAuthServer = {
    url: '',
    counts: { metadata: 0, register: 0, authorize: 0, authorizationCode: 0, refresh: 0, refreshRejected: 0, clientCredentials: 0, jwtBearer: 0 },
    authorizeRequests: [],
    tokenRequests: [],
    registrations: [],
    isValid: (accessToken, scope) => {
      const entry = accessTokens.get(accessToken)
      return !!entry && entry.expiresAt > Date.now() && (scope ?? '').split(' ').every(s => !s || entry.scope.has(s))
    },
    expireAccessTokens: () => {
      for (const entry of accessTokens.values())
        entry.expiresAt = 0
    },
    revokeRefreshTokens: () => refreshTokens.clear(),
    close: async () => {},
  }

  const issue = (clientId: string, scope?: string, refreshable = true) => {
    const access = token()
    accessTokens.set(access, { expiresAt: Date.now() + ttl * 1000, scope: new Set((scope ?? '').split(' ').filter(Boolean)) })
    const scoped = scope ? { scope } : {}
    if (!refreshable)
      return { access_token: access, token_type: 'Bearer', expires_in: ttl, ...scoped }
    const refresh = token()
    refreshTokens.set(refresh, { clientId, scope })
    return { access_token: access, token_type: 'Bearer', expires_in: ttl, refresh_token: refresh, ...scoped }
  }

  /** Check an RFC 7523 client assertion: signature with the client's key, issuer, subject, audience, lifetime and replay. */
  const verifyAssertion = (jwt: string, client: TestOAuthClient): Record<string, unknown> | undefined => {
    const [head, body, signature] = jwt.split('.')
    if (!head || !body || !signature || !client.publicKey)
      return undefined
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string }
    const algorithms: Record<string, { hash: string, dsa?: boolean }> = { RS256: { hash: 'sha256' }, ES256: { hash: 'sha256', dsa: true } }
    const alg = algorithms[header.alg ?? '']
    if (!alg)
      return undefined
    const key = createPublicKey(client.publicKey)
    const ok = verify(alg.hash, Buffer.from(`${head}.${body}`), alg.dsa ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(signature, 'base64url'))
    if (!ok)
      return undefined
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
    const audiences = [state.url, `${state.url}/`, `${state.url}/token`]
    const now = Math.floor(Date.now() / 1000)
    if (claims.iss !== client.clientId || claims.sub !== client.clientId || !audiences.includes(String(claims.aud)))
      return undefined
    if (typeof claims.exp !== 'number' || claims.exp < now || typeof claims.jti !== 'string' || seenJti.has(claims.jti))
      return undefined
    seenJti.add(claims.jti)
    return claims
  }

  const loopbackCallback = (uri: string) => LOOPBACK_CALLBACK.test(uri)

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', state.url)
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      state.counts.metadata++
      json(res, 200, {
        issuer: state.url,
        authorization_endpoint: `${state.url}/authorize`,
        token_endpoint: `${state.url}/token`,
        ...(registration ? { registration_endpoint: `${state.url}/register` } : {}),
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', ...(options.identityProvider ? [JWT_BEARER] : [])],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256'],
      })
      return
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      if (!registration) {
        json(res, 404, { error: 'not_found' })
        return
      }
      state.counts.register++
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>
      state.registrations.push(body)
      const redirectUris = body.redirect_uris as string[]
      const clientId = `dyn-${randomUUID()}`
      clients.set(clientId, { clientId, redirectUris })
      json(res, 201, { ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' })
      return
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      state.counts.authorize++
      const q = url.searchParams
      state.authorizeRequests.push(q)
      const client = clients.get(q.get('client_id') ?? '')
      const redirectUri = q.get('redirect_uri') ?? ''
      const redirectOk = client?.redirectUris ? client.redirectUris.includes(redirectUri) : loopbackCallback(redirectUri)
      if (!client || !redirectOk || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        json(res, 400, { error: 'invalid_request' })
        return
      }
      const code = token()
      codes.set(code, { clientId: client.clientId, challenge: q.get('code_challenge')!, redirectUri, scope: q.get('scope') ?? undefined })
      const target = new URL(redirectUri)
      target.searchParams.set('code', code)
      if (q.get('state') !== null)
        target.searchParams.set('state', q.get('state')!)
      res.writeHead(302, { location: target.href })
      res.end()
      return
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req))
      const basic = req.headers.authorization?.match(BASIC)
      let clientId = form.get('client_id') ?? undefined
      let clientSecret = form.get('client_secret') ?? undefined
      let clientAuth: TokenRequest['clientAuth'] = clientSecret ? 'post' : 'none'
      if (basic) {
        const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':')
        clientId = decodeURIComponent(id)
        clientSecret = decodeURIComponent(secret)
        clientAuth = 'basic'
      }
      const grantType = form.get('grant_type') ?? ''
      const jwt = form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' ? form.get('client_assertion') ?? undefined : undefined
      if (jwt) {
        clientAuth = 'jwt'
        clientId ??= JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8') || '{}').iss as string | undefined
      }
      const request: TokenRequest = { grantType, clientId, clientAuth, clientSecret, redirectUri: form.get('redirect_uri') ?? undefined, scope: form.get('scope') ?? undefined, resource: form.get('resource') ?? undefined }
      state.tokenRequests.push(request)
      const client = clients.get(clientId ?? '')
      if (client?.publicKey) {
        // A key-bound client authenticates with a signed assertion and nothing else.
        request.assertion = jwt ? verifyAssertion(jwt, client) : undefined
        if (!request.assertion) {
          json(res, 401, { error: 'invalid_client', error_description: 'bad or missing client assertion' })
          return
        }
      }
      else if (!client || (client.clientSecret !== undefined && client.clientSecret !== clientSecret)) {
        json(res, 401, { error: 'invalid_client' })
        return
      }
      if (grantType === 'authorization_code') {
        const entry = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const challenge = createHash('sha256').update(verifier).digest('base64url')
        if (!entry || entry.clientId !== client.clientId || entry.redirectUri !== form.get('redirect_uri') || entry.challenge !== challenge) {
          json(res, 400, { error: 'invalid_grant', error_description: 'bad code, redirect_uri or code_verifier' })
          return
        }
        state.counts.authorizationCode++
        json(res, 200, issue(client.clientId, entry.scope))
        return
      }
      if (grantType === 'client_credentials') {
        if (!client.clientSecret && !client.publicKey) {
          json(res, 401, { error: 'invalid_client', error_description: 'public clients cannot use client_credentials' })
          return
        }
        state.counts.clientCredentials++
        json(res, 200, issue(client.clientId, form.get('scope') ?? undefined, false))
        return
      }
      if (grantType === JWT_BEARER && options.identityProvider) {
        // The draft's checks: typed JWT, signed by the IdP, for this issuer, for the client that authenticated, not expired.
        const claims = verifyJwt(form.get('assertion') ?? '', options.identityProvider.publicKey, ID_JAG_TYP)
        const now = Math.floor(Date.now() / 1000)
        if (!claims || claims.iss !== options.identityProvider.url || claims.aud !== state.url || claims.client_id !== client.clientId || typeof claims.exp !== 'number' || claims.exp < now) {
          json(res, 400, { error: 'invalid_grant', error_description: 'the ID-JAG is not valid for this client' })
          return
        }
        request.idJag = claims
        state.counts.jwtBearer++
        json(res, 200, issue(client.clientId, typeof claims.scope === 'string' ? claims.scope : undefined, false))
        return
      }
      if (grantType === 'refresh_token') {
        const presented = form.get('refresh_token') ?? ''
        const entry = refreshTokens.get(presented)
        if (!entry || entry.clientId !== client.clientId) {
          state.counts.refreshRejected++
          json(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' })
          return
        }
        // Rotation: the presented refresh token is spent.
        refreshTokens.delete(presented)
        state.counts.refresh++
        json(res, 200, issue(client.clientId, entry.scope))
        return
      }
      json(res, 400, { error: 'unsupported_grant_type' })
      return
    }
    json(res, 404, { error: 'not_found' })
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      json(res, 500, { error: 'server_error', error_description: String(error) })
    })
  })
  state.url = await listen(http)
  state.close = () => shutdown(http)
  return state
}

/** An ES256 JWT with `typ` in its header. */
export function signJwt(claims: Record<string, unknown>, privateKey: KeyObject, typ = 'JWT'): string {
  const head = Buffer.from(JSON.stringify({ alg: 'ES256', typ })).toString('base64url')
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url')
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')
  return `${head}.${body}.${signature}`
}

/** The claims of an ES256 JWT whose signature and `typ` check out, else undefined. */
export function verifyJwt(jwt: string, publicKey: KeyObject, typ?: string): Record<string, unknown> | undefined {
  const [head, body, signature] = jwt.split('.')
  if (!head || !body || !signature)
    return undefined
  const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string, typ?: string }
  if (header.alg !== 'ES256' || (typ !== undefined && header.typ !== typ))
    return undefined
  if (!verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))
    return undefined
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
}

/** One token-exchange request as the IdP received it. */
export interface TokenExchangeRequest {
  form: Record<string, string>
}

/** How the test IdP answers a token exchange, when not the normal way. */
export type IdentityProviderBehavior
  = | { kind: 'normal' }
    | { kind: 'refuse', status: number, body: unknown }
    | { kind: 'stall' }
    | { kind: 'huge' }
    | { kind: 'raw', status: number, body: unknown }
    | { kind: 'redirect', location: string }

/**
 * An enterprise IdP that exchanges the ID tokens it issued for ID-JAGs
 * (RFC 8693), for one client (`clientId`, with `clientSecret` when set).
 */
export interface TestIdentityProvider {
  url: string
  tokenEndpoint: string
  publicKey: KeyObject
  clientId: string
  /** An ID token for `sub`, issued to the client (valid for an hour, or `ttl` seconds). */
  idToken: (sub: string, ttl?: number) => string
  exchanges: TokenExchangeRequest[]
  /** Requests whose connection closed before an answer (a client that gave up). */
  abandoned: number
  behavior: IdentityProviderBehavior
  close: () => Promise<void>
}

export async function startIdentityProvider(options: { clientId?: string, clientSecret?: string, resourceClientId?: string, jagTtl?: number } = {}): Promise<TestIdentityProvider> {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const clientId = options.clientId ?? 'agent-at-idp'
  const stalled: ServerResponse[] = []
  const state: TestIdentityProvider = {
    url: '',
    tokenEndpoint: '',
    publicKey: keys.publicKey,
    clientId,
    idToken: (sub, ttl = 3600) => signJwt({ iss: state.url, sub, aud: clientId, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + ttl }, keys.privateKey),
    exchanges: [],
    abandoned: 0,
    behavior: { kind: 'normal' },
    close: async () => {},
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', state.url)
    if (url.pathname !== '/oauth2/token' || req.method !== 'POST') {
      json(res, 404, { error: 'not_found' })
      return
    }
    const form = Object.fromEntries(new URLSearchParams(await readBody(req)))
    state.exchanges.push({ form })
    const behavior = state.behavior
    if (behavior.kind === 'stall') {
      stalled.push(res)
      res.on('close', () => {
        if (!res.writableEnded)
          state.abandoned++
      })
      return
    }
    if (behavior.kind === 'refuse' || behavior.kind === 'raw') {
      json(res, behavior.status, behavior.body)
      return
    }
    if (behavior.kind === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(`{"access_token":"${'x'.repeat(1024 * 1024)}"}`)
      return
    }
    if (behavior.kind === 'redirect') {
      res.writeHead(307, { location: behavior.location })
      res.end()
      return
    }
    const subject = verifyJwt(form.subject_token ?? '', keys.publicKey)
    const now = Math.floor(Date.now() / 1000)
    const wellFormed = form.grant_type === 'urn:ietf:params:oauth:grant-type:token-exchange'
      && form.requested_token_type === 'urn:ietf:params:oauth:token-type:id-jag'
      && form.subject_token_type === 'urn:ietf:params:oauth:token-type:id_token'
      && !!form.audience && !!form.resource
    if (!wellFormed) {
      json(res, 400, { error: 'invalid_request', error_description: 'not an ID-JAG token exchange' })
      return
    }
    if (form.client_id !== clientId || (options.clientSecret !== undefined && form.client_secret !== options.clientSecret)) {
      json(res, 401, { error: 'invalid_client' })
      return
    }
    if (!subject || subject.aud !== clientId || typeof subject.exp !== 'number' || subject.exp < now) {
      json(res, 400, { error: 'invalid_grant', error_description: 'the ID token is expired or not ours' })
      return
    }
    const jag = signJwt({
      iss: state.url,
      sub: subject.sub,
      aud: form.audience,
      // The IdP knows which client this client is at the resource's authorization server.
      client_id: options.resourceClientId ?? 'agent',
      resource: form.resource,
      ...(form.scope ? { scope: form.scope } : {}),
      jti: randomUUID(),
      iat: now,
      exp: now + (options.jagTtl ?? 300),
    }, keys.privateKey, ID_JAG_TYP)
    json(res, 200, { access_token: jag, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A', expires_in: options.jagTtl ?? 300 })
  }
  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      json(res, 500, { error: 'server_error', error_description: String(error) })
    })
  })
  state.url = await listen(http)
  state.tokenEndpoint = `${state.url}/oauth2/token`
  state.close = async () => {
    for (const res of stalled)
      res.destroy()
    await shutdown(http)
  }
  return state
}

/**
 * An MCP server that wants `Authorization: Bearer <token>` from `auth`, over
 * streamable HTTP (`url`) and the legacy SSE transport (`sseUrl`).
 */
export interface ProtectedMcpServer {
  url: string
  sseUrl: string
  /** Requests answered 401 (or 403). */
  rejected: number
  /** Every refusal: HTTP status, the JSON-RPC methods (or the HTTP method) and the `WWW-Authenticate` sent. */
  refusals: Array<{ status: number, methods: string[], challenge: string }>
  /** Bearer tokens of the requests let through. */
  accepted: string[]
  close: () => Promise<void>
}

const RESOURCE_METADATA = '/.well-known/oauth-protected-resource'

/** How a protected server decides, per request, what it needs. */
export interface ProtectedServerOptions {
  /** JSON-RPC methods served without a token (`'GET'` / `'DELETE'` name those HTTP requests). */
  open?: string[]
  /** Scopes each request needs, keyed by JSON-RPC method or `tools/call:<tool>`; named in the challenges. */
  scopes?: Record<string, string>
  /** Refuse every protected request with 401, valid token or not. */
  refuseAll?: boolean
}

/** What the requests in one POST body (or one GET / DELETE) are. */
function requestMethods(req: IncomingMessage, body: unknown): string[] {
  if (req.method !== 'POST')
    return [req.method ?? 'GET']
  return (Array.isArray(body) ? body : [body]).map((message) => {
    const m = message as { method?: string, params?: { name?: string } } | undefined
    if (!m?.method)
      return '(response)'
    return m.method === 'tools/call' ? `tools/call:${m.params?.name}` : m.method
  })
}

export async function startProtectedMcpServer(auth: TestAuthServer, options: ProtectedServerOptions = {}): Promise<ProtectedMcpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport, server: McpServer }>()
  const sseSessions = new Map<string, { transport: SSEServerTransport, server: McpServer }>()
  const state: ProtectedMcpServer = { url: '', sseUrl: '', rejected: 0, refusals: [], accepted: [], close: async () => {} }
  const open = new Set(options.open ?? [])
  const needed = (methods: string[]) => [...new Set(methods.flatMap(m => (options.scopes?.[m] ?? options.scopes?.[m.split(':')[0]] ?? '').split(' ')).filter(Boolean))].join(' ')
  let origin = ''
  const build = () => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' })
    server.registerTool('add', {
      description: 'Add two numbers',
      inputSchema: { a: z.number(), b: z.number() },
    }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
    server.registerTool('write', {
      description: 'Write a note',
      inputSchema: { note: z.string() },
    }, async ({ note }) => ({ content: [{ type: 'text', text: `wrote ${note}` }] }))
    return server
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin)
    if (url.pathname.startsWith(RESOURCE_METADATA)) {
      // One resource per transport: the metadata path ends with the endpoint it describes.
      const resource = url.pathname.slice(RESOURCE_METADATA.length) || '/mcp'
      json(res, 200, { resource: `${origin}${resource}`, authorization_servers: [auth.url], bearer_methods_supported: ['header'] })
      return
    }
    const resource = url.pathname === '/mcp' ? '/mcp' : url.pathname === '/sse' || url.pathname === '/messages' ? '/sse' : undefined
    if (!resource) {
      json(res, 404, { error: 'not_found' })
      return
    }
    const text = req.method === 'POST' ? await readBody(req) : ''
    const body = text ? JSON.parse(text) as unknown : undefined
    const methods = requestMethods(req, body)
    const bearer = req.headers.authorization?.match(BEARER)?.[1]
    if (!methods.every(m => open.has(m))) {
      const scope = needed(methods)
      const refuse = (status: 401 | 403, error: string) => {
        state.rejected++
        const challenge = `Bearer error="${error}"${scope ? `, scope="${scope}"` : ''}, resource_metadata="${origin}${RESOURCE_METADATA}${resource}"`
        state.refusals.push({ status, methods, challenge })
        json(res, status, { error }, { 'www-authenticate': challenge })
      }
      if (!bearer || !auth.isValid(bearer) || options.refuseAll)
        return refuse(401, 'invalid_token')
      if (!auth.isValid(bearer, scope))
        return refuse(403, 'insufficient_scope')
      state.accepted.push(bearer)
    }
    if (url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res)
      const entry = { transport, server: build() }
      sseSessions.set(transport.sessionId, entry)
      res.on('close', () => void sseSessions.delete(transport.sessionId))
      await entry.server.connect(transport)
      return
    }
    if (url.pathname === '/messages') {
      const entry = sseSessions.get(url.searchParams.get('sessionId') ?? '')
      if (!entry) {
        json(res, 404, { error: 'unknown_session' })
        return
      }
      await entry.transport.handlePostMessage(req, res, body)
      return
    }
    const entry = await streamableSession(sessions, req, () => build())
    await entry.transport.handleRequest(req, res, body)
  }
  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })
  origin = await listen(http)
  state.url = `${origin}/mcp`
  state.sseUrl = `${origin}/sse`
  state.close = async () => {
    await Promise.all([...sessions.values(), ...sseSessions.values()].map(s => s.server.close().catch(() => {})))
    await shutdown(http)
  }
  return state
}

/** Whether anything still listens on a loopback URL's port. */
export async function listening(url: string): Promise<boolean> {
  try {
    await fetch(url)
    return true
  }
  catch {
    return false
  }
}

/** A free loopback port (bound and released). */
export async function freePort(): Promise<number> {
  const server = createServer()
  const url = await listen(server)
  await shutdown(server)
  return Number(new URL(url).port)
}

/**
 * `onAuthRequired` acting as the user's browser: it opens the authorization
 * URL, and following the redirect lands on the loopback callback.
 */
export function browser() {
  const seen: Array<{ server: string, url: string, authorizationUrl?: string, error?: Error }> = []
  const pages: string[] = []
  const onAuthRequired = async (ctx: { server: string, url: string, authorizationUrl?: string, error?: Error }) => {
    seen.push(ctx)
    if (!ctx.authorizationUrl)
      return
    const response = await fetch(ctx.authorizationUrl)
    pages.push(await response.text())
  }
  return { seen, pages, onAuthRequired }
}
