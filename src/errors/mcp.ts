/**
 * MCP: a connector that cannot be loaded, and a refused enterprise-managed
 * authorization.
 */

/**
 * An agent has `mcpServers` but no `mcpConnector`, and zidane's built-in
 * connector cannot be loaded. That happens in a bundled program: the agent
 * finds the connector at run time, by a path no bundler follows, so that
 * programs without MCP servers do not ship the MCP client. A bundled program
 * that uses MCP passes `mcpConnector: connectMcpServers` from `zidane/mcp`.
 */
export class McpConnectorUnavailableError extends Error {
  override name = 'McpConnectorUnavailableError'
  /** Where the agent looked for the built-in connector (a file URL), when it got that far. */
  readonly location?: string
  constructor(options: { location?: string, cause?: unknown } = {}) {
    const where = options.location ? ` at ${options.location}` : ''
    super(`The agent has mcpServers but no mcpConnector, and the built-in MCP connector could not be loaded${where}. `
      + `A bundled program leaves it out: import { connectMcpServers } from 'zidane/mcp' and pass it as mcpConnector, so the bundle includes it.`, { cause: options.cause })
    if (options.location !== undefined)
      this.location = options.location
  }
}

/** Which side of enterprise-managed authorization refused: the IdP's token exchange, or the MCP authorization server's JWT bearer grant. */
export type McpIdentityAssertionStage = 'identity-provider' | 'authorization-server'

/**
 * Enterprise-managed authorization (`oauth.grantType: 'jwt_bearer'`) could
 * not get an access token: the identity provider refused to exchange the
 * user's identity token for an ID-JAG, the MCP authorization server refused
 * the ID-JAG, one of them answered with something that is not a token, or
 * did not answer in time (`cause` is then an `OperationTimeoutError`).
 */
export class McpIdentityAssertionError extends Error {
  override name = 'McpIdentityAssertionError'
  /** Configured MCP server name. */
  readonly server: string
  readonly stage: McpIdentityAssertionStage
  /** HTTP status of the refusal, when there was a response. */
  readonly status?: number
  /** OAuth `error` code of the refusal (`invalid_grant`, `access_denied`, …), when one was sent. */
  readonly code?: string
  constructor(init: { server: string, stage: McpIdentityAssertionStage, message: string, status?: number, code?: string, cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.server = init.server
    this.stage = init.stage
    if (init.status !== undefined)
      this.status = init.status
    if (init.code !== undefined)
      this.code = init.code
  }
}
