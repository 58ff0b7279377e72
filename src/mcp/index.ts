export { connectMcpServers, DEFAULT_BOOTSTRAP_TIMEOUT_MS, DEFAULT_CLOSE_TIMEOUT_MS } from './connect'
export { expandEnvString, expandServerConfig } from './expand-env'
export { filterTools, validateServerConfig } from './filters'
export { canonicalMcpToolName, isMcpToolName, MAX_WIRE_NAME_LENGTH, MCP_TOOL_PREFIX, sanitizeMcpName, wireMcpToolName } from './naming'
export { createMcpToolDef, DEFAULT_TOOL_TIMEOUT_MS, mapCallResult, McpToolError, toToolOutput } from './tools'
export type { McpCallFn, McpCallResult, McpToolDefOptions } from './tools'
export type {
  ConnectMcpServersOptions,
  McpConnection,
  McpOAuthClientConfig,
  McpServerConfig,
  McpServerInfo,
  McpServerStatus,
  McpToolOrigin,
  McpToolSchema,
} from './types'
