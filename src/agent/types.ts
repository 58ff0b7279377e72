import type { ConnectMcpServersOptions, McpConnection, McpServerConfig } from '../mcp/types'

/** Connects MCP servers; `connectMcpServers` unless the host brings its own. */
export type McpConnector = (servers: McpServerConfig[], options: ConnectMcpServersOptions) => Promise<McpConnection>
