import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ConnectMcpServersOptions, McpAuthRequiredContext, McpServerConfig } from '../types'
import type { AuthChallenge } from './challenge'
import type { AssertionTarget, PendingAuthorization } from './provider'
import type { McpCredentialStore } from './types'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import { createFetchWithInit } from '@modelcontextprotocol/sdk/shared/transport.js'
import { mergeObjects } from '../../core/merge-objects'
import { withTimeout } from '../../core/timeout'
import { MAX_TIMER_DELAY_MS } from '../../core/timer'
import { McpIdentityAssertionError, OperationTimeoutError } from '../../errors'
import { pinnedTransportOptions } from '../pinned-fetch'
import { covers, isAuthError, isAuthRefusal, mergeScopes, readChallenge } from './challenge'
import { isClientCredentialsConfig, isJwtBearerConfig, isOAuthConfig } from './config'
import { StoreOAuthProvider } from './provider'
import { authorizationServerRefusal, identityAssertion } from './session-assertion'
import { mcpCredentialKey } from './stores'

export { isOAuthConfig, normalizeServerConfig, validateOAuthConfig } from './config'

/** How long the user gets to approve access in the browser, by default. */
export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 120_000

/**
 * How many times one operation (a server's bootstrap, or one later request)
 * may run the authorization flow before it gives up with
 * `McpAuthRequiredError`: enough for a first login plus one step-up, few
 * enough that a server refusing every token cannot send the user round in
 * circles.
 */
export const MAX_AUTHORIZATIONS_PER_REQUEST = 2

/**
 * An OAuth server needs the user to approve access, and this connection could
 * not get that approval: no `onAuthRequired` handler was given (a headless
 * host), the user did not finish in time, the authorization was refused, or
 * the server kept refusing after `MAX_AUTHORIZATIONS_PER_REQUEST` rounds.
 */
export class McpAuthRequiredError extends Error {
  override name = 'McpAuthRequiredError'
  /** Configured server name. */
  readonly server: string
  /** Where the user approves access, when the flow got that far. */
  readonly authorizationUrl?: string
  constructor(server: string, message: string, options: { authorizationUrl?: string, cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.server = server
    this.authorizationUrl = options.authorizationUrl
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit {
  const headers = new Headers(init?.headers)
  if (token)
    headers.set('authorization', `Bearer ${token}`)
  return mergeObjects(init, { headers })
}

/** Settle with `work`, or reject as soon as `signal` aborts (the authorization goes on for whoever else waits). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal)
    return work
  if (signal.aborted)
    return Promise.reject(asError(signal.reason))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(asError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Authorization rounds already spent by one operation. */
export interface OAuthBudget {
  used: number
}

export interface OAuthRunOptions {
  /** Share one budget across the steps of an operation (bootstrap: connect, then list). */
  budget?: OAuthBudget
  /** Stop waiting for an authorization when this aborts (the run's signal). */
  signal?: AbortSignal
  /** Stop the caller's own timer while the user is away; returns what restarts it. */
  pause?: () => () => void
}

/**
 * The OAuth side of one server's connection.
 *
 * Every HTTP request to the server goes through `wrapFetch`: it adds the
 * bearer token, renews an expired one first, and on a 401 (or a 403 with
 * `insufficient_scope`) records the challenge and tries a silent renewal
 * (refresh, or a new client-credentials token) before retrying once.
 *
 * Every MCP operation goes through `run`: when it fails on a challenge that
 * only the user can answer, the flow starts the loopback listener, registers
 * (once) with that listener's real redirect URI, hands the authorization URL
 * to `onAuthRequired`, exchanges the code and runs the operation again, at
 * most `MAX_AUTHORIZATIONS_PER_REQUEST` times.
 */
export class McpOAuthSession {
  readonly provider: StoreOAuthProvider
  private disposed = false
  private readonly authorizationTimeoutMs: number
  private readonly serverUrl: URL
  /** A grant without a user (client credentials, or JWT bearer): a refused token means asking for a new one. */
  private readonly machine: boolean
  /** Enterprise-managed authorization: the token request starts with a token exchange at the identity provider. */
  private readonly jwtBearer: boolean
  /** Aborts pending identity-provider exchanges when the server is closed. */
  private readonly closing = new AbortController()
  /** Fetch of the OAuth exchange itself (discovery, registration, tokens): never carries the bearer token. */
  private readonly authFetch: FetchLike
  private challenge?: AuthChallenge
  private seq = 0
  private ready?: Promise<void>
  private silent?: Promise<boolean>
  private authorizing?: Promise<void>

  constructor(
    private readonly config: McpServerConfig,
    private readonly options: ConnectMcpServersOptions,
    store: McpCredentialStore,
    private readonly bootstrapTimeoutMs: number,
  ) {
    const timeout = options.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS
    this.authorizationTimeoutMs = timeout > 0 && timeout <= MAX_TIMER_DELAY_MS ? timeout : 0
    this.serverUrl = new URL(config.url!)
    this.jwtBearer = isJwtBearerConfig(config)
    this.machine = this.jwtBearer || isClientCredentialsConfig(config)
    const oauth = config.oauth
    this.provider = new StoreOAuthProvider({
      key: mcpCredentialKey(config),
      store,
      clientName: options.clientInfo?.name ?? 'zidane',
      client: oauth ? { clientId: oauth.clientId, clientSecret: oauth.clientSecret || undefined } : undefined,
      scope: oauth?.scope,
      callbackPort: oauth?.callbackPort,
      machine: this.machine
        ? {
            grant: this.jwtBearer ? 'jwt_bearer' : 'client_credentials',
            // Client credentials default to Basic, as before; a JWT bearer client follows the server's metadata.
            method: oauth?.tokenEndpointAuthMethod ?? (this.jwtBearer ? undefined : 'client_secret_basic'),
            privateKey: oauth?.privateKey,
            signingAlgorithm: oauth?.signingAlgorithm ?? 'RS256',
            ...(this.jwtBearer
              ? { assertion: (target: AssertionTarget) => identityAssertion({ config, options, serverUrl: this.serverUrl, bootstrapTimeoutMs, signal: this.closing.signal }, target) }
              : {}),
          }
        : undefined,
    })
    // The same fetch and extra headers the SDK's own flow would use.
    this.authFetch = createFetchWithInit(pinnedTransportOptions(config)?.fetch, config.headers ? { headers: { ...config.headers } } : undefined)
  }

  /**
   * The bound on this server's whole bootstrap: `bootstrapTimeout` for each
   * attempt, and `authorizationTimeoutMs` for each time the user is asked,
   * up to `MAX_AUTHORIZATIONS_PER_REQUEST`. Each step also has its own
   * bound. `0`: no bound.
   */
  bootstrapBound(): number {
    const rounds = MAX_AUTHORIZATIONS_PER_REQUEST
    // A JWT bearer token request is two exchanges (identity provider, then authorization server), each bounded.
    if (this.jwtBearer)
      return this.bootstrapTimeoutMs > 0 ? Math.min((rounds + 1 + 2 * rounds) * this.bootstrapTimeoutMs, MAX_TIMER_DELAY_MS) : 0
    if (this.machine || !this.options.onAuthRequired)
      return this.bootstrapTimeoutMs > 0 ? Math.min((rounds + 1) * this.bootstrapTimeoutMs, MAX_TIMER_DELAY_MS) : 0
    if (!(this.bootstrapTimeoutMs > 0) || this.authorizationTimeoutMs === 0)
      return 0
    const total = (2 * rounds + 1) * this.bootstrapTimeoutMs + rounds * this.authorizationTimeoutMs
    return total <= MAX_TIMER_DELAY_MS ? total : 0
  }

  /** A transport's fetch: `base` with the bearer token, silent renewal and challenge tracking. */
  wrapFetch(base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
    const origin = this.serverUrl.origin
    return async (input, init) => {
      if (new URL(input).origin !== origin)
        return base(input, init)
      await this.loaded()
      if (this.provider.expired() && this.provider.canRenewSilently())
        await this.renewSilently(undefined, this.provider.accessToken())
      const sent = this.provider.accessToken()
      let response = await base(input, withBearer(init, sent))
      const challenge = readChallenge(response)
      if (!challenge)
        return response
      this.note(challenge)
      // A refresh cannot widen a grant: a step-up needs the user (or, with client credentials, a new token).
      if ((this.isStepUp(challenge) && !this.machine && sent) || !(await this.renewSilently(challenge, sent)))
        return response
      await response.body?.cancel().catch(() => {})
      response = await base(input, withBearer(init, this.provider.accessToken()))
      const again = readChallenge(response)
      if (again)
        this.note(again)
      return response
    }
  }

  /**
   * Run one MCP operation, authorizing in between when the server asks for
   * it. `op` must start afresh each time (a new connect, or a new request).
   */
  async run<T>(op: () => Promise<T>, options: OAuthRunOptions = {}): Promise<T> {
    const budget = options.budget ?? { used: 0 }
    const name = this.config.name
    for (;;) {
      if (this.disposed)
        throw new Error(`MCP server "${name}" is closed`)
      // Outside the try: its failures are already reported, like those of an authorization below.
      await this.renewExpiredAssertionGrant(options.signal)
      const mark = this.seq
      try {
        return await op()
      }
      catch (error) {
        const challenge = this.challenge
        if (this.disposed || !challenge || challenge.seq <= mark || !isAuthRefusal(error))
          throw this.failure(error)
        if (budget.used >= MAX_AUTHORIZATIONS_PER_REQUEST) {
          throw this.failure(new McpAuthRequiredError(name, `MCP server "${name}" still refuses access (HTTP ${challenge.status}${challenge.scope ? `, scope "${challenge.scope}"` : ''}) `
            + `after ${MAX_AUTHORIZATIONS_PER_REQUEST} authorizations (MAX_AUTHORIZATIONS_PER_REQUEST)`, { cause: error }))
        }
        budget.used++
        const resume = options.pause?.()
        try {
          await untilAborted(this.authorizeOnce(challenge, error), options.signal)
        }
        finally {
          resume?.()
        }
      }
    }
  }

  /** Stop waiting for the user and close the loopback listener (the server is being closed). */
  dispose(): void {
    this.disposed = true
    this.closing.abort(new Error(`MCP server "${this.config.name}" was closed`))
    void this.provider.endInteractive()
  }

  /**
   * Enterprise-managed authorization: a token known to be past its
   * `expires_at` is replaced before the operation, here rather than in the
   * request path, so that a refusal reaches the caller as a typed error.
   */
  private async renewExpiredAssertionGrant(signal: AbortSignal | undefined): Promise<void> {
    if (!this.jwtBearer)
      return
    await this.loaded()
    if (!this.provider.expired())
      return
    await this.provider.reload()
    if (this.provider.expired())
      await untilAborted(this.authorizeOnce({ status: 401, seq: this.seq }, undefined), signal)
  }

  private loaded(): Promise<void> {
    this.ready ??= this.provider.reload().catch((error: unknown) => {
      this.ready = undefined
      throw error
    })
    return this.ready
  }

  private note(challenge: Omit<AuthChallenge, 'seq'>): void {
    this.challenge = mergeObjects(challenge, { seq: ++this.seq })
  }

  /** A 403 asking for more scope, or a 401 naming scopes the current grant (when known) lacks. */
  private isStepUp(challenge: Omit<AuthChallenge, 'seq'>): boolean {
    const granted = this.provider.grantedScope()
    return challenge.status === 403 || (granted !== undefined && !covers(granted, challenge.scope))
  }

  /** The scopes to ask for: the challenge's, plus what is granted already so the new token keeps it. */
  private scopeFor(challenge: Omit<AuthChallenge, 'seq'> | undefined): string | undefined {
    return mergeScopes(this.provider.grantedScope(), challenge?.scope)
  }

  /**
   * Get a working token without the user: another connection's newer token
   * from the store, a refresh, or a client-credentials grant. Concurrent
   * callers share one run. Resolves false when only the user can help.
   */
  private renewSilently(challenge: Omit<AuthChallenge, 'seq'> | undefined, sent: string | undefined): Promise<boolean> {
    this.silent ??= (async () => {
      await this.provider.reload()
      const current = this.provider.accessToken()
      if (current && current !== sent && !this.provider.expired())
        return true
      // Enterprise-managed authorization renews in `run` instead, where a refusal reaches the caller as a typed error.
      if (!this.provider.canRenewSilently() || this.jwtBearer)
        return false
      this.provider.prepareSilent(this.scopeFor(challenge))
      const result = await withTimeout(auth(this.provider, {
        serverUrl: this.serverUrl,
        resourceMetadataUrl: challenge?.resourceMetadataUrl,
        scope: this.scopeFor(challenge),
        fetchFn: this.authFetch,
      }), this.bootstrapTimeoutMs, `MCP server "${this.config.name}" token renewal`)
      return result === 'AUTHORIZED'
    })().catch(() => false).finally(() => {
      this.silent = undefined
    })
    return this.silent
  }

  private authorizeOnce(challenge: AuthChallenge, cause: unknown): Promise<void> {
    this.authorizing ??= this.authorize(challenge, cause).finally(() => {
      this.authorizing = undefined
    })
    return this.authorizing
  }

  /** One run of the flow for `challenge`: a new client-credentials token, or the user's approval. */
  private async authorize(challenge: AuthChallenge, cause: unknown): Promise<void> {
    const scope = this.scopeFor(challenge)
    const request = (authorizationCode?: string) => auth(this.provider, {
      serverUrl: this.serverUrl,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      scope,
      fetchFn: this.authFetch,
      ...(authorizationCode !== undefined ? { authorizationCode } : {}),
    })
    const bounded = (work: Promise<string>, what: string) => withTimeout(work, this.bootstrapTimeoutMs, `MCP server "${this.config.name}" ${what}`)
      .catch((error: unknown) => {
        throw this.failure(error, true)
      })

    if (this.machine) {
      // The token in hand was refused: ask for a new one, with the scopes the challenge names.
      await this.provider.reload()
      await this.provider.invalidateCredentials('tokens')
      this.provider.prepareSilent(scope)
      const grant = this.jwtBearer ? 'JWT bearer grant' : 'client-credentials grant'
      // The JWT bearer request holds two bounded exchanges; its own bound leaves room for both.
      const bound = this.jwtBearer ? Math.min(2 * this.bootstrapTimeoutMs, MAX_TIMER_DELAY_MS) : this.bootstrapTimeoutMs
      const work = withTimeout(request(), bound, `MCP server "${this.config.name}" token request`)
      const result = await work.catch((error: unknown) => {
        throw this.failure(error, true)
      })
      if (result !== 'AUTHORIZED')
        throw this.failure(new UnauthorizedError(`the ${grant} gave no token`), true)
      return
    }

    await this.provider.beginInteractive({ scope })
    try {
      if (this.disposed)
        throw new Error(`MCP server "${this.config.name}" was closed while authorizing`)
      if (await bounded(request(), 'authorization') === 'AUTHORIZED')
        return
      const pending = this.provider.takeAuthorization()
      if (!pending)
        throw this.failure(new UnauthorizedError('the authorization server gave no authorization URL'), true)
      const code = await this.askUser(pending, cause)
      if (await bounded(request(code), 'token exchange') !== 'AUTHORIZED')
        throw this.failure(new UnauthorizedError('Failed to authorize'), true)
    }
    finally {
      await this.provider.endInteractive()
    }
  }

  private notify(ctx: Omit<McpAuthRequiredContext, 'server' | 'url'>): Promise<void> {
    const handler = this.options.onAuthRequired
    if (!handler)
      return Promise.resolve()
    return (async () => handler({ server: this.config.name, url: this.config.url ?? '', ...ctx }))()
  }

  /**
   * Discovery, registration or a token request failed (or the resource server
   * refused fresh tokens): say so through `onAuthRequired`, and explain it in
   * the server's error. Other failures (the server is down, …) pass through.
   */
  private failure(error: unknown, fromAuth = false): Error {
    let err = asError(error)
    if (this.jwtBearer && err instanceof OAuthError)
      err = authorizationServerRefusal(this.config.name, err)
    if (err instanceof McpIdentityAssertionError) {
      this.notify({ error: err }).catch(() => {})
      return err
    }
    if (err instanceof McpAuthRequiredError) {
      if (!err.authorizationUrl)
        this.notify({ error: err }).catch(() => {})
      return err
    }
    if (!fromAuth && !isAuthError(err))
      return err
    if (err.message.includes('OAuth authorization failed'))
      return err
    const wrapped = new Error(`MCP server "${this.config.name}": OAuth authorization failed: ${err.message}`, { cause: err })
    this.notify({ error: wrapped }).catch(() => {})
    return wrapped
  }

  /** Show the user where to approve access and wait (bounded) for the loopback callback. */
  private async askUser(pending: PendingAuthorization, cause: unknown): Promise<string> {
    const name = this.config.name
    const authorizationUrl = pending.url.href
    if (!this.options.onAuthRequired) {
      throw new McpAuthRequiredError(name, `MCP server "${name}" needs OAuth authorization, but no onAuthRequired handler was given to send the user to ${authorizationUrl}. `
        + 'Connect from a host that handles onAuthRequired (the agent\'s mcp:auth:required hook), or provide a credential store that already holds tokens for this server.', { authorizationUrl, cause })
    }
    const callback = await this.provider.callback()
    if (!callback || this.disposed)
      throw new Error(`MCP server "${name}": the OAuth callback listener is not running`)
    const code = callback.waitForCode(pending.state)
    const notified = this.notify({ authorizationUrl, error: cause instanceof Error ? cause : undefined })
    code.catch(() => {})
    notified.catch(() => {})
    try {
      return await withTimeout(Promise.race([code, notified.then(() => code)]), this.authorizationTimeoutMs, `MCP server "${name}" authorization`)
    }
    catch (error) {
      if (error instanceof OperationTimeoutError)
        throw new McpAuthRequiredError(name, `MCP server "${name}": the OAuth authorization was not completed within ${this.authorizationTimeoutMs} ms (authorizationTimeoutMs)`, { authorizationUrl, cause: error })
      if (this.disposed)
        throw new Error(`MCP server "${name}" was closed while waiting for authorization`, { cause: error })
      throw new McpAuthRequiredError(name, `MCP server "${name}": the OAuth authorization did not complete: ${asError(error).message}`, { authorizationUrl, cause: error })
    }
  }
}

/**
 * The OAuth session of a server that asks for OAuth (a `lazyConnect` one
 * never does: that combination is rejected), else undefined.
 */
export function createOAuthSession(
  config: McpServerConfig,
  options: ConnectMcpServersOptions,
  store: McpCredentialStore,
  bootstrapTimeoutMs: number,
): McpOAuthSession | undefined {
  if (!isOAuthConfig(config) || config.transport === 'stdio')
    return undefined
  return new McpOAuthSession(config, options, store, bootstrapTimeoutMs)
}
