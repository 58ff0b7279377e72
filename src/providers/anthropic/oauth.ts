/**
 * Anthropic OAuth (a Claude subscription's credentials instead of an API
 * key): the access token goes out as a bearer token through the SDK client,
 * and is refreshed with the refresh-token grant shortly before it expires,
 * and once when the API answers 401 anyway. One refresh at a time: requests
 * that need one while it runs wait for it. A token never reaches a message,
 * a log line or an error; only the `oauth:refresh` hook gets the credentials.
 */

import type { OAuthRefreshHookContext } from '../oauth-hook'
import { readTextCapped } from '../../core/capped-body'
import { timeoutSignal } from '../../core/timer'
import { untilAborted } from '../../core/until-aborted'
import { OAuthRefreshError } from '../../errors'
import { PROVIDER_NAME } from './errors'

/** The credentials `anthropic({ oauth })` takes: `expires` is the access token's expiry, in epoch milliseconds. */
export interface AnthropicOAuthCredentials {
  access: string
  refresh: string
  expires: number
  /** Where the refresh-token grant is posted. Default: Anthropic's console token endpoint. */
  tokenUrl?: string
  /** The OAuth client the refresh token was issued to. Default: the Claude Code client. */
  clientId?: string
}

/** The token endpoint the Claude Code login uses. */
export const ANTHROPIC_OAUTH_TOKEN_URL = 'https://console.anthropic.com/v1/oauth/token'
/** The public OAuth client id of Claude Code, which subscription tokens are issued to. */
export const ANTHROPIC_OAUTH_CLIENT_ID = '9d1c250a-e61b-44d9-88ed-5944d1962f5e'
/** The beta the Messages API needs to accept an OAuth bearer token. */
export const OAUTH_BETA = 'oauth-2025-04-20'
/** A token is refreshed this long before it expires, so a request never leaves with one about to lapse. */
export const OAUTH_REFRESH_MARGIN_MS = 60_000
/** Bound on one token request. */
export const OAUTH_REFRESH_TIMEOUT_MS = 30_000
/** A token endpoint's answer larger than this is refused unread. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024
/** A token longer than this is not a token. */
const MAX_TOKEN_CHARS = 16 * 1024
const WHITESPACE = /\s/
const OAUTH_ERROR_CODE = /^[\w.-]{1,64}$/
/** An `expires_in` past ten years is not an expiry. */
const MAX_EXPIRES_IN_S = 10 * 365 * 24 * 3600

/** The credentials as the hook reports them. */
type HookCredentials = OAuthRefreshHookContext['credentials']

/** The live credentials of one provider, and the refresh flow. */
export interface AnthropicOAuthSession {
  /** The current access token (for the client's bearer auth). */
  readonly access: () => string
  /** Refresh first when the token expires within the margin; resolves with the token to use. */
  readonly fresh: (signal: AbortSignal) => Promise<string>
  /** The API refused `rejected`: refresh unless another request already did; resolves with the token to retry with. */
  readonly afterRejection: (rejected: string, signal: AbortSignal) => Promise<string>
  /** Refreshes not yet reported on `oauth:refresh`, oldest first; taking them empties the list. */
  readonly takeReports: () => OAuthRefreshHookContext[]
}

/** Reports kept for the hook at most; an older one is dropped first (its credentials are stale anyway). */
const MAX_PENDING_REPORTS = 8

export function anthropicOAuthSession(initial: AnthropicOAuthCredentials, now: () => number = Date.now): AnthropicOAuthSession {
  checkCredentials(initial)
  const tokenUrl = initial.tokenUrl ?? ANTHROPIC_OAUTH_TOKEN_URL
  const clientId = initial.clientId ?? ANTHROPIC_OAUTH_CLIENT_ID
  let current: HookCredentials = { access: initial.access, refresh: initial.refresh, expires: initial.expires }
  let refreshing: Promise<string> | undefined
  const reports: OAuthRefreshHookContext[] = []

  const refresh = (signal: AbortSignal): Promise<string> => {
    if (!refreshing) {
      const previous = current
      const flight = requestTokens(tokenUrl, clientId, previous.refresh, now).then((next) => {
        current = next
        reports.push({ provider: PROVIDER_NAME, providerId: PROVIDER_NAME, source: 'params', previousCredentials: previous, credentials: next })
        if (reports.length > MAX_PENDING_REPORTS)
          reports.shift()
        return next.access
      })
      refreshing = flight
      const settle = () => {
        if (refreshing === flight)
          refreshing = undefined
      }
      flight.then(settle, settle)
    }
    // A request that gives up waiting leaves the refresh running for the others.
    return untilAborted(refreshing, signal)
  }

  return {
    access: () => current.access,
    fresh: signal => now() + OAUTH_REFRESH_MARGIN_MS < current.expires && !refreshing ? Promise.resolve(current.access) : refresh(signal),
    afterRejection: (rejected, signal) => rejected === current.access ? refresh(signal) : untilAborted(Promise.resolve(current.access), signal),
    takeReports: () => reports.splice(0),
  }
}

/** Post the refresh-token grant and check what comes back. */
async function requestTokens(tokenUrl: string, clientId: string, refreshToken: string, now: () => number): Promise<HookCredentials> {
  // The refresh is shared by every waiting request, so no caller's signal cuts it; the timeout bounds it.
  const deadline = timeoutSignal(OAUTH_REFRESH_TIMEOUT_MS)
  try {
    let response: Response
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
        signal: deadline.signal,
        redirect: 'error',
      })
    }
    catch {
      throw failure(deadline.signal.aborted ? 'timeout' : 'network', deadline.signal.aborted
        ? `the token endpoint did not answer within ${OAUTH_REFRESH_TIMEOUT_MS}ms`
        : 'the token endpoint could not be reached')
    }
    const text = await readTextCapped(response, MAX_TOKEN_RESPONSE_BYTES).catch(() => {
      throw failure(deadline.signal.aborted ? 'timeout' : 'network', 'the token endpoint\'s answer was cut off')
    })
    if (text === undefined)
      throw failure('too-large', `the token endpoint's answer is larger than ${MAX_TOKEN_RESPONSE_BYTES} bytes`, response.status)
    const body = parseObject(text)
    if (!response.ok) {
      const code = oauthErrorCode(body)
      throw failure('http', `the token endpoint refused the refresh (HTTP ${response.status}${code ? `, ${code}` : ''})`, response.status, code)
    }
    if (!body)
      throw failure('malformed', 'the token endpoint\'s answer is not a JSON object', response.status)
    const access = body.access_token
    const rotated = body.refresh_token
    const expiresIn = body.expires_in
    if (!isToken(access))
      throw failure('malformed', 'the token endpoint\'s answer has no usable access_token', response.status)
    if (rotated !== undefined && !isToken(rotated))
      throw failure('malformed', 'the token endpoint\'s answer has an unusable refresh_token', response.status)
    if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0 || expiresIn > MAX_EXPIRES_IN_S)
      throw failure('malformed', 'the token endpoint\'s answer has no usable expires_in', response.status)
    return { access, refresh: rotated ?? refreshToken, expires: now() + expiresIn * 1000 }
  }
  finally {
    deadline.clear()
  }
}

function failure(reason: OAuthRefreshError['reason'], detail: string, status?: number, code?: string): OAuthRefreshError {
  return new OAuthRefreshError({ provider: PROVIDER_NAME, reason, message: `Anthropic OAuth refresh failed: ${detail}`, status, code })
}

function checkCredentials(value: AnthropicOAuthCredentials): void {
  const ok = typeof value === 'object' && value !== null
    && isToken(value.access) && isToken(value.refresh)
    && typeof value.expires === 'number' && !Number.isNaN(value.expires)
    && (value.tokenUrl === undefined || isHttpUrl(value.tokenUrl))
    && (value.clientId === undefined || (typeof value.clientId === 'string' && value.clientId.length > 0))
  if (!ok)
    throw new TypeError('anthropic({ oauth }) needs { access, refresh, expires } (non-empty tokens, expiry in epoch ms) and, when set, an http(s) tokenUrl and a clientId')
}

function isToken(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TOKEN_CHARS && !WHITESPACE.test(value)
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string')
    return false
  try {
    const protocol = new URL(value).protocol
    return protocol === 'https:' || protocol === 'http:'
  }
  catch {
    return false
  }
}

/** An OAuth `error` code, kept only when it looks like one (it ends up in a message). */
function oauthErrorCode(body: Record<string, unknown> | undefined): string | undefined {
  const code = body?.error
  return typeof code === 'string' && OAUTH_ERROR_CODE.test(code) ? code : undefined
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
