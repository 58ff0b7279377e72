import type { McpServerConfig, McpToolSchema } from './types'
import { validateOAuthConfig } from './oauth/config'

/** Reject configs this module cannot honor, before anything is spawned. */
export function validateServerConfig(config: McpServerConfig): void {
  const where = `MCP server "${config.name}"`
  if (!config.name)
    throw new Error('MCP server config needs a name')
  if (config.enabledTools && config.disabledTools)
    throw new Error(`${where}: enabledTools and disabledTools are mutually exclusive`)
  if (config.lazyConnect && !config.cachedTools)
    throw new Error(`${where}: lazyConnect requires cachedTools (there is nothing to advertise otherwise)`)
  const oauth = config.auth === 'oauth' || config.oauth !== undefined || config.authMethod === 'mcpOAuth'
  if (config.lazyConnect && oauth)
    throw new Error(`${where}: lazyConnect cannot be combined with OAuth`)
  if (oauth)
    validateOAuthConfig(config, where)
  const { maxResponseBytes } = config
  if (maxResponseBytes !== undefined && !(Number.isSafeInteger(maxResponseBytes) && maxResponseBytes > 0))
    throw new Error(`${where}: maxResponseBytes must be a positive whole number of bytes (got ${String(maxResponseBytes)})`)
  if (config.transport === 'stdio') {
    if (!config.command)
      throw new Error(`${where}: stdio transport needs a command`)
  }
  else if (config.transport === 'sse' || config.transport === 'streamable-http') {
    if (!config.url)
      throw new Error(`${where}: ${config.transport} transport needs a url`)
  }
  else {
    throw new Error(`${where}: unknown transport ${JSON.stringify(config.transport)}`)
  }
}

/** Allow/deny list first, then the predicate: the order the config documents. */
export function filterTools(config: McpServerConfig, tools: McpToolSchema[]): McpToolSchema[] {
  if (config.enabledTools && config.disabledTools)
    throw new Error(`MCP server "${config.name}": enabledTools and disabledTools are mutually exclusive`)
  let kept = tools
  if (config.enabledTools) {
    const allow = new Set(config.enabledTools)
    kept = kept.filter(t => allow.has(t.name))
  }
  else if (config.disabledTools) {
    const deny = new Set(config.disabledTools)
    kept = kept.filter(t => !deny.has(t.name))
  }
  if (config.toolFilter)
    kept = kept.filter(t => config.toolFilter!({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
  return kept
}
