/**
 * How an agent without an `mcpConnector` finds zidane's built-in one.
 *
 * The connector is the door to the whole MCP runtime: the SDK client, its
 * transports, OAuth, the JSON Schema validator and zod, close to 900 KB
 * minified. A literal `import('../mcp/connect')` would put all of it in every
 * single-file bundle of a program that imports `createAgent`, used or not. So
 * the path is computed at run time, and bundlers do not follow it (the
 * comments silence the warnings of those that would otherwise report it).
 *
 * Run as installed, or from the sources under tsx or vitest, the connector
 * sits at a known place next to this module. A bundled program that uses
 * `mcpServers` imports `connectMcpServers` from `zidane/mcp` and passes it as
 * `mcpConnector`; the bundle then includes the runtime like any other import.
 */

import type { McpConnector } from './types'
import { McpConnectorUnavailableError } from '../errors'

// From the sources this module is src/agent/mcp-runtime.ts. In the package
// its code is in a chunk at the top of dist/, beside the internal entry the
// build writes for the connector (tsup.config.ts); a test loads it from there.
const FROM_SOURCES = '../mcp/connect.ts'
const FROM_PACKAGE = './internal/mcp-connector.js'

/** The built-in connector (`connectMcpServers`), or a typed error that says what a bundled program passes instead. */
export async function loadBuiltInMcpConnector(): Promise<McpConnector> {
  let location: string | undefined
  let loaded: { connectMcpServers?: unknown }
  try {
    const here = import.meta.url
    location = new URL(here.endsWith('.ts') ? FROM_SOURCES : FROM_PACKAGE, here).href
    loaded = await import(/* webpackIgnore: true */ /* @vite-ignore */ location) as typeof loaded
  }
  catch (error) {
    throw new McpConnectorUnavailableError({ location, cause: error })
  }
  if (typeof loaded.connectMcpServers !== 'function')
    throw new McpConnectorUnavailableError({ location })
  return loaded.connectMcpServers as McpConnector
}
