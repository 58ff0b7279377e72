import { extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js'

const REFUSED_POST = /\(HTTP 40[13]\)/
const WHITESPACE = /\s+/

/** What a resource server said when it refused a request: a 401, or a 403 asking for more scope (step-up). */
export interface AuthChallenge {
  status: 401 | 403
  /** Scopes the `WWW-Authenticate` header names. */
  scope?: string
  /** Where the server's protected-resource metadata is (RFC 9728). */
  resourceMetadataUrl?: URL
  /** Increases with every challenge a session records: tells a request whether one came in while it ran. */
  seq: number
}

/** The challenge of a refused response, else undefined. A 403 counts only with `error="insufficient_scope"`. */
export function readChallenge(response: Response): Omit<AuthChallenge, 'seq'> | undefined {
  if (response.status !== 401 && response.status !== 403)
    return undefined
  const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(response)
  if (response.status === 403 && error !== 'insufficient_scope')
    return undefined
  return { status: response.status, scope, resourceMetadataUrl }
}

/** Space-separated scope union, in first-seen order; undefined when both are empty. */
export function mergeScopes(...scopes: Array<string | undefined>): string | undefined {
  const seen = new Set<string>()
  for (const scope of scopes) {
    for (const item of scope?.split(WHITESPACE) ?? []) {
      if (item)
        seen.add(item)
    }
  }
  return seen.size > 0 ? [...seen].join(' ') : undefined
}

/** Whether a failed request was refused for authorization (the transports report it in different shapes). */
export function isAuthRefusal(error: unknown): boolean {
  if (error instanceof UnauthorizedError)
    return true
  if (error instanceof StreamableHTTPError || error instanceof SseError)
    return error.code === 401 || error.code === 403
  // The SSE transport's POST reports the status only in its message.
  return error instanceof Error && REFUSED_POST.test(error.message)
}

/** Whether `granted` already holds every scope of `wanted`. */
export function covers(granted: string, wanted: string | undefined): boolean {
  const have = new Set(mergeScopes(granted)?.split(' '))
  return (mergeScopes(wanted)?.split(' ') ?? []).every(scope => have.has(scope))
}

/** Errors that come from the OAuth exchange itself rather than from the MCP connection. */
export function isAuthError(error: Error): boolean {
  if (error instanceof UnauthorizedError || error instanceof OAuthError)
    return true
  return (error instanceof StreamableHTTPError || error instanceof SseError) && (error.code === 401 || error.code === 403)
}
