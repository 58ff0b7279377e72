/**
 * `zidane/mcp`: connect Model Context Protocol servers and use their tools as zidane tools.
 *
 * @module zidane/mcp
 */

export { McpIdentityAssertionError } from '../errors'
export type { McpIdentityAssertionStage } from '../errors'
export { MAX_SCHEMA_CHECK_STEPS } from '../tools/json-schema'
export { createCappedFetch, DEFAULT_MAX_RESPONSE_BYTES, McpResponseTooLargeError } from './capped-response'
export type { CappedFetchOptions } from './capped-response'
export { connectMcpServers, DEFAULT_BOOTSTRAP_TIMEOUT_MS, DEFAULT_CLOSE_TIMEOUT_MS, MAX_MCP_SCHEMA_CHARS } from './connect'
export { ContextStdioTransport } from './context-transport'
export type { ContextStdioTransportOptions } from './context-transport'
export { MAX_WAITING_ELICITATIONS } from './elicitation'
export { elicitThroughAskUser } from './elicitation-form'
export type { McpElicitationContext, McpElicitationHandler } from './elicitation-form'
export { MIN_MCP_EVENT_STREAM_INTERVAL_MS } from './event-stream-gate'
export { expandEnvString, expandServerConfig } from './expand-env'
export { filterTools, validateServerConfig } from './filters'
export { MAX_MCP_CURSOR_CHARS, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_LIST_PAGES, MAX_MCP_LISTED_TOOLS, MAX_MCP_TOOL_NAME_CHARS } from './list-tools'
export { canonicalMcpToolName, isMcpToolName, MAX_WIRE_NAME_LENGTH, MCP_TOOL_PREFIX, sanitizeMcpName, wireMcpToolName } from './naming'
export {
  createFileMcpCredentialStore,
  createMemoryMcpCredentialStore,
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  MAX_AUTHORIZATIONS_PER_REQUEST,
  McpAuthRequiredError,
  mcpCredentialKey,
  normalizeServerConfig,
} from './oauth'
export type { McpCredentialStore, McpStoredCredentials } from './oauth'
export { MAX_TOKEN_EXCHANGE_RESPONSE_BYTES } from './oauth/identity-assertion'
export { createPinnedFetch, MAX_PINNED_REDIRECTS } from './pinned-fetch'
export type { PinnedFetchOptions } from './pinned-fetch'
export { createMcpServerPool, isPoolableServer } from './pool'
export { MAX_MCP_STDIN_BACKLOG_BYTES, MAX_MCP_STDIN_BACKLOG_WRITES } from './stdin-backlog'
export { createMcpToolDef, DEFAULT_TOOL_TIMEOUT_MS, mapCallResult, MAX_MCP_RESULT_DEPTH, McpToolError, toToolOutput } from './tools'
export type { McpCallControl, McpCallFn, McpCallResult, McpToolDefOptions } from './tools'
export type { McpPoolAcquireOptions, McpPooledServerInfo, McpPooledServerState, McpServerLease, McpServerPool, McpServerPoolOptions } from './types'
export type {
  ConnectMcpServersOptions,
  McpAuthRequiredContext,
  McpCloseContext,
  McpConnection,
  McpIdentityProviderConfig,
  McpIdentityTokenContext,
  McpOAuthClientConfig,
  McpServerConfig,
  McpServerInfo,
  McpServerStatus,
  McpToolOrigin,
  McpToolSchema,
  McpToolsFilterContext,
} from './types'
