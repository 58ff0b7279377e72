import type { AgentHookBus } from '../hooks/bus'
import type { AgentBehavior } from '../knobs/behavior'
import type { McpElicitationHandler } from '../mcp/elicitation-form'
import type { ConnectMcpServersOptions, McpConnection } from '../mcp/types'
import type { FrozenPromptSections } from '../session/system-freeze'
import type { AgentOptions } from './options'
import { mergeObjects } from '../core/merge-objects'
import { withTimeout } from '../core/timeout'
import { debugLog } from '../debug'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { BEHAVIOR_DEFAULTS, boundByWall } from '../knobs/behavior'
import { elicitThroughAskUser } from '../mcp/elicitation-form'
import { createNameAllocator, wireMcpToolName } from '../mcp/naming'
import { askUserCallbackOf } from '../tools/ask-user-callbacks'
import { loadBuiltInMcpConnector } from './mcp-runtime'

/**
 * The agent's MCP servers: connected once, on the first run that needs them,
 * and closed on destroy. Each run's behavior still applies to the shared
 * connection: its `mcpToolNameSeparator` names the tools it offers, and the
 * connection-level hooks (a lazy server connecting mid-run, a close) are
 * bounded by the `hookTimeoutMs` of the latest run.
 */
export interface McpLoader {
  /** The connection as this run sees it, connecting on first use; a failed connect is retried by the next run. */
  load: (behavior: AgentBehavior) => Promise<McpConnection | undefined>
  /** Close every server (bounded by `timeoutMs`), including a connect still in progress. */
  close: (timeoutMs: number) => Promise<void>
  /**
   * Whether the servers' processes keep Node's event loop alive: the agent
   * holds them while a run is in flight and lets go between runs, so a
   * finished program exits (see decisions, 2026-12-02-idle-agent-exit).
   */
  holdEventLoop: (hold: boolean) => void
}

/** What the loader needs from the agent. */
export interface McpLoaderSetup {
  options: Pick<AgentOptions, 'mcpServers' | 'mcpConnector' | 'mcpPool' | 'mcpCredentialStore' | 'session' | 'execution' | 'tools'>
  hooks: AgentHookBus
  execution: NonNullable<AgentOptions['execution']>
  /** Pool key when the agent has no session: one per agent. */
  fallbackPoolKey: string
}

export function createMcpLoader(setup: McpLoaderSetup): McpLoader {
  const { options } = setup
  const servers = options.mcpServers
  let pending: Promise<McpConnection> | undefined
  let connectedSeparator: McpSeparator = '_'
  let latest: AgentBehavior = {}
  let held = false
  return {
    load(behavior) {
      if (!servers || servers.length === 0)
        return Promise.resolve(undefined)
      latest = behavior
      if (!pending) {
        connectedSeparator = behavior.mcpToolNameSeparator ?? BEHAVIOR_DEFAULTS.mcpToolNameSeparator
        // The MCP runtime (SDK client, transports, OAuth, schema validator) is
        // loaded here, by the first connect, so an agent without MCP servers
        // never loads it (nor ships it, bundled: see mcp-runtime.ts); the
        // import counts against the connect bound.
        const connecting = (async () => {
          const connect = options.mcpConnector ?? await loadBuiltInMcpConnector()
          const connection = await connect([...servers], connectOptions(setup, behavior, () => latest))
          // A connect that outlived its run (aborted, timed out) must not hold the event loop.
          if (!held)
            connection.holdEventLoop?.(false)
          return connection
        })()
        pending = withTimeout(connecting, connectBound(behavior), 'MCP connect')
          .catch((error: unknown) => {
            pending = undefined
            // A connector that settles after the bound still hands back live servers: close them.
            connecting.then(connection => connection.close(), () => {}).catch(() => {})
            throw error
          })
      }
      const separator = behavior.mcpToolNameSeparator ?? BEHAVIOR_DEFAULTS.mcpToolNameSeparator
      return separator === connectedSeparator ? pending : pending.then(connection => withSeparator(connection, separator))
    },
    holdEventLoop(hold) {
      held = hold
      pending?.then(connection => connection.holdEventLoop?.(hold), () => {})
    },
    async close(timeoutMs) {
      const connecting = pending
      pending = undefined
      if (!connecting)
        return
      const closing = connecting.then(connection => connection.close(), () => {})
      await withTimeout(closing, timeoutMs, 'MCP servers close').catch(error => debugLog('MCP teardown', error))
    },
  }
}

/**
 * Options for the connector: bounds and naming from the behavior, and the
 * connection-level hooks (`mcp:tools:filter`, `mcp:close`,
 * `mcp:auth:required`, `mcp:elicitation`) bridged to the agent's bus. These fire outside any
 * run, so only handlers registered on the agent see them.
 */
function connectOptions(setup: McpLoaderSetup, behavior: AgentBehavior, latest: () => AgentBehavior): ConnectMcpServersOptions {
  const { options, hooks } = setup
  const bound = () => latest().hookTimeoutMs ?? BEHAVIOR_DEFAULTS.hookTimeoutMs
  const onElicitation = elicitationHandler(setup, bound)
  return {
    connectTimeoutMs: connectBound(behavior),
    toolNameSeparator: behavior.mcpToolNameSeparator,
    execution: setup.execution,
    ...(options.mcpPool ? { pool: options.mcpPool, poolKey: options.session?.id ?? setup.fallbackPoolKey } : {}),
    ...(options.mcpCredentialStore ? { credentialStore: options.mcpCredentialStore } : {}),
    onServerError: (server, error) => debugLog(`MCP server "${server}" failed`, error),
    onToolsFilter: async (ctx) => {
      if (hasHookHandlers(hooks, 'mcp:tools:filter'))
        await callHookBounded(hooks, 'mcp:tools:filter', ctx, { timeoutMs: bound(), failClosed: true })
    },
    onClose: async (ctx) => {
      if (hasHookHandlers(hooks, 'mcp:close'))
        await callHookBounded(hooks, 'mcp:close', ctx, { timeoutMs: bound(), failClosed: false })
    },
    // Only offered when someone listens: without a listener nobody can open the
    // login page, and the server should fail at once with a typed error.
    ...(hasHookHandlers(hooks, 'mcp:auth:required')
      ? { onAuthRequired: ctx => callHookBounded(hooks, 'mcp:auth:required', ctx, { timeoutMs: bound(), failClosed: false }) }
      : {}),
    ...(onElicitation ? { onElicitation } : {}),
  }
}

/**
 * Who answers servers' elicitations: `mcp:elicitation` listeners (a timeout
 * answers `cancel`), else the host callback of the agent's `ask_user` tool.
 * Neither: the capability is not announced. Neither the bridge nor the
 * callback lookup loads the MCP SDK or zod.
 */
function elicitationHandler(setup: McpLoaderSetup, timeoutMs: () => number): McpElicitationHandler | undefined {
  const { hooks, options } = setup
  if (hasHookHandlers(hooks, 'mcp:elicitation'))
    return ctx => callHookBounded(hooks, 'mcp:elicitation', ctx, { timeoutMs: timeoutMs(), failClosed: true })
  const askUserTool = options.tools?.ask_user
  const askUser = askUserCallbackOf(askUserTool)
  return askUser ? elicitThroughAskUser(askUser) : undefined
}

type McpSeparator = NonNullable<AgentBehavior['mcpToolNameSeparator']>

/**
 * The connection with its tools named for another separator than the one it
 * was connected with: the same wire names a fresh connect would give
 * (`mcp<sep><server><sep><tool>`, numbered on a clash), in the same order.
 */
function withSeparator(connection: McpConnection, separator: McpSeparator): McpConnection {
  const aliases: Record<string, string> = {}
  const unique = createNameAllocator()
  for (const canonical of Object.keys(connection.aliases)) {
    const origin = connection.origins[canonical]
    if (!origin) {
      aliases[canonical] = connection.aliases[canonical]
      continue
    }
    aliases[canonical] = unique(wireMcpToolName(origin.server, origin.tool, separator))
  }
  return mergeObjects(connection, { aliases })
}

/** `mcpConnectTimeoutMs` (default 2 minutes), cut short by a lower `maxWallMs`. */
function connectBound(behavior: AgentBehavior): number {
  return boundByWall(behavior.mcpConnectTimeoutMs ?? BEHAVIOR_DEFAULTS.mcpConnectTimeoutMs, behavior)
}

/** The name of the section that carries the MCP servers' instructions. */
export const MCP_INSTRUCTIONS_SECTION = 'mcp-instructions'

/**
 * The servers' own instructions as a system-prompt section, in config order,
 * so the model learns what a server expects (and the prompt stays
 * byte-stable across runs). Servers without instructions add nothing, and
 * neither do `lazyConnect` servers (reading theirs would force the connect).
 */
export function mcpInstructionsSection(connection: McpConnection | undefined, behavior: AgentBehavior): FrozenPromptSections {
  if (!connection || !(behavior.surfaceMcpInstructions ?? BEHAVIOR_DEFAULTS.surfaceMcpInstructions))
    return {}
  const parts = connection.servers.flatMap(server => server.instructions && !server.lazyConnect ? [`## ${server.name}\n\n${server.instructions}`] : [])
  return parts.length === 0 ? {} : { [MCP_INSTRUCTIONS_SECTION]: `# MCP Server Instructions\n\n${parts.join('\n\n')}` }
}
