/** The `oauth:refresh` event's context, on its own so provider types and the provider events can both name it. */

/** OAuth credentials as a provider keeps them: `expires` is the access token's expiry, in epoch milliseconds. */
export type OAuthCredentials = Record<string, unknown> & { access: string, refresh: string, expires: number }

/**
 * `oauth:refresh`: a provider refreshed its OAuth credentials. The refresh
 * token may have been rotated (the old one no longer works), so a host that
 * keeps credentials stores `credentials` here. The only event that carries
 * tokens.
 */
export interface OAuthRefreshHookContext {
  /** Name of the provider whose credentials were refreshed. */
  provider: string
  /** OAuth provider id used to look up the refresh flow. */
  providerId: string
  /** Where the credentials came from: provider params or the shared credentials file. */
  source: 'params' | 'file'
  /** Credentials before the refresh. */
  previousCredentials: OAuthCredentials
  /** Credentials after the refresh. */
  credentials: OAuthCredentials
}
