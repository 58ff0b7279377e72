import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ConnectMcpServersOptions, McpAuthRequiredContext, McpServerConfig } from '../types'
import type { PendingAuthorization } from './provider'
import type { McpCredentialStore } from './types'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import { withTimeout } from '../../agent/operation-timeout'
import { OperationTimeoutError } from '../../errors'
import { StoreOAuthProvider } from './provider'
import { mcpCredentialKey } from './stores'

/** How long the user gets to approve access in the browser, by default. */
export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 120_000

/** Largest delay a Node timer honors; anything longer counts as "no bound". */
const MAX_TIMER_MS = 2_147_483_647

/**
 * An OAuth server needs the user to approve access, and this connection could
 * not get that approval: no `onAuthRequired` handler was given (a headless
 * host), the user did not finish in time, or the authorization was refused.
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

/** Errors that come from the OAuth exchange itself rather than from the MCP connection. */
function isAuthError(error: Error): boolean {
  if (error instanceof UnauthorizedError || error instanceof OAuthError)
    return true
  return (error instanceof StreamableHTTPError || error instanceof SseError) && (error.code === 401 || error.code === 403)
}

/** Whether a (normalized) config asks for OAuth. */
export function isOAuthConfig(config: McpServerConfig): boolean {
  return config.auth === 'oauth' || config.oauth !== undefined
}

/**
 * Map config spellings from other hosts onto ours, before expansion and
 * validation: Cursor's `authMethod: 'mcpOAuth'` means `auth: 'oauth'`, and so
 * does an `oauth` client block on its own.
 */
export function normalizeServerConfig(config: McpServerConfig): McpServerConfig {
  if (config.auth === undefined && (config.authMethod === 'mcpOAuth' || config.oauth !== undefined))
    return { ...config, auth: 'oauth' }
  return config
}

/** Reject OAuth settings this module cannot honor (the config is already expanded). */
export function validateOAuthConfig(config: McpServerConfig, where = `MCP server "${config.name}"`): void {
  if (config.transport === 'stdio')
    throw new Error(`${where}: OAuth needs an sse or streamable-http transport (a stdio server gets its credentials through env)`)
  const client = config.oauth
  if (client) {
    if (typeof client.clientId !== 'string' || client.clientId.trim() === '')
      throw new Error(`${where}: oauth.clientId is empty (is the variable it names set?)`)
    const port = client.callbackPort
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
      throw new Error(`${where}: oauth.callbackPort must be a port number (1-65535), got ${JSON.stringify(port)}`)
  }
  // The SDK sends configured headers over its own bearer token, so the token would never reach the server.
  if (config.headers && Object.keys(config.headers).some(name => name.toLowerCase() === 'authorization'))
    throw new Error(`${where}: an Authorization header cannot be combined with OAuth (the flow provides it)`)
}

/** A transport that can complete an authorization (the SDK's HTTP transports). */
interface AuthorizingTransport {
  finishAuth: (authorizationCode: string) => Promise<void>
}

function canFinishAuth(transport: Transport | undefined): transport is Transport & AuthorizingTransport {
  return typeof (transport as Partial<AuthorizingTransport> | undefined)?.finishAuth === 'function'
}

/**
 * The OAuth side of one server's connection. `connect()` wraps the
 * connection attempt: when the SDK asks for the user, it hands the
 * authorization URL to `onAuthRequired`, waits for the loopback callback,
 * exchanges the code on the failed attempt's transport, and tries once more.
 */
export class McpOAuthSession {
  readonly provider: StoreOAuthProvider
  private transport?: Transport
  private disposed = false
  private readonly authorizationTimeoutMs: number

  constructor(
    private readonly config: McpServerConfig,
    private readonly options: ConnectMcpServersOptions,
    store: McpCredentialStore,
    private readonly bootstrapTimeoutMs: number,
  ) {
    const timeout = options.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS
    this.authorizationTimeoutMs = timeout > 0 && timeout <= MAX_TIMER_MS ? timeout : 0
    this.provider = new StoreOAuthProvider({
      key: mcpCredentialKey(config),
      store,
      clientName: options.clientInfo?.name ?? 'zidane',
      client: config.oauth ? { clientId: config.oauth.clientId, clientSecret: config.oauth.clientSecret || undefined } : undefined,
      scope: config.oauth?.scope,
      callbackPort: config.oauth?.callbackPort,
    })
  }

  /**
   * The bound on this server's whole bootstrap. It covers `bootstrapTimeout`
   * for the work before the login, `authorizationTimeoutMs` for the user, and
   * `bootstrapTimeout` again for the token exchange, reconnect and listing.
   * Each of those steps also has its own bound. `0`: no bound.
   */
  bootstrapBound(): number {
    if (!this.options.onAuthRequired)
      return this.bootstrapTimeoutMs
    if (!(this.bootstrapTimeoutMs > 0) || this.authorizationTimeoutMs === 0)
      return 0
    const total = 2 * this.bootstrapTimeoutMs + this.authorizationTimeoutMs
    return total <= MAX_TIMER_MS ? total : 0
  }

  /** Remember the transport of the current attempt: the code is exchanged on it. */
  attach(transport: Transport): void {
    this.transport = transport
  }

  /** Run `attempt` (start a transport and `initialize`), authorizing in between when the server asks for it. */
  async connect<T>(attempt: () => Promise<T>): Promise<T> {
    if (this.disposed)
      throw new Error(`MCP server "${this.config.name}" is closed`)
    await this.provider.begin()
    try {
      let firstError: unknown
      try {
        return await attempt()
      }
      catch (error) {
        firstError = error
      }
      const pending = this.provider.takeAuthorization()
      if (!pending)
        throw this.failure(firstError)
      const code = await this.askUser(pending, firstError)
      await this.finish(code)
      try {
        return await attempt()
      }
      catch (error) {
        if (this.provider.takeAuthorization())
          throw new McpAuthRequiredError(this.config.name, `MCP server "${this.config.name}" still asks for authorization after the user approved access`, { cause: error })
        throw this.failure(error)
      }
    }
    finally {
      await this.provider.end()
    }
  }

  /** Stop waiting for the user and close the loopback listener (the server is being closed). */
  dispose(): void {
    this.disposed = true
    void this.provider.end()
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
    const err = asError(error)
    if (err instanceof McpAuthRequiredError || (!fromAuth && !this.provider.authInFlight && !isAuthError(err)))
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

  /** Exchange the code for tokens on the transport that received the 401. */
  private async finish(code: string): Promise<void> {
    const transport = this.transport
    if (!canFinishAuth(transport))
      throw new Error(`MCP server "${this.config.name}": its transport cannot complete an OAuth authorization`)
    try {
      await withTimeout(transport.finishAuth(code), this.bootstrapTimeoutMs, `MCP server "${this.config.name}" token exchange`)
    }
    catch (error) {
      throw this.failure(error, true)
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
