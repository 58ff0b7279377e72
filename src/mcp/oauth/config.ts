import type { McpServerConfig } from '../types'
import { mergeObjects } from '../../core/merge-objects'

/** Token-endpoint authentications the grants without a user (client credentials, JWT bearer) support. */
const CLIENT_CREDENTIALS_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const

/** Whether a (normalized) config asks for OAuth. */
export function isOAuthConfig(config: McpServerConfig): boolean {
  return config.auth === 'oauth' || config.oauth !== undefined
}

/** Whether a (normalized) config uses the machine-to-machine grant. */
export function isClientCredentialsConfig(config: McpServerConfig): boolean {
  return config.oauth?.grantType === 'client_credentials'
}

/** Whether a (normalized) config uses enterprise-managed authorization (ID-JAG, then the JWT bearer grant). */
export function isJwtBearerConfig(config: McpServerConfig): boolean {
  return config.oauth?.grantType === 'jwt_bearer'
}

const GRANT_TYPES = ['authorization_code', 'client_credentials', 'jwt_bearer']

/** An absolute http(s) URL, else undefined. */
function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined
  }
  catch {
    return undefined
  }
}

function validateIdentityProvider(client: NonNullable<McpServerConfig['oauth']>, where: string): void {
  const idp = client.identityProvider
  if (client.grantType !== 'jwt_bearer') {
    if (idp !== undefined)
      throw new Error(`${where}: oauth.identityProvider applies to grantType 'jwt_bearer' only`)
    return
  }
  if (idp === undefined || typeof idp !== 'object')
    throw new Error(`${where}: grantType 'jwt_bearer' needs oauth.identityProvider (the IdP's tokenEndpoint and this client's clientId there)`)
  if (typeof idp.tokenEndpoint !== 'string' || !httpUrl(idp.tokenEndpoint))
    throw new Error(`${where}: oauth.identityProvider.tokenEndpoint must be an http(s) URL, got ${JSON.stringify(idp.tokenEndpoint)} (is the variable it names set?)`)
  if (typeof idp.clientId !== 'string' || idp.clientId.trim() === '')
    throw new Error(`${where}: oauth.identityProvider.clientId is empty (is the variable it names set?)`)
  if (idp.idToken !== undefined && (typeof idp.idToken !== 'string' || idp.idToken.trim() === ''))
    throw new Error(`${where}: oauth.identityProvider.idToken is empty (is the variable it names set?)`)
}

/**
 * Map config spellings from other hosts onto ours, before expansion and
 * validation: Cursor's `authMethod: 'mcpOAuth'` means `auth: 'oauth'`, and so
 * does an `oauth` client block on its own.
 */
export function normalizeServerConfig(config: McpServerConfig): McpServerConfig {
  if (config.auth === undefined && (config.authMethod === 'mcpOAuth' || config.oauth !== undefined))
    return mergeObjects(config, { auth: 'oauth' })
  return config
}

/** Reject OAuth settings this module cannot honor (the config is already expanded). */
export function validateOAuthConfig(config: McpServerConfig, where = `MCP server "${config.name}"`): void {
  if (config.transport === 'stdio')
    throw new Error(`${where}: OAuth needs an sse or streamable-http transport (a stdio server gets its credentials through env)`)
  const client = config.oauth
  if (client) {
    if (typeof client.clientId !== 'string' || client.clientId.trim() === '')
      throw new Error(`${where}: oauth.clientId is empty (is the variable it names set?)`)
    const port = client.callbackPort
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
      throw new Error(`${where}: oauth.callbackPort must be a port number (1-65535), got ${JSON.stringify(port)}`)
    if (client.grantType !== undefined && !GRANT_TYPES.includes(client.grantType))
      throw new Error(`${where}: oauth.grantType must be one of ${GRANT_TYPES.map(g => `'${g}'`).join(', ')}, got ${JSON.stringify(client.grantType)}`)
    const method = client.tokenEndpointAuthMethod
    if (method !== undefined && !(CLIENT_CREDENTIALS_METHODS as readonly string[]).includes(method))
      throw new Error(`${where}: oauth.tokenEndpointAuthMethod must be one of ${CLIENT_CREDENTIALS_METHODS.join(', ')}, got ${JSON.stringify(method)}`)
    if (method !== undefined && client.grantType !== 'client_credentials' && client.grantType !== 'jwt_bearer')
      throw new Error(`${where}: oauth.tokenEndpointAuthMethod applies to grantType 'client_credentials' or 'jwt_bearer' only`)
    validateIdentityProvider(client, where)
    if (client.privateKey !== undefined && method !== 'private_key_jwt')
      throw new Error(`${where}: oauth.privateKey needs tokenEndpointAuthMethod 'private_key_jwt'`)
    if (client.privateKey !== undefined && client.privateKey.trim() === '')
      throw new Error(`${where}: oauth.privateKey is empty (is the variable it names set?)`)
  }
  // The flow sets the Authorization header of every request; a configured one would be silently replaced.
  if (config.headers && Object.keys(config.headers).some(name => name.toLowerCase() === 'authorization'))
    throw new Error(`${where}: an Authorization header cannot be combined with OAuth (the flow provides it)`)
}
