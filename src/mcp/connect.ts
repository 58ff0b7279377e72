import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ToolMap } from '../tools/types'
import type { McpOAuthSession } from './oauth/session'
import type { McpCredentialStore } from './oauth/types'
import type { McpCallControl, McpCallResult } from './tools'
import type { ConnectMcpServersOptions, McpConnection, McpServerConfig, McpServerInfo, McpServerPool, McpToolOrigin, McpToolSchema } from './types'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { nestsDeeperThan } from '../core/json-depth'
import { withTimeout } from '../core/timeout'
import { clampTimerDelay } from '../core/timer'
import { killContextTransport } from './context-transport'
import { createMcpClient } from './elicitation'
import { holdTransport, holdWhileClosing } from './event-loop-hold'
import { expandServerConfig } from './expand-env'
import { filterTools, validateServerConfig } from './filters'
import { listServerTools, MAX_MCP_DESCRIPTION_CHARS, rememberToolMetadata } from './list-tools'
import { canonicalMcpToolName, createNameAllocator, sanitizeMcpName, wireMcpToolName } from './naming'
import { createOAuthSession, normalizeServerConfig } from './oauth/session'
import { createMemoryMcpCredentialStore } from './oauth/stores'
import { isPoolableServer } from './pool'
import { createMcpToolDef, cutText, DEFAULT_TOOL_TIMEOUT_MS } from './tools'
import { createTransport, transportPid } from './transports'

/**
 * How deeply a server's tool input schema may nest (objects and arrays inside
 * one another; each level of a nested object's `properties` counts two). Real
 * schemas use a few dozen at most.
 */
export const MAX_MCP_SCHEMA_DEPTH = 200

/**
 * Longest tool input schema kept, in characters of its JSON. Like a
 * description (`MAX_MCP_DESCRIPTION_CHARS`), the schema goes with every
 * request, and a property description or an enum of megabytes inside it
 * would too; unlike a description, a schema cannot be cut and stay one.
 */
export const MAX_MCP_SCHEMA_CHARS = 100_000

/** How long one server may take to connect and list its tools, in milliseconds. */
export const DEFAULT_BOOTSTRAP_TIMEOUT_MS = 10_000
/** How long closing one server may take before it is abandoned, in milliseconds. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000
const DEFAULT_CLIENT_INFO = { name: 'zidane', version: '0.1.0' }

/** One live client and what is needed to tear it down hard. */
interface Live {
  client: Client
  transport: Transport
  /** Set for a pooled server: the client is shared, so teardown releases the hold instead of closing. */
  release?: () => Promise<void>
  /** Set for a pooled server: the pool decides whether the shared process holds the event loop. */
  holdEventLoop?: (hold: boolean) => void
}

/** Make one live client's process keep the event loop alive, or not. */
function holdLive(live: Live, hold: boolean): void {
  if (live.release)
    live.holdEventLoop?.(hold)
  else
    holdTransport(live.transport, hold)
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/** Keeps one server's state: its live client, lazy connect, and every teardown still running. */
class ServerRuntime {
  readonly info: McpServerInfo
  private live?: Live
  private connecting?: Promise<Live>
  private closed = false
  /** Whether the server's process keeps the event loop alive (see `holdEventLoop`). */
  private held = true
  private readonly teardowns = new Set<Promise<void>>()
  private lastStderrTail: () => string = () => ''
  /** OAuth servers only (see oauth/session.ts). */
  private readonly oauth?: McpOAuthSession
  /** Where a stdio server's stderr goes, when the host listens. */
  private readonly onStderr?: (chunk: string) => void

  constructor(readonly config: McpServerConfig, private readonly options: ConnectMcpServersOptions, credentials: McpCredentialStore) {
    this.info = { name: config.name, status: config.lazyConnect ? 'lazy' : 'failed', tools: [] }
    this.oauth = createOAuthSession(config, options, credentials, this.bootstrapTimeout)
    const onStderr = options.onStderr
    if (onStderr)
      this.onStderr = chunk => onStderr(config.name, chunk)
    if (config.disclosure)
      this.info.disclosure = config.disclosure
    if (config.lazyConnect)
      this.info.lazyConnect = true
  }

  get bootstrapTimeout() {
    return this.config.bootstrapTimeout ?? DEFAULT_BOOTSTRAP_TIMEOUT_MS
  }

  /** Eager bootstrap: connect and list (unless cached), all under `bootstrapTimeout`. Never throws. */
  async bootstrap(): Promise<McpToolSchema[]> {
    if (this.config.lazyConnect)
      return this.config.cachedTools ?? []
    try {
      const bound = this.oauth ? this.oauth.bootstrapBound() : this.bootstrapTimeout
      const tools = await withTimeout(this.connectAndList(), bound, `MCP server "${this.config.name}" bootstrap`)
      return tools
    }
    catch (error) {
      const err = this.describe(error)
      // An attempt abandoned by the timeout may still finish later; `closed` makes it tear itself down.
      this.closed = true
      if (this.live)
        this.discard(this.live)
      this.info.status = 'failed'
      this.info.error = err
      this.options.onServerError?.(this.config.name, err)
      return []
    }
  }

  private async connectAndList(): Promise<McpToolSchema[]> {
    // One budget of authorizations for the whole bootstrap: a server may ask at connect and again when listing.
    const budget = { used: 0 }
    const authorized = <T>(op: () => Promise<T>) => this.oauth ? this.oauth.run(op, { budget }) : op()
    const live = await authorized(() => this.open())
    if (this.config.cachedTools)
      return this.config.cachedTools
    const listPage = (cursor: string | undefined) => authorized(() => live.client.request(
      { method: 'tools/list', params: cursor ? { cursor } : undefined },
      ResultSchema,
      { timeout: clampTimerDelay(this.bootstrapTimeout) },
    ))
    const tools = await listServerTools(this.config.name, listPage, error => this.options.onServerError?.(this.config.name, error))
    rememberToolMetadata(live.client, tools)
    return tools
  }

  /** Start a transport and run `initialize`. A failed or abandoned attempt is torn down in the background. */
  private async open(): Promise<Live> {
    if (this.options.pool && isPoolableServer(this.config))
      return this.openPooled(this.options.pool)
    const { transport, stderrTail } = createTransport(this.config, {
      onStderr: this.onStderr,
      execution: this.options.execution,
      wrapFetch: this.oauth ? base => this.oauth!.wrapFetch(base) : undefined,
      // An answer cut at `maxResponseBytes` fails its call; the host hears of it too, as of any server fault.
      onResponseLimit: error => this.options.onServerError?.(this.config.name, error),
      onStdinBacklog: error => this.options.onServerError?.(this.config.name, error),
    })
    const client = createMcpClient(this.options.clientInfo ?? DEFAULT_CLIENT_INFO, this.config.name, this.options.onElicitation)
    const live: Live = { client, transport }
    this.lastStderrTail = stderrTail
    // Registered first, so whatever happens next (including an outer timeout) still reaps the transport.
    this.live = live
    const abort = new AbortController()
    try {
      await withTimeout(client.connect(transport, { signal: abort.signal, timeout: clampTimerDelay(this.bootstrapTimeout) }), this.bootstrapTimeout, `MCP server "${this.config.name}" connect`)
    }
    catch (error) {
      abort.abort()
      this.discard(live)
      throw error
    }
    if (this.closed) {
      this.discard(live)
      throw new Error(`MCP server "${this.config.name}" was closed while connecting`)
    }
    this.info.instructions = this.instructionsOf(client)
    this.info.status = 'connected'
    this.info.error = undefined
    this.info.pid = transportPid(transport)
    if (!this.held)
      holdTransport(transport, false)
    client.onclose = () => {
      if (this.live === live) {
        this.live = undefined
        this.info.status = this.config.lazyConnect && !this.closed ? 'lazy' : 'closed'
      }
    }
    return live
  }

  /** Borrow a pooled stdio server (see pool.ts): the pool owns the client and its `onclose`. */
  private async openPooled(pool: McpServerPool): Promise<Live> {
    let live: Live | undefined
    const lease = await pool.acquire(this.config, {
      poolKey: this.options.poolKey,
      clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
      connectTimeoutMs: this.bootstrapTimeout,
      closeTimeoutMs: this.config.closeTimeout ?? DEFAULT_CLOSE_TIMEOUT_MS,
      onStderr: this.onStderr,
      onClose: () => {
        if (live && this.live === live) {
          this.live = undefined
          this.info.status = this.config.lazyConnect && !this.closed ? 'lazy' : 'closed'
        }
      },
    })
    this.lastStderrTail = lease.stderrTail
    // Closed, or a lazy connect abandoned by its timeout lost the race to a newer one: give the hold back.
    if (this.closed || this.live) {
      void lease.release()
      throw new Error(`MCP server "${this.config.name}" was closed while connecting`)
    }
    live = { client: lease.client, transport: lease.transport, release: lease.release, holdEventLoop: lease.holdEventLoop }
    this.live = live
    if (!this.held)
      holdLive(live, false)
    this.info.instructions = this.instructionsOf(lease.client)
    this.info.status = 'connected'
    this.info.error = undefined
    this.info.pid = lease.pid
    return live
  }

  /**
   * The server's `instructions`, trimmed (empty: none) and cut at
   * `MAX_MCP_DESCRIPTION_CHARS`: they go into the system prompt of every request.
   */
  private instructionsOf(client: Client): string | undefined {
    const instructions = client.getInstructions()
    const trimmed = typeof instructions === 'string' ? instructions.trim() : ''
    if (trimmed.length <= MAX_MCP_DESCRIPTION_CHARS)
      return trimmed || undefined
    this.options.onServerError?.(this.config.name, new TypeError(`MCP server "${this.config.name}": its instructions are longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and were cut`))
    return cutText(trimmed, MAX_MCP_DESCRIPTION_CHARS)
  }

  /** Hold the event loop with this server's process, or let go of it; a server that connects later follows. */
  holdEventLoop(hold: boolean): void {
    this.held = hold
    if (this.live && !this.closed)
      holdLive(this.live, hold)
  }

  /** The live client; lazy servers connect here, and a failed connect is forgotten so the next call retries. */
  private async client(): Promise<Client> {
    if (this.closed)
      throw new Error(`MCP server "${this.config.name}" is closed`)
    if (this.live && this.info.status === 'connected')
      return this.live.client
    if (!this.config.lazyConnect)
      throw new Error(`MCP server "${this.config.name}" is not connected`)
    if (!this.connecting) {
      this.connecting = withTimeout(this.open(), this.bootstrapTimeout, `MCP server "${this.config.name}" connect`)
      this.connecting.then(() => {}, (error) => {
        this.info.error = this.describe(error)
        this.options.onServerError?.(this.config.name, this.info.error)
        if (this.live)
          this.discard(this.live)
      }).finally(() => {
        this.connecting = undefined
      })
    }
    return (await this.connecting).client
  }

  call = async (tool: string, args: Record<string, unknown>, signal: AbortSignal, control?: McpCallControl): Promise<McpCallResult> => {
    const client = await this.client()
    const request = async () => await client.callTool({ name: tool, arguments: args }, undefined, { signal }) as McpCallResult
    // A mid-run 401 or step-up runs the OAuth flow; the tool's timer stops while the user is away.
    return this.oauth ? this.oauth.run(request, { signal, pause: control?.pauseTimeout }) : request()
  }

  /** `onClose` (the agent's `mcp:close`) for a server that was up, bounded by `closeTimeout` so a stuck listener cannot hold teardown. */
  private async notifyClose(previous: McpServerInfo['status']): Promise<void> {
    const onClose = this.options.onClose
    if (!onClose || previous === 'failed' || previous === 'closed')
      return
    const notified = (async () => onClose({ server: this.config.name, status: previous }))()
    await withTimeout(notified, this.config.closeTimeout ?? DEFAULT_CLOSE_TIMEOUT_MS, `mcp:close of "${this.config.name}"`)
      .catch(error => this.options.onServerError?.(this.config.name, asError(error)))
  }

  /** Add the stderr tail to a failure, since that is where a crashing stdio server says why. */
  private describe(error: unknown): Error {
    const err = asError(error)
    const tail = this.lastStderrTail().trim()
    if (tail && !err.message.includes(tail))
      err.message = `${err.message}\nserver stderr:\n${tail}`
    return err
  }

  private discard(live: Live) {
    if (this.live === live)
      this.live = undefined
    const pending = this.shutdown(live)
    this.teardowns.add(pending)
    void pending.finally(() => this.teardowns.delete(pending))
  }

  /** Close one client within `closeTimeout`; a stdio child whose close hangs is SIGKILLed. */
  private async shutdown(live: Live): Promise<void> {
    // A pooled client is shared: give the hold back; the pool bounds (and SIGKILLs) the last close.
    if (live.release)
      return live.release()
    const pid = transportPid(live.transport)
    const letGo = holdWhileClosing(live.transport)
    const timeoutMs = this.config.closeTimeout ?? DEFAULT_CLOSE_TIMEOUT_MS
    const work = (async () => {
      // Ask a streamable-HTTP server to drop its session state; a failure here must not block the close.
      if (live.transport instanceof StreamableHTTPClientTransport && live.transport.sessionId)
        await live.transport.terminateSession().catch(() => {})
      await live.client.close()
    })()
    try {
      await withTimeout(work, timeoutMs, `MCP server "${this.config.name}" close`)
    }
    catch {
      killContextTransport(live.transport)
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGKILL')
        }
        catch {
          // Already gone.
        }
      }
    }
    finally {
      letGo()
    }
  }

  async close(): Promise<void> {
    const previous = this.info.status
    this.closed = true
    this.oauth?.dispose()
    await this.notifyClose(previous)
    if (this.info.status !== 'failed')
      this.info.status = 'closed'
    if (this.live)
      this.discard(this.live)
    await Promise.all([...this.teardowns])
  }
}

/**
 * The config's filters, then the host's `onToolsFilter` (which may only
 * narrow: tools it adds that the server never listed are ignored, since there
 * is nothing to call). A failing filter fails closed: the server offers no tools.
 */
async function narrowTools(config: McpServerConfig, listed: McpToolSchema[], options: ConnectMcpServersOptions): Promise<McpToolSchema[]> {
  const kept = filterTools(config, withWalkableSchemas(config, listed, options))
  if (!options.onToolsFilter || kept.length === 0)
    return kept
  const ctx = { server: config.name, tools: [...kept] }
  try {
    await options.onToolsFilter(ctx)
  }
  catch (error) {
    options.onServerError?.(config.name, asError(error))
    return []
  }
  if (!Array.isArray(ctx.tools))
    return kept
  const listedNames = new Set(kept.map(tool => tool.name))
  return ctx.tools.filter(tool => tool && listedNames.has(tool.name))
}

/**
 * The listed tools less those whose input schema nests past
 * `MAX_MCP_SCHEMA_DEPTH` or is longer than `MAX_MCP_SCHEMA_CHARS`, each
 * reported to `onServerError`. A schema is sent with every request and walked
 * by recursive code (the well-formed-text pass, the argument check,
 * `JSON.stringify`): one thousands of levels deep would overflow the stack on
 * every request of every run of the agent, and one of megabytes would fill
 * every request.
 */
function withWalkableSchemas(config: McpServerConfig, listed: McpToolSchema[], options: ConnectMcpServersOptions): McpToolSchema[] {
  const leaveOut = (tool: McpToolSchema, why: string) => {
    options.onServerError?.(config.name, new TypeError(`MCP server "${config.name}": the input schema of tool "${tool.name}" ${why}; the tool is left out`))
    return false
  }
  return listed.filter((tool) => {
    if (nestsDeeperThan(tool.inputSchema, MAX_MCP_SCHEMA_DEPTH))
      return leaveOut(tool, `nests more than ${MAX_MCP_SCHEMA_DEPTH} levels deep`)
    // Measured only once the depth is known to be bounded: stringifying could overflow the stack otherwise.
    // A host's `cachedTools` entry may have no schema at all, which stringifies to nothing.
    if ((JSON.stringify(tool.inputSchema) ?? '').length > MAX_MCP_SCHEMA_CHARS)
      return leaveOut(tool, `is longer than ${MAX_MCP_SCHEMA_CHARS} characters as JSON`)
    return true
  })
}

/**
 * Connect to every configured MCP server and expose its tools as zidane tools.
 * Config errors throw before anything starts. A server that fails to bootstrap
 * is reported (`servers[i].status === 'failed'`, `onServerError`) and left out;
 * the others still connect. `connectTimeoutMs` bounds the whole step: when it
 * fires, everything already started is closed and the promise rejects with
 * `OperationTimeoutError`.
 */
export async function connectMcpServers(configs: McpServerConfig[], options: ConnectMcpServersOptions = {}): Promise<McpConnection> {
  const env = options.env ?? process.env
  const expanded = configs.map(config => expandServerConfig(normalizeServerConfig(config), env))
  const seen = new Set<string>()
  for (const config of expanded) {
    validateServerConfig(config)
    const key = sanitizeMcpName(config.name)
    if (seen.has(key))
      throw new Error(`MCP server name "${config.name}" is used twice (after sanitizing to "${key}")`)
    seen.add(key)
  }

  const credentialStore = options.credentialStore ?? createMemoryMcpCredentialStore()
  const runtimes = expanded.map(config => new ServerRuntime(config, options, credentialStore))
  const closeAll = async () => {
    await Promise.all(runtimes.map(r => r.close()))
  }
  let listed: McpToolSchema[][]
  try {
    listed = await withTimeout(Promise.all(runtimes.map(r => r.bootstrap())), options.connectTimeoutMs ?? 0, 'MCP connect')
  }
  catch (error) {
    await closeAll()
    throw error
  }

  const tools: ToolMap = {}
  const aliases: Record<string, string> = {}
  const origins: Record<string, McpToolOrigin> = {}
  const uniqueCanonical = createNameAllocator()
  const uniqueWire = createNameAllocator()
  const keptLists = await Promise.all(runtimes.map((runtime, index) => narrowTools(runtime.config, listed[index], options)))
  runtimes.forEach((runtime, index) => {
    const { config } = runtime
    const kept = keptLists[index]
    runtime.info.tools = kept.map(t => t.name)
    for (const schema of kept) {
      const canonicalName = uniqueCanonical(canonicalMcpToolName(config.name, schema.name))
      tools[canonicalName] = createMcpToolDef({
        server: config.name,
        canonicalName,
        schema,
        timeoutMs: config.toolTimeouts?.[schema.name] ?? config.toolTimeout ?? DEFAULT_TOOL_TIMEOUT_MS,
        call: runtime.call,
      })
      aliases[canonicalName] = uniqueWire(wireMcpToolName(config.name, schema.name, options.toolNameSeparator ?? '_'))
      origins[canonicalName] = { server: config.name, tool: schema.name }
    }
  })

  let closing: Promise<void> | undefined
  return {
    tools,
    aliases,
    origins,
    servers: runtimes.map(r => r.info),
    close: () => closing ??= closeAll(),
    holdEventLoop: (hold) => {
      for (const runtime of runtimes)
        runtime.holdEventLoop(hold)
    },
  }
}
