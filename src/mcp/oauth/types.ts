/**
 * What the OAuth flow keeps for one server between connections: the tokens,
 * the client registration (dynamic or pre-registered), and the PKCE verifier
 * of an authorization still in progress.
 *
 * Records are plain JSON. Besides the fields below the flow stores whatever
 * the authorization server returned (`issuer`, `redirect_uris`, …) unchanged,
 * so a store must keep unknown fields.
 */
export interface McpStoredCredentials {
  tokens?: {
    access_token: string
    token_type: string
    refresh_token?: string
    expires_in?: number
    scope?: string
    id_token?: string
    /** The authorization server that issued the tokens; a refresh token is only ever sent back there. */
    issuer?: string
    /** Epoch milliseconds when the access token stops working (computed from `expires_in` when saved). */
    expires_at?: number
  }
  /**
   * The OAuth client. Written by dynamic registration, or by the host for a
   * pre-registered client whose secret the user typed in (`client_id` may then
   * be left out; the secret is used for the configured `oauth.clientId`).
   * `private_key` is the PKCS#8 PEM key of a `private_key_jwt` client
   * without `oauth.privateKey`.
   */
  client?: {
    client_id?: string
    client_secret?: string
    private_key?: string
    [key: string]: unknown
  }
  codeVerifier?: string
}

/** Where OAuth credentials live. Keys identify a server (its name and URL, see `mcpCredentialKey`). */
export interface McpCredentialStore {
  /** What was stored under `key`, or `undefined` before the first sign-in. */
  load: (key: string) => Promise<McpStoredCredentials | undefined>
  /** Store tokens and client registration under `key`, replacing what was there. */
  save: (key: string, credentials: McpStoredCredentials) => Promise<void>
  /** Remove what is stored under `key` (called once nothing is left to keep). */
  delete: (key: string) => Promise<void>
}
