import type { McpConnection, McpServerConfig } from '../mcp/types'
import type { AgentBehavior } from './behavior'
import type { FrozenPromptSections } from './system-freeze'
import { debugLog } from '../debug'
import { connectMcpServers } from '../mcp/connect'
import { activeLimit } from './behavior'
import { withTimeout } from './operation-timeout'

const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 120_000

/** The agent's MCP servers: connected once, on the first run that needs them, and closed on destroy. */
export interface McpLoader {
  /** The connection, connecting on first use; a failed connect is retried by the next run. */
  load: (behavior: AgentBehavior) => Promise<McpConnection | undefined>
  /** Close every server (bounded by `timeoutMs`), including a connect still in progress. */
  close: (timeoutMs: number) => Promise<void>
}

export function createMcpLoader(servers: readonly McpServerConfig[] | undefined): McpLoader {
  let pending: Promise<McpConnection> | undefined
  return {
    load(behavior) {
      if (!servers || servers.length === 0)
        return Promise.resolve(undefined)
      pending ??= connectMcpServers([...servers], {
        connectTimeoutMs: connectBound(behavior),
        toolNameSeparator: behavior.mcpToolNameSeparator,
        onServerError: (server, error) => debugLog(`MCP server "${server}" failed to start`, error),
      }).catch((error: unknown) => {
        pending = undefined
        throw error
      })
      return pending
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

/** `mcpConnectTimeoutMs` (default 2 minutes), cut short by a lower `maxWallMs`. */
function connectBound(behavior: AgentBehavior): number {
  const configured = behavior.mcpConnectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS
  const wall = activeLimit(behavior.maxWallMs)
  return wall !== undefined && (!(configured > 0) || wall < configured) ? wall : configured
}

/**
 * The servers' own instructions as a system-prompt section, in config order,
 * so the model learns what a server expects (and the prompt stays
 * byte-stable across runs). Servers without instructions add nothing.
 */
export function mcpInstructionsSection(connection: McpConnection | undefined, behavior: AgentBehavior): FrozenPromptSections {
  if (!connection || behavior.surfaceMcpInstructions === false)
    return {}
  const parts = connection.servers.flatMap(server => server.instructions ? [`## ${server.name}\n\n${server.instructions}`] : [])
  return parts.length === 0 ? {} : { 'mcp-instructions': `# MCP Server Instructions\n\n${parts.join('\n\n')}` }
}
