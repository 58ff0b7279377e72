import { readTextCapped } from '../../core/capped-body'
import { timeoutSignal } from '../../core/timer'
/**
 * The identity-provider half of enterprise-managed authorization: trade the
 * user's identity token for an Identity Assertion JWT Authorization Grant
 * (ID-JAG) at the enterprise IdP, with an RFC 8693 token exchange. The MCP
 * authorization server half (the RFC 7523 JWT bearer grant) goes through the
 * SDK's token request, see `StoreOAuthProvider.prepareTokenRequest`.
 */
import { McpIdentityAssertionError, OperationTimeoutError } from '../../errors'

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag'
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token'

const WHITESPACE_RUN = /\s+/g

/** Most bytes read from an IdP answer: a token response is a few KiB; anything larger is refused unread. */
export const MAX_TOKEN_EXCHANGE_RESPONSE_BYTES = 256 * 1024

/** One token exchange: who asks, for which authorization server and resource, with which identity token. */
export interface IdJagRequest {
  /** Configured MCP server name (for error messages). */
  server: string
  tokenEndpoint: string
  clientId: string
  clientSecret?: string
  /** The user's ID token. */
  idToken: string
  /** Issuer of the MCP authorization server (the ID-JAG's audience). */
  audience: string
  /** Resource identifier of the MCP server (RFC 8707 / RFC 9728). */
  resource: string
  scope?: string
  /** Bound on the whole exchange, response read included (`0`: none). */
  timeoutMs: number
  signal?: AbortSignal
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

export interface IdJag {
  /** The ID-JAG: the assertion of the JWT bearer grant. */
  assertion: string
  scope?: string
  expiresIn?: number
}

function refusal(request: IdJagRequest, message: string, extra: { status?: number, code?: string, cause?: unknown } = {}): McpIdentityAssertionError {
  return new McpIdentityAssertionError({ server: request.server, stage: 'identity-provider', message: `MCP server "${request.server}": ${message}`, ...extra })
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined
  }
  catch {
    return undefined
  }
}

/** Keep what the IdP says short and on one line: it ends up in an error message. */
function brief(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.replace(WHITESPACE_RUN, ' ').slice(0, 300) : undefined
}

/** Exchange the user's identity token for an ID-JAG; every failure is a `McpIdentityAssertionError`. */
export async function requestIdJag(request: IdJagRequest): Promise<IdJag> {
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: request.audience,
    resource: request.resource,
    subject_token: request.idToken,
    subject_token_type: ID_TOKEN_TYPE,
    client_id: request.clientId,
  })
  if (request.clientSecret)
    form.set('client_secret', request.clientSecret)
  if (request.scope)
    form.set('scope', request.scope)

  const timer = request.timeoutMs > 0 ? timeoutSignal(request.timeoutMs) : undefined
  const signals = [timer?.signal, request.signal].filter((s): s is AbortSignal => s !== undefined)
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined
  const send = request.fetch ?? ((url: string, init: RequestInit) => fetch(url, init))
  let status: number
  let text: string | undefined
  try {
    const response = await send(request.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept': 'application/json' },
      body: form.toString(),
      // The identity token must not follow a redirect to some other host.
      redirect: 'error',
      signal,
    })
    status = response.status
    text = await readTextCapped(response, MAX_TOKEN_EXCHANGE_RESPONSE_BYTES)
  }
  catch (error) {
    if (timer?.signal.aborted) {
      const timeout = new OperationTimeoutError(`MCP server "${request.server}" token exchange at the identity provider`, request.timeoutMs)
      throw refusal(request, `the identity provider did not answer the token exchange within ${request.timeoutMs} ms (bootstrapTimeout)`, { cause: timeout })
    }
    if (request.signal?.aborted)
      throw request.signal.reason instanceof Error ? request.signal.reason : new Error(String(request.signal.reason))
    throw refusal(request, `the token exchange at the identity provider ${request.tokenEndpoint} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  finally {
    timer?.clear()
  }

  if (text === undefined)
    throw refusal(request, `the identity provider's answer is larger than ${MAX_TOKEN_EXCHANGE_RESPONSE_BYTES} bytes (MAX_TOKEN_EXCHANGE_RESPONSE_BYTES)`, { status })
  const body = parseObject(text)
  if (status < 200 || status >= 300) {
    const code = brief(body?.error)
    const description = brief(body?.error_description)
    const said = code ? `${code}${description ? `: ${description}` : ''}` : 'no OAuth error in the body'
    throw refusal(request, `the identity provider refused to exchange the identity token for an ID-JAG (HTTP ${status}, ${said})`, { status, code })
  }
  if (!body)
    throw refusal(request, 'the identity provider\'s token exchange answer is not a JSON object', { status })
  if (body.issued_token_type !== ID_JAG_TOKEN_TYPE)
    throw refusal(request, `the identity provider issued ${JSON.stringify(brief(body.issued_token_type) ?? null)}, not an ID-JAG (${ID_JAG_TOKEN_TYPE})`, { status })
  const assertion = body.access_token
  if (typeof assertion !== 'string' || assertion === '')
    throw refusal(request, 'the identity provider\'s token exchange answer has no access_token (the ID-JAG)', { status })
  return {
    assertion,
    ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
    ...(typeof body.expires_in === 'number' ? { expiresIn: body.expires_in } : {}),
  }
}
