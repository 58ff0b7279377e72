import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ExecutionContext } from '../contexts/types'
import type { ToolMap } from '../tools/types'
import type { McpElicitationHandler } from './elicitation-form'
import type { McpCredentialStore } from './oauth/types'

/** One tool as an MCP server lists it (the `tools/list` payload), or as a host cached it. */
export interface McpToolSchema {
  /** Tool name on the server. */
  name: string
  title?: string
  description?: string
  /** JSON Schema of the arguments, as the server advertises it. */
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  /** Behavioral hints (`readOnlyHint`, `destructiveHint`, …). */
  annotations?: Record<string, unknown>
}

/** Pre-registered OAuth client (for auth servers without dynamic client registration). */
export interface McpOAuthClientConfig {
  /** Client id issued by the authorization server (`${VAR}` is expanded). */
  clientId: string
  /** Client secret (`${VAR}` is expanded). Absent: a `client_secret` saved in the credential store for this server, if any. */
  clientSecret?: string
  /** Pin the loopback redirect URI to `http://127.0.0.1:<port>/callback`. Default: a free port. */
  callbackPort?: number
  /** Space-separated scopes to request when the server does not name its own. */
  scope?: string
  /**
   * `'authorization_code'` (default): a user approves access in a browser.
   * `'client_credentials'`: machine-to-machine, no user; the client
   * authenticates with `tokenEndpointAuthMethod` and gets a token directly.
   * `'jwt_bearer'`: enterprise-managed authorization; the user's identity
   * token from `identityProvider` is exchanged there for an ID-JAG, which
   * the MCP authorization server turns into an access token. No browser.
   */
  grantType?: 'authorization_code' | 'client_credentials' | 'jwt_bearer'
  /**
   * How a `client_credentials` or `jwt_bearer` client proves itself at the
   * MCP authorization server. Default for `client_credentials`:
   * `'client_secret_basic'`; for `jwt_bearer`: what the server supports
   * (Basic when there is a secret).
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt'
  /** PEM (PKCS#8) private key signing the `private_key_jwt` assertion (`${VAR}` is expanded). Absent: a `private_key` saved in the credential store for this server. */
  privateKey?: string
  /** JWS algorithm of the `private_key_jwt` assertion. Default `'RS256'`. */
  signingAlgorithm?: string
  /** The enterprise identity provider of `grantType: 'jwt_bearer'` (required with it, refused without). */
  identityProvider?: McpIdentityProviderConfig
}

/**
 * The enterprise IdP that vouches for the user (`grantType: 'jwt_bearer'`):
 * its token endpoint takes the user's identity token and returns an ID-JAG
 * (RFC 8693 token exchange) for the MCP server's authorization server.
 */
export interface McpIdentityProviderConfig {
  /** The IdP's token endpoint (`${VAR}` is expanded). */
  tokenEndpoint: string
  /** This client's id at the IdP (`${VAR}` is expanded). */
  clientId: string
  /** This client's secret at the IdP, sent in the form body (`${VAR}` is expanded). Absent: a public client. */
  clientSecret?: string
  /**
   * The user's OpenID Connect ID token from the IdP (`${VAR}` is expanded).
   * Absent: `ConnectMcpServersOptions.getIdentityToken` is asked before
   * each exchange.
   */
  idToken?: string
}

/** What `getIdentityToken` is asked for: the user's ID token for one server's enterprise-managed authorization. */
export interface McpIdentityTokenContext {
  /** Configured server name. */
  server: string
  /** Server URL. */
  url: string
  /** Token endpoint of the IdP the token goes to. */
  tokenEndpoint: string
  /** Aborts when the exchange is given up (its time bound, or the server closing). */
  signal: AbortSignal
}

/** Configuration of one MCP server the agent connects to and exposes as tools. */
export interface McpServerConfig {
  /** Display name (used for tool namespacing). */
  name: string
  /** Transport type. */
  transport: 'stdio' | 'sse' | 'streamable-http'
  /** For stdio: command to run. */
  command?: string
  /** For stdio: command arguments. */
  args?: string[]
  /** For stdio: working directory of the child process (inherits the parent's when omitted). */
  cwd?: string
  /** For stdio: variables merged over the SDK's default environment, or the context's with `scope: 'context'` (verbatim with `strictEnv`). */
  env?: Record<string, string>
  /** For stdio: pass `env` verbatim, without the SDK's inherited defaults. */
  strictEnv?: boolean
  /** For stdio: where the process runs: on the host (default) or through `ConnectMcpServersOptions.execution`. */
  scope?: 'context' | 'host'
  /** For stdio with a server pool: whether matching sessions share one process. */
  shared?: boolean
  /** For sse / streamable-http: server URL. */
  url?: string
  /** Extra headers for HTTP transports. */
  headers?: Record<string, string>
  /** Send `headers` only to the configured URL's origin; redirects are followed by zidane, which strips them from the hop that leaves it on. */
  pinHeaderOrigin?: boolean
  /**
   * For sse / streamable-http: most bytes zidane reads of one answer, or of
   * one event of an event stream (a stream itself stays open as long as the
   * session). Past it the read is cut, the request fails with
   * `McpResponseTooLargeError`'s message, and `onServerError` gets the error.
   * Default 10 MiB (`DEFAULT_MAX_RESPONSE_BYTES`), the SDK's stdio cap.
   */
  maxResponseBytes?: number
  /** OAuth 2.1 (sse / streamable-http only). */
  auth?: 'oauth'
  /** Cursor's spelling of `auth: 'oauth'` (mcp.json); mapped onto `auth` when configs are read. */
  authMethod?: 'mcpOAuth'
  /** Pre-registered OAuth client; implies `auth: 'oauth'`. */
  oauth?: McpOAuthClientConfig
  /** Suppress `${VAR}` expansion (the config was already expanded by its loader). */
  preExpanded?: boolean
  /** Connect + discovery bound in milliseconds. Default 10000. */
  bootstrapTimeout?: number
  /** Per-server bound on shutdown in milliseconds. Default 5000. */
  closeTimeout?: number
  /** Tool call bound in milliseconds. Default 30000. */
  toolTimeout?: number
  /** Per-tool call bounds, keyed by the server-side tool name. */
  toolTimeouts?: Record<string, number>
  /** Schemas to advertise without issuing `tools/list`. */
  cachedTools?: McpToolSchema[]
  /** Connect on the first tool call instead of at bootstrap (requires `cachedTools`). */
  lazyConnect?: boolean
  /** Allow-list of server-side tool names. Exclusive with `disabledTools`. */
  enabledTools?: string[]
  /** Deny-list of server-side tool names. Exclusive with `enabledTools`. */
  disabledTools?: string[]
  /** Predicate run on each listed tool after the allow/deny lists. */
  toolFilter?: (tool: { description?: string | null, inputSchema?: unknown, name: string }) => boolean
  /** Per-server override of the agent's tool disclosure mode. */
  disclosure?: 'eager' | 'lazy'
}

/**
 * - `connected`: the client is live.
 * - `lazy`: `lazyConnect` server whose first call has not happened yet (or whose last connect failed).
 * - `failed`: bootstrap failed; the server contributes no tools.
 * - `closed`: `close()` ran, or the transport went away.
 */
export type McpServerStatus = 'connected' | 'lazy' | 'failed' | 'closed'

/** What the connection knows about one configured server. Live: `status` changes as the server connects and closes. */
export interface McpServerInfo {
  name: string
  status: McpServerStatus
  /** `instructions` from the server's `initialize` result; absent when empty or not yet connected. */
  instructions?: string
  /** Why bootstrap (or the last lazy connect) failed. */
  error?: Error
  /** Server-side names of the tools this server contributes (after filtering). */
  tools: string[]
  /** The server's `disclosure` override, when its config sets one. */
  disclosure?: 'eager' | 'lazy'
  /** The server connects on its first call; its instructions never reach the system prompt. */
  lazyConnect?: boolean
  /** Pid of the stdio child while connected (diagnostics, and checking that `close()` reaped it). */
  pid?: number
}

/** Where a canonical MCP tool name comes from. */
export interface McpToolOrigin {
  server: string
  tool: string
}

/** The live MCP side of an agent: tools to register, their wire names, and a teardown. */
export interface McpConnection {
  /** Tools keyed by canonical name (`mcp__<server>__<tool>`). */
  tools: ToolMap
  /** Canonical name → name shown to the model. */
  aliases: Record<string, string>
  /** Canonical name → configured server name and server-side tool name (for `McpToolHookContext`). */
  origins: Record<string, McpToolOrigin>
  /** One entry per config, in config order. */
  servers: McpServerInfo[]
  /** Close every server, each bounded by its `closeTimeout`. Idempotent. */
  close: () => Promise<void>
  /**
   * Whether the servers keep Node's event loop alive. `true` at first; an
   * agent passes `false` between runs so a finished program exits by itself:
   * host-spawned stdio servers' child processes and pipes are unref'd, and
   * streamable-HTTP event streams are closed until held again. SSE servers
   * are not affected (their stream is the session). It applies to servers
   * that connect later too. Optional for connectors of the host's own making.
   */
  holdEventLoop?: (hold: boolean) => void
}

/** `mcp:tools:filter`: one server's tools after the config filters; assign a narrower list to `tools`. */
export interface McpToolsFilterContext {
  server: string
  tools: McpToolSchema[]
}

/** `mcp:close`: one server is being shut down (inside its `closeTimeout`). */
export interface McpCloseContext {
  server: string
  /** Status before the close. */
  status: McpServerStatus
}

/**
 * `mcp:auth:required`: an OAuth server needs the user to authorize access,
 * at connect time or for a later request (a 401, or a step-up to more
 * scope). Open `authorizationUrl` in a browser; the refused request is made
 * again when the provider redirects to the loopback callback.
 */
export interface McpAuthRequiredContext {
  server: string
  /** The MCP server's URL. */
  url: string
  /** Where the user approves access. Absent when the flow cannot start (see `error`). */
  authorizationUrl?: string
  /** Why authorization is needed or failed, when known. */
  error?: Error
}

/** Options of `connectMcpServers`. */
export interface ConnectMcpServersOptions {
  /** Aggregate bound on the whole connect step in milliseconds (`0`: none). Default: none. */
  connectTimeoutMs?: number
  /** Separator of the wire names in `aliases`. Default `'_'`. */
  toolNameSeparator?: '_' | '__'
  /** Variables for `${VAR}` expansion. Default `process.env`. */
  env?: Record<string, string | undefined>
  /** Name/version the client announces in `initialize`. */
  clientInfo?: { name: string, version: string }
  /**
   * Called when a server fails to bootstrap (it is then left out, the others
   * still connect), and when a remote server's answer is cut at
   * `maxResponseBytes` (`McpResponseTooLargeError`; the call it answered fails).
   */
  onServerError?: (server: string, error: Error) => void
  /** Receives stdio servers' stderr output. Without it, only a short tail is kept for error messages. */
  onStderr?: (server: string, chunk: string) => void
  /** Narrow a server's tools after the config filters (the agent fires `mcp:tools:filter` from here). */
  onToolsFilter?: (ctx: McpToolsFilterContext) => void | Promise<void>
  /** Called as each server closes, inside its `closeTimeout` (the agent fires `mcp:close`). */
  onClose?: (ctx: McpCloseContext) => void | Promise<void>
  /** An OAuth server needs the user (the agent fires `mcp:auth:required`). */
  onAuthRequired?: (ctx: McpAuthRequiredContext) => void | Promise<void>
  /**
   * Answer servers' `elicitation/create` requests (the agent fires `mcp:elicitation`, or uses an
   * `ask_user` tool's host callback). Given: the client announces `elicitation: { form: {} }`.
   * Absent: it announces no capabilities, and an elicitation sent anyway is declined.
   */
  onElicitation?: McpElicitationHandler
  /** Where OAuth tokens and client registrations are kept between connections. Default: in memory, per call. */
  credentialStore?: McpCredentialStore
  /** How long the user gets to approve an OAuth server in the browser, in milliseconds (`0`: no bound). Default 120000. */
  authorizationTimeoutMs?: number
  /**
   * The user's current ID token for a `grantType: 'jwt_bearer'` server whose
   * `identityProvider.idToken` is not set. Asked before every token
   * exchange, so a host with an SSO session returns a fresh token each time.
   */
  getIdentityToken?: (ctx: McpIdentityTokenContext) => string | Promise<string>
  /** Execution context that `scope: 'context'` stdio servers are spawned in. */
  execution?: ExecutionContext
  /** Share host-spawned stdio servers between connections (see `McpServerConfig.shared`). */
  pool?: McpServerPool
  /** Identity of the session this connection serves; `shared: false` servers get one process per key. */
  poolKey?: string
}

/** How a pool shares and retires server processes. */
export interface McpServerPoolOptions {
  /**
   * Keep a process running this many milliseconds after its last connection
   * released it, so a session that reconnects soon reuses it. Default 0: the
   * process is closed as soon as the last connection lets go.
   */
  idleMs?: number
}

/**
 * - `starting`: spawned, `initialize` still running.
 * - `ready`: serving at least one connection.
 * - `idle`: no connection holds it; waiting out `idleMs`.
 */
export type McpPooledServerState = 'starting' | 'ready' | 'idle'

/** Diagnostics for one pooled process. A snapshot: it does not change afterwards. */
export interface McpPooledServerInfo {
  command: string
  args: string[]
  /** The session key, for a `shared: false` process (absent when shared by every session). */
  poolKey?: string
  pid?: number
  /** Connections currently holding the process (including ones still waiting for it to start). */
  refs: number
  state: McpPooledServerState
}

/** What one connection passes when it borrows a pooled server. */
export interface McpPoolAcquireOptions {
  /** The connection's session key (see `ConnectMcpServersOptions.poolKey`). */
  poolKey?: string
  /** Announced in `initialize`; the connection that starts the process decides it. */
  clientInfo: { name: string, version: string }
  /** Bound on spawning and `initialize`, for the connection that starts the process. */
  connectTimeoutMs: number
  /** Bound on closing the process, taken from the connection that starts it. */
  closeTimeoutMs: number
  /** Receives the process's stderr while this connection holds it. */
  onStderr?: (chunk: string) => void
  /** Called if the process goes away while this connection holds it. */
  onClose?: () => void
}

/** One connection's hold on a pooled server. */
export interface McpServerLease {
  /** The pool's client: shared, so never close it or replace its handlers. Call `release()` instead. */
  readonly client: Client
  readonly transport: Transport
  readonly pid?: number
  /** Last few kilobytes of the process's stderr. */
  stderrTail: () => string
  /** Drop this hold. Closing the last one closes the process (after `idleMs`). Idempotent. */
  release: () => Promise<void>
  /**
   * Whether this lease wants the process (and its pipes) to keep Node's event
   * loop alive. Leases start holding; the process is held while any lease
   * holds it. Optional for pools of the host's own making.
   */
  holdEventLoop?: (hold: boolean) => void
}

/** Shares host-spawned stdio MCP server processes between connections. */
export interface McpServerPool {
  /** Number of pooled processes (starting, in use, or idle). */
  readonly size: number
  /** One snapshot per pooled process. */
  servers: () => McpPooledServerInfo[]
  /**
   * Borrow the process matching `config` (and `poolKey` when `shared` is false),
   * starting it when there is none. Used by `connectMcpServers`; the config
   * must be expanded and valid, and eligible (`isPoolableServer`).
   */
  acquire: (config: McpServerConfig, options: McpPoolAcquireOptions) => Promise<McpServerLease>
  /** Close every pooled process, each bounded by its close timeout. Later acquires fail. Idempotent. */
  close: () => Promise<void>
}
