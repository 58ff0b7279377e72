/**
 * How a server's OAuth session gets the assertion of its JWT bearer grant
 * (enterprise-managed authorization): the user's identity token, from the
 * config or from `getIdentityToken`, traded at the identity provider for an
 * ID-JAG; and the authorization server's refusal of that ID-JAG, as a typed
 * error.
 */

import type { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import type { ConnectMcpServersOptions, McpServerConfig } from '../types'
import type { AssertionTarget } from './provider'
import { withTimeout } from '../../core/timeout'
import { MAX_TIMER_DELAY_MS, timeoutSignal } from '../../core/timer'
import { McpIdentityAssertionError, OperationTimeoutError } from '../../errors'
import { requestIdJag } from './identity-assertion'

/** What one server's session knows when its token request asks for an assertion. */
export interface AssertionSource {
  config: McpServerConfig
  options: ConnectMcpServersOptions
  serverUrl: URL
  /** Bound on each step (`0`, or past the timer limit: none). */
  bootstrapTimeoutMs: number
  /** Aborts pending exchanges when the server is closed. */
  signal: AbortSignal
}

/** The default resource identifier of a server URL: the URL without its fragment. */
function resourceOf(url: URL): string {
  const resource = new URL(url.href)
  resource.hash = ''
  return resource.href
}

/**
 * Get an ID-JAG for the MCP authorization server: the user's identity token
 * (from the config, else from `getIdentityToken`), exchanged at the
 * identity provider. Each step is bounded by `bootstrapTimeout`.
 */
export async function identityAssertion(source: AssertionSource, target: AssertionTarget): Promise<string> {
  const { config, bootstrapTimeoutMs } = source
  const name = config.name
  const idp = config.oauth!.identityProvider!
  const timeoutMs = bootstrapTimeoutMs > 0 && bootstrapTimeoutMs <= MAX_TIMER_DELAY_MS ? bootstrapTimeoutMs : 0
  let idToken = idp.idToken
  if (idToken === undefined) {
    const ask = source.options.getIdentityToken
    if (!ask) {
      throw new McpIdentityAssertionError({ server: name, stage: 'identity-provider', message: `MCP server "${name}": enterprise-managed authorization needs the user's identity token: `
        + 'set oauth.identityProvider.idToken, or pass getIdentityToken to the connection' })
    }
    const timer = timeoutMs > 0 ? timeoutSignal(timeoutMs) : undefined
    const signal = timer ? AbortSignal.any([source.signal, timer.signal]) : source.signal
    const asked = Promise.resolve().then(() => ask({ server: name, url: config.url ?? '', tokenEndpoint: idp.tokenEndpoint, signal }))
    const answer = await withTimeout(asked, timeoutMs, `MCP server "${name}" getIdentityToken`).catch((error: unknown) => {
      const why = error instanceof OperationTimeoutError ? `did not settle within ${timeoutMs} ms (bootstrapTimeout)` : `failed: ${error instanceof Error ? error.message : String(error)}`
      throw new McpIdentityAssertionError({ server: name, stage: 'identity-provider', message: `MCP server "${name}": getIdentityToken ${why}`, cause: error })
    }).finally(() => timer?.clear())
    if (typeof answer !== 'string' || answer.trim() === '')
      throw new McpIdentityAssertionError({ server: name, stage: 'identity-provider', message: `MCP server "${name}": getIdentityToken returned no identity token` })
    idToken = answer
  }
  const grant = await requestIdJag({
    server: name,
    tokenEndpoint: idp.tokenEndpoint,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret || undefined,
    idToken,
    audience: target.audience,
    // No protected-resource metadata: the server URL is the resource (as the SDK does).
    resource: target.resource ?? resourceOf(source.serverUrl),
    scope: target.scope,
    timeoutMs,
    signal: source.signal,
  })
  return grant.assertion
}

/** The MCP authorization server refused the ID-JAG (the SDK reports it as an `OAuthError`). */
export function authorizationServerRefusal(server: string, error: OAuthError): McpIdentityAssertionError {
  const code = error.errorCode
  const said = error.message ? `${code}: ${error.message}` : code
  return new McpIdentityAssertionError({
    server,
    stage: 'authorization-server',
    code,
    message: `MCP server "${server}": the authorization server refused the identity assertion (JWT bearer grant, ${said})`,
    cause: error,
  })
}
