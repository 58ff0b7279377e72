/** Agent Plugins: a plugin folder's MCP servers and skills, ready for `createAgent`. */

export { AgentPluginError } from '../errors'
export { loadAgentPlugin, PLUGIN_FILE_MAX_BYTES } from './load-plugin'
export { MAX_PLUGIN_SERVERS, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from './mcp-config'
export type { AgentPlugin, AgentPluginManifest, AgentPluginProblem, LoadAgentPluginOptions } from './types'
