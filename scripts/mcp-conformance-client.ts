import type { ConnectMcpServersOptions, McpServerConfig } from '../src/mcp'
/**
 * A client program for the MCP conformance suite's client scenarios, built on
 * `connectMcpServers` and its OAuth flow (nothing here talks OAuth itself).
 *
 * The suite starts its own servers for a scenario, then runs this program with
 * the server URL as the last argument, the scenario name in
 * `MCP_CONFORMANCE_SCENARIO`, and the scenario's credentials (if any) as JSON
 * in `MCP_CONFORMANCE_CONTEXT`:
 *
 *   conformance client --command "node --import tsx scripts/mcp-conformance-client.ts" --scenario initialize
 *
 * It connects, lists the tools, calls the scenario's tool when the server has
 * it, and exits 0; any failure prints the error and exits 1.
 */
import type { ToolContext } from '../src/tools/types'
import process from 'node:process'
import { connectMcpServers, createMemoryMcpCredentialStore } from '../src/mcp'

/** What the suite passes in `MCP_CONFORMANCE_CONTEXT` (only the fields a scenario needs are set). */
interface ScenarioContext {
  client_id?: string
  client_secret?: string
  private_key_pem?: string
  signing_algorithm?: string
  idp_client_id?: string
  idp_id_token?: string
  idp_issuer?: string
  idp_token_endpoint?: string
}

/** The tool each scenario's server expects to be called, with its arguments. */
const TOOL_CALLS: Array<{ tool: string, args: Record<string, unknown> }> = [
  { tool: 'add_numbers', args: { a: 2, b: 3 } },
  { tool: 'test_reconnection', args: {} },
  { tool: 'test_client_elicitation_defaults', args: {} },
  { tool: 'test-tool', args: {} },
]

function readContext(): ScenarioContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT
  return raw ? JSON.parse(raw) as ScenarioContext : {}
}

/** The OAuth part of the server config a scenario calls for. */
export function oauthFor(scenario: string, ctx: ScenarioContext): Pick<McpServerConfig, 'auth' | 'oauth'> {
  if (scenario === 'auth/client-credentials-basic')
    return { oauth: { clientId: ctx.client_id!, clientSecret: ctx.client_secret, grantType: 'client_credentials' } }
  if (scenario === 'auth/client-credentials-jwt') {
    return { oauth: {
      clientId: ctx.client_id!,
      grantType: 'client_credentials',
      tokenEndpointAuthMethod: 'private_key_jwt',
      privateKey: ctx.private_key_pem,
      signingAlgorithm: ctx.signing_algorithm ?? 'ES256',
    } }
  }
  if (ctx.idp_token_endpoint) {
    // Enterprise-managed authorization: the suite plays the IdP (and hands out the user's ID token) and the authorization server.
    return { oauth: {
      clientId: ctx.client_id!,
      clientSecret: ctx.client_secret,
      grantType: 'jwt_bearer',
      identityProvider: { tokenEndpoint: ctx.idp_token_endpoint, clientId: ctx.idp_client_id!, idToken: ctx.idp_id_token },
    } }
  }
  if (ctx.client_id)
    return { oauth: { clientId: ctx.client_id, clientSecret: ctx.client_secret } }
  return scenario.startsWith('auth/') ? { auth: 'oauth' } : {}
}

/** `onAuthRequired` standing in for the user's browser: it opens the URL, whose redirect lands on the loopback callback. */
async function approveInBrowser({ authorizationUrl, error }: { authorizationUrl?: string, error?: Error }): Promise<void> {
  if (!authorizationUrl) {
    console.error(`authorization failed: ${error?.message}`)
    return
  }
  const page = await fetch(authorizationUrl, { signal: AbortSignal.timeout(10_000) })
  await page.body?.cancel()
}

async function main(): Promise<number> {
  const url = process.argv.at(-1)
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
  if (!url?.startsWith('http')) {
    console.error('usage: mcp-conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)')
    return 2
  }
  const server: McpServerConfig = { name: 'conformance', transport: 'streamable-http', url, ...oauthFor(scenario, readContext()) }
  const options: ConnectMcpServersOptions = {
    clientInfo: { name: 'zidane-conformance-client', version: '1.0.0' },
    credentialStore: createMemoryMcpCredentialStore(),
    onAuthRequired: approveInBrowser,
    // Accept every form with nothing filled in: the fields then get their schema defaults.
    onElicitation: (ctx) => {
      ctx.action = 'accept'
      ctx.content = {}
    },
    connectTimeoutMs: 25_000,
  }
  const mcp = await connectMcpServers([server], options)
  try {
    const info = mcp.servers[0]
    if (info.status !== 'connected')
      throw info.error ?? new Error(`server status ${info.status}`)
    const call = TOOL_CALLS.find(c => info.tools.includes(c.tool))
    if (call) {
      const name = Object.keys(mcp.origins).find(key => mcp.origins[key].tool === call.tool)!
      const signal = AbortSignal.timeout(20_000)
      const output = await mcp.tools[name].execute(call.args, { signal } as ToolContext)
      console.log(`${call.tool}: ${typeof output === 'string' ? output : JSON.stringify(output)}`)
    }
    return 0
  }
  finally {
    await mcp.close()
  }
}

main().then(code => process.exit(code), (error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : String(error))
  process.exit(1)
})
