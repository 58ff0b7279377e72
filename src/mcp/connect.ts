import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ToolMap } from '../tools/types'
import type { McpCallResult } from './tools'
import type { ConnectMcpServersOptions, McpConnection, McpServerConfig, McpServerInfo, McpToolOrigin, McpToolSchema } from './types'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { withTimeout } from '../agent/operation-timeout'
import { expandServerConfig } from './expand-env'
import { filterTools, validateServerConfig } from './filters'
import { canonicalMcpToolName, fitWireName, sanitizeMcpName, wireMcpToolName } from './naming'
import { createMcpToolDef, DEFAULT_TOOL_TIMEOUT_MS } from './tools'
import { createTransport, transportPid } from './transports'

export const DEFAULT_BOOTSTRAP_TIMEOUT_MS = 10_000
export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000
const DEFAULT_CLIENT_INFO = { name: 'zidane', version: '0.1.0' }

/** One live client and what is needed to tear it down hard. */
interface Live {
  client: Client
  transport: Transport
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
  private readonly teardowns = new Set<Promise<void>>()
  private lastStderrTail: () => string = () => ''

  constructor(readonly config: McpServerConfig, private readonly options: ConnectMcpServersOptions) {
    this.info = { name: config.name, status: config.lazyConnect ? 'lazy' : 'failed', tools: [] }
  }

  get bootstrapTimeout() {
    return this.config.bootstrapTimeout ?? DEFAULT_BOOTSTRAP_TIMEOUT_MS
  }

  /** Eager bootstrap: connect and list (unless cached), all under `bootstrapTimeout`. Never throws. */
  async bootstrap(): Promise<McpToolSchema[]> {
    if (this.config.lazyConnect)
      return this.config.cachedTools ?? []
    try {
      const tools = await withTimeout(this.connectAndList(), this.bootstrapTimeout, `MCP server "${this.config.name}" bootstrap`)
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
    const live = await this.open()
    if (this.config.cachedTools)
      return this.config.cachedTools
    const tools: McpToolSchema[] = []
    let cursor: string | undefined
    do {
      const page = await live.client.listTools(cursor ? { cursor } : undefined, { timeout: this.bootstrapTimeout })
      tools.push(...page.tools as McpToolSchema[])
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  /** Start a transport and run `initialize`. A failed or abandoned attempt is torn down in the background. */
  private async open(): Promise<Live> {
    const { transport, stderrTail } = createTransport(
      this.config,
      this.options.onStderr ? chunk => this.options.onStderr!(this.config.name, chunk) : undefined,
    )
    const client = new Client(this.options.clientInfo ?? DEFAULT_CLIENT_INFO, { capabilities: {} })
    const live: Live = { client, transport }
    this.lastStderrTail = stderrTail
    // Registered first, so whatever happens next (including an outer timeout) still reaps the transport.
    this.live = live
    const abort = new AbortController()
    try {
      await withTimeout(client.connect(transport, { signal: abort.signal, timeout: this.bootstrapTimeout }), this.bootstrapTimeout, `MCP server "${this.config.name}" connect`)
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
    const instructions = client.getInstructions()?.trim()
    this.info.instructions = instructions || undefined
    this.info.status = 'connected'
    this.info.error = undefined
    this.info.pid = transportPid(transport)
    client.onclose = () => {
      if (this.live === live) {
        this.live = undefined
        this.info.status = this.config.lazyConnect && !this.closed ? 'lazy' : 'closed'
      }
    }
    return live
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

  call = async (tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> => {
    const client = await this.client()
    return await client.callTool({ name: tool, arguments: args }, undefined, { signal }) as McpCallResult
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
    const pid = transportPid(live.transport)
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
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGKILL')
        }
        catch {
          // Already gone.
        }
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.info.status !== 'failed')
      this.info.status = 'closed'
    if (this.live)
      this.discard(this.live)
    await Promise.all([...this.teardowns])
  }
}

function uniqueName(candidate: string, taken: Set<string>): string {
  let name = candidate
  for (let i = 2; taken.has(name); i++)
    name = fitWireName(`${candidate}_${i}`)
  taken.add(name)
  return name
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
  const expanded = configs.map(config => expandServerConfig(config, env))
  const seen = new Set<string>()
  for (const config of expanded) {
    validateServerConfig(config)
    const key = sanitizeMcpName(config.name)
    if (seen.has(key))
      throw new Error(`MCP server name "${config.name}" is used twice (after sanitizing to "${key}")`)
    seen.add(key)
  }

  const runtimes = expanded.map(config => new ServerRuntime(config, options))
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
  const canonicalTaken = new Set<string>()
  const wireTaken = new Set<string>()
  runtimes.forEach((runtime, index) => {
    const { config } = runtime
    const kept = filterTools(config, listed[index])
    runtime.info.tools = kept.map(t => t.name)
    for (const schema of kept) {
      const canonicalName = uniqueName(canonicalMcpToolName(config.name, schema.name), canonicalTaken)
      tools[canonicalName] = createMcpToolDef({
        server: config.name,
        canonicalName,
        schema,
        timeoutMs: config.toolTimeouts?.[schema.name] ?? config.toolTimeout ?? DEFAULT_TOOL_TIMEOUT_MS,
        call: runtime.call,
      })
      aliases[canonicalName] = uniqueName(wireMcpToolName(config.name, schema.name, options.toolNameSeparator ?? '_'), wireTaken)
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
  }
}
