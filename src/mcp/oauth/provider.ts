import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { LoopbackCallback } from './callback-server'
import type { McpCredentialStore, McpStoredCredentials } from './types'
import { randomBytes } from 'node:crypto'
import { CALLBACK_PATH, startLoopbackCallback } from './callback-server'

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
}

/** An authorization the user has to approve. */
export interface PendingAuthorization {
  url: URL
  state: string
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
 * While a connection attempt runs (between `begin()` and `end()`) it also owns
 * the loopback callback listener: it starts when the SDK begins an
 * authorization (so a connection whose tokens are still good never opens a
 * port) and is closed by `end()`.
 */
export class StoreOAuthProvider implements OAuthClientProvider {
  private record: McpStoredCredentials = {}
  private discovery?: OAuthDiscoveryState
  private listener?: Promise<LoopbackCallback>
  private attempting = false
  private pending?: PendingAuthorization
  private lastState?: string
  /** Redirect URI of the listener started in this attempt. */
  private boundUrl?: string
  private writes: Promise<void> = Promise.resolve()
  /** An SDK `auth()` run has started and has neither saved tokens nor asked for the user. */
  authInFlight = false

  constructor(private readonly init: StoreOAuthProviderInit) {}

  /** Start a connection attempt: read the store afresh, and allow the loopback listener. */
  async begin(): Promise<void> {
    this.attempting = true
    this.authInFlight = false
    this.pending = undefined
    await this.reload()
  }

  /** Close the loopback listener; an authorization started later (mid-session) cannot be completed. */
  async end(): Promise<void> {
    this.attempting = false
    this.boundUrl = undefined
    const listener = this.listener
    this.listener = undefined
    if (listener)
      await listener.then(l => l.close(), () => {})
  }

  /** The authorization the SDK asked the user for since the last call, if any. */
  takeAuthorization(): PendingAuthorization | undefined {
    const pending = this.pending
    this.pending = undefined
    return pending
  }

  /** The running loopback listener (started by the SDK's authorization request). */
  async callback(): Promise<LoopbackCallback | undefined> {
    return this.listener
  }

  private async reload(): Promise<void> {
    await this.writes
    this.record = (await this.init.store.load(this.init.key)) ?? {}
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

  get redirectUrl(): string {
    if (this.boundUrl)
      return this.boundUrl
    const port = this.init.callbackPort ?? this.registeredPort()
    return port !== undefined ? `http://127.0.0.1:${port}${CALLBACK_PATH}` : `http://127.0.0.1${CALLBACK_PATH}`
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.init.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.init.scope ? { scope: this.init.scope } : {}),
    }
  }

  /**
   * The SDK calls this first in every `auth()` run. That is where the flow
   * re-reads the store (another connection may have rotated the refresh
   * token) and, unless the redirect port is pinned, starts the listener: its
   * port must be known before a dynamic registration names the redirect URI.
   */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    this.authInFlight = true
    await this.reload()
    if (this.attempting && this.init.callbackPort === undefined)
      this.boundUrl = (await this.ensureListener()).redirectUrl
    return this.discovery
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state
  }

  /** Called right before the authorization URL is built: a pinned port is only bound when the user is really needed. */
  async state(): Promise<string> {
    if (this.attempting)
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
      return secret ? { client_id: clientId, client_secret: secret } : { client_id: clientId }
    }
    if (!stored?.client_id)
      return undefined
    // A registration made for another loopback port would be refused at the authorize step: register again.
    const uris = stored.redirect_uris
    if (Array.isArray(uris) && !uris.includes(this.redirectUrl))
      return undefined
    return stored as OAuthClientInformationMixed
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client belongs to the config (and maybe the host); only registrations are kept.
    if (this.init.client)
      return
    await this.update(record => ({ ...record, client: { ...information } }))
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = this.record.tokens
    if (!tokens)
      return undefined
    const { expires_at: _expiresAt, ...rest } = tokens
    return rest
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.authInFlight = false
    const expiresAt = typeof tokens.expires_in === 'number' ? Date.now() + tokens.expires_in * 1000 : undefined
    await this.update(({ codeVerifier: _verifier, ...record }) => ({
      ...record,
      tokens: { ...tokens, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) },
    }))
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authInFlight = false
    this.pending = { url: authorizationUrl, state: this.lastState ?? authorizationUrl.searchParams.get('state') ?? '' }
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update(record => ({ ...record, codeVerifier }))
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
    await this.update(record => ({
      ...record,
      client: dropClient ? undefined : record.client,
      tokens: dropTokens ? undefined : record.tokens,
      codeVerifier: dropVerifier ? undefined : record.codeVerifier,
    }))
  }
}
