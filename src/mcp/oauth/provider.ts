import type { AddClientAuthentication, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { LoopbackCallback } from './callback-server'
import type { McpCredentialStore, McpStoredCredentials } from './types'
import { randomBytes } from 'node:crypto'
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js'
import { mergeObjects } from '../../core/merge-objects'
import { CALLBACK_PATH, startLoopbackCallback } from './callback-server'
import { JWT_BEARER_GRANT } from './identity-assertion'

/** Where the ID-JAG of a JWT bearer grant is for: the MCP authorization server and the MCP server. */
export interface AssertionTarget {
  /** The authorization server's issuer (the ID-JAG's audience). */
  audience: string
  /** The MCP server's resource identifier from its protected-resource metadata, when it has any. */
  resource?: string
  scope?: string
}

/** A client with no user (`grantType: 'client_credentials'` or `'jwt_bearer'`), already expanded. */
export interface MachineClientInit {
  grant: 'client_credentials' | 'jwt_bearer'
  /** Absent: what the authorization server supports, Basic when there is a secret. */
  method?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt'
  /** PEM (PKCS#8) key for `private_key_jwt`; absent: `private_key` saved in the store for this server. */
  privateKey?: string
  /** JWS algorithm of the assertion. */
  signingAlgorithm: string
  /** For `jwt_bearer`: get a fresh ID-JAG from the identity provider. */
  assertion?: (target: AssertionTarget) => Promise<string>
}

export interface StoreOAuthProviderInit {
  /** Store key of the server (see `mcpCredentialKey`). */
  key: string
  store: McpCredentialStore
  /** `client_name` sent with dynamic registration. */
  clientName: string
  /** A pre-registered client (already expanded): dynamic registration is then never used. */
  client?: { clientId: string, clientSecret?: string }
  /** Space-separated scopes to ask for when the server does not name any. */
  scope?: string
  /** Pin the loopback redirect to this port. */
  callbackPort?: number
  /** Set for the grants without a user (client credentials, JWT bearer): no redirect, no registration. */
  machine?: MachineClientInit
}

/** An authorization the user has to approve. */
export interface PendingAuthorization {
  url: URL
  state: string
}

/**
 * Thrown inside the SDK's `auth()` when a silent run (a refresh, from the
 * request path) reaches a step that needs the user: a registration or a new
 * authorization. Nothing is registered and no URL is built; the request fails
 * with its 401 and the session runs the interactive flow.
 */
export class OAuthInteractionNeeded extends Error {
  override name = 'OAuthInteractionNeeded'
}

function loopbackPort(uri: unknown): number | undefined {
  if (typeof uri !== 'string')
    return undefined
  try {
    const url = new URL(uri)
    if (url.protocol === 'http:' && url.hostname === '127.0.0.1' && url.pathname === CALLBACK_PATH && url.port)
      return Number(url.port)
  }
  catch {}
  return undefined
}

function isEmpty(record: McpStoredCredentials): boolean {
  return !record.tokens && !record.client && !record.codeVerifier
}

/**
 * The SDK's `OAuthClientProvider` over a `McpCredentialStore`: everything it
 * saves is written through to the store under one key, so tokens and the
 * client registration outlive the connection.
 *
 * It runs in one of two modes. Silent (the default) only ever refreshes or,
 * for the grants without a user, asks for a new token: a step that needs
 * the user throws `OAuthInteractionNeeded`. Between `beginInteractive()` and
 * `endInteractive()` it owns the loopback callback listener, whose real port
 * is what a dynamic registration names, so the redirect URI registered is
 * one that something listens on.
 */
export class StoreOAuthProvider implements OAuthClientProvider {
  private record: McpStoredCredentials = {}
  private discovery?: OAuthDiscoveryState
  private listener?: Promise<LoopbackCallback>
  private interactive = false
  private pending?: PendingAuthorization
  private lastState?: string
  /** Redirect URI of the listener started in this attempt. */
  private boundUrl?: string
  /** Scope of the grant being asked for, kept with the tokens when the server does not echo it. */
  private requestedScope?: string
  private writes: Promise<void> = Promise.resolve()
  readonly addClientAuthentication?: AddClientAuthentication

  constructor(private readonly init: StoreOAuthProviderInit) {
    const cc = init.machine
    if (cc?.method === 'private_key_jwt') {
      // The key is read when a token is asked for, so one saved in the store after connecting is used.
      this.addClientAuthentication = async (headers, params, url, metadata) => {
        const privateKey = cc.privateKey ?? this.storedString('private_key')
        if (!privateKey)
          throw new Error('private_key_jwt needs oauth.privateKey, or a private_key saved in the credential store for this server')
        const clientId = init.client!.clientId
        const sign = createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg: cc.signingAlgorithm })
        params.set('client_id', clientId)
        await sign(headers, params, url, metadata)
      }
    }
  }

  /** Read the store afresh (another connection may have rotated the tokens). */
  async reload(): Promise<void> {
    await this.writes
    this.record = (await this.init.store.load(this.init.key)) ?? {}
  }

  /** The access token requests are sent with, if any. */
  accessToken(): string | undefined {
    return this.record.tokens?.access_token
  }

  /** The scope the current token was granted (as the server said, or as it was asked for). */
  grantedScope(): string | undefined {
    return this.record.tokens?.scope
  }

  /** Whether the stored access token is past its `expires_at` (with a small margin). */
  expired(now = Date.now()): boolean {
    const expiresAt = this.record.tokens?.expires_at
    return typeof expiresAt === 'number' && expiresAt - 5_000 <= now
  }

  /** Whether a token can be had without the user: a refresh token is stored, or the grant needs no user. */
  canRenewSilently(): boolean {
    return !!this.init.machine || !!this.record.tokens?.refresh_token
  }

  /**
   * Start an interactive attempt: the loopback listener is bound (unless its
   * port is pinned) before anything is registered. The refresh token is
   * hidden meanwhile: the request path already tried it, and a step-up needs
   * a new grant anyway (a refresh cannot widen the scope).
   */
  async beginInteractive(options: { scope?: string }): Promise<void> {
    this.interactive = true
    this.requestedScope = options.scope
    this.pending = undefined
    await this.reload()
    if (this.init.callbackPort === undefined)
      this.boundUrl = (await this.ensureListener()).redirectUrl
  }

  /** Close the loopback listener and go back to silent mode. */
  async endInteractive(): Promise<void> {
    this.interactive = false
    this.boundUrl = undefined
    this.pending = undefined
    const listener = this.listener
    this.listener = undefined
    if (listener)
      await listener.then(l => l.close(), () => {})
  }

  /** A silent run (refresh, or a grant without a user) asking for `scope`. */
  prepareSilent(scope: string | undefined): void {
    this.requestedScope = scope
  }

  /** The authorization the SDK asked the user for, if any. */
  takeAuthorization(): PendingAuthorization | undefined {
    const pending = this.pending
    this.pending = undefined
    return pending
  }

  /** The running loopback listener. */
  async callback(): Promise<LoopbackCallback | undefined> {
    return this.listener
  }

  private storedString(field: string): string | undefined {
    const value = this.record.client?.[field]
    return typeof value === 'string' && value !== '' ? value : undefined
  }

  private update(change: (record: McpStoredCredentials) => McpStoredCredentials): Promise<void> {
    this.record = change({ ...this.record })
    const snapshot = this.record
    const write = this.writes.then(() => isEmpty(snapshot)
      ? this.init.store.delete(this.init.key)
      : this.init.store.save(this.init.key, snapshot))
    this.writes = write.catch(() => {})
    return write
  }

  /** Port of a loopback redirect URI the stored dynamic registration was made for. */
  private registeredPort(): number | undefined {
    const uris = this.init.client ? undefined : this.record.client?.redirect_uris
    return Array.isArray(uris) ? loopbackPort(uris[0]) : undefined
  }

  /** Start the loopback listener once per attempt: the pinned port, else the registered one when free, else any. */
  private ensureListener(): Promise<LoopbackCallback> {
    if (!this.listener) {
      const pinned = this.init.callbackPort
      const registered = this.registeredPort()
      this.listener = pinned !== undefined
        ? startLoopbackCallback(pinned)
        : registered !== undefined
          ? startLoopbackCallback(registered).catch(() => startLoopbackCallback(0))
          : startLoopbackCallback(0)
      // A failed start must not stay cached: the next attempt tries again.
      const started = this.listener
      started.catch(() => {
        if (this.listener === started)
          this.listener = undefined
      })
    }
    return this.listener
  }

  /** Absent for the grants without a user: that is how the SDK knows the flow is not interactive. */
  get redirectUrl(): string | undefined {
    if (this.init.machine)
      return undefined
    if (this.boundUrl)
      return this.boundUrl
    const port = this.init.callbackPort ?? this.registeredPort()
    // The port-less form only tells the SDK the flow is interactive (so it tries a refresh); it is
    // never registered or sent, since both happen in an interactive attempt, after the listener is bound.
    return port !== undefined ? `http://127.0.0.1:${port}${CALLBACK_PATH}` : `http://127.0.0.1${CALLBACK_PATH}`
  }

  get clientMetadata(): OAuthClientMetadata {
    const cc = this.init.machine
    const scope = this.requestedScope ?? this.init.scope
    if (cc) {
      return {
        client_name: this.init.clientName,
        redirect_uris: [],
        grant_types: [cc.grant === 'jwt_bearer' ? JWT_BEARER_GRANT : 'client_credentials'],
        ...(cc.method ? { token_endpoint_auth_method: cc.method } : {}),
        ...(scope ? { scope } : {}),
      }
    }
    return {
      client_name: this.init.clientName,
      redirect_uris: [this.redirectUrl!],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scope ? { scope } : {}),
    }
  }

  /** Re-read the store at the start of every SDK `auth()` run. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    await this.reload()
    return this.discovery
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state
  }

  /** Called right before the authorization URL is built: only an interactive attempt gets that far. */
  async state(): Promise<string> {
    if (!this.interactive)
      throw new OAuthInteractionNeeded('the server needs a new authorization from the user')
    this.boundUrl = (await this.ensureListener()).redirectUrl
    this.lastState = randomBytes(24).toString('base64url')
    return this.lastState
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = this.record.client
    if (this.init.client) {
      const { clientId, clientSecret } = this.init.client
      // A secret the host saved for this server applies when it names no other client.
      const storedSecret = stored && (stored.client_id === undefined || stored.client_id === clientId) ? stored.client_secret : undefined
      const secret = clientSecret || storedSecret
      const method = this.init.machine?.method
      const info: OAuthClientInformationMixed = secret ? { client_id: clientId, client_secret: secret } : { client_id: clientId }
      return method && method !== 'private_key_jwt' ? mergeObjects(info, { token_endpoint_auth_method: method }) : info
    }
    if (!stored?.client_id) {
      // Registering outside an interactive attempt would name a redirect URI nothing listens on.
      if (!this.interactive)
        throw new OAuthInteractionNeeded('no OAuth client is registered for this server yet')
      return undefined
    }
    // A registration made for another loopback port would be refused at the authorize step: register again.
    const uris = stored.redirect_uris
    if (this.interactive && Array.isArray(uris) && !uris.includes(this.redirectUrl))
      return undefined
    return stored as OAuthClientInformationMixed
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client belongs to the config (and maybe the host); only registrations are kept.
    if (this.init.client)
      return
    await this.update(record => (mergeObjects(record, { client: { ...information } })))
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = this.record.tokens
    if (!tokens)
      return undefined
    const { expires_at: _expiresAt, ...rest } = tokens
    if (this.interactive) {
      const { refresh_token: _refresh, ...withoutRefresh } = rest
      return withoutRefresh
    }
    return rest
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = typeof tokens.expires_in === 'number' ? Date.now() + tokens.expires_in * 1000 : undefined
    const scope = tokens.scope ?? this.requestedScope
    await this.update(({ codeVerifier: _verifier, ...record }) => (mergeObjects(record, { tokens: mergeObjects(tokens, (tokens.refresh_token === undefined && record.tokens?.refresh_token && !this.init.machine ? { refresh_token: record.tokens.refresh_token } : {}), (scope ? { scope } : {}), (expiresAt !== undefined ? { expires_at: expiresAt } : {})) })))
  }

  /**
   * The grants without a user; the SDK uses the authorization-code exchange
   * when this returns nothing. The JWT bearer grant first gets a fresh
   * ID-JAG for the authorization server that discovery just found (the SDK
   * saves the discovery state before it asks for the token request).
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const machine = this.init.machine
    if (!machine)
      return undefined
    const wanted = this.requestedScope ?? scope
    let params: URLSearchParams
    if (machine.grant === 'jwt_bearer') {
      const discovery = this.discovery
      if (!discovery || !machine.assertion)
        throw new Error('the JWT bearer grant needs the authorization server\'s metadata (discovery did not run)')
      const audience = discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl
      const assertion = await machine.assertion({ audience, resource: discovery.resourceMetadata?.resource, ...(wanted ? { scope: wanted } : {}) })
      params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion })
    }
    else {
      params = new URLSearchParams({ grant_type: 'client_credentials' })
    }
    if (wanted)
      params.set('scope', wanted)
    return params
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.pending = { url: authorizationUrl, state: this.lastState ?? authorizationUrl.searchParams.get('state') ?? '' }
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update(record => (mergeObjects(record, { codeVerifier })))
  }

  async codeVerifier(): Promise<string> {
    if (!this.record.codeVerifier)
      throw new Error('no PKCE code verifier is saved for this authorization')
    return this.record.codeVerifier
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'discovery')
      this.discovery = undefined
    if (scope === 'discovery')
      return
    const dropClient = (scope === 'all' || scope === 'client') && !this.init.client
    const dropTokens = scope === 'all' || scope === 'tokens'
    const dropVerifier = scope === 'all' || scope === 'verifier'
    await this.update(record => (mergeObjects(record, { client: dropClient ? undefined : record.client, tokens: dropTokens ? undefined : record.tokens, codeVerifier: dropVerifier ? undefined : record.codeVerifier })))
  }
}
