export { CALLBACK_PATH, startLoopbackCallback } from './callback-server'
export type { LoopbackCallback } from './callback-server'
export { StoreOAuthProvider } from './provider'
export type { PendingAuthorization, StoreOAuthProviderInit } from './provider'
export {
  createOAuthSession,
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  isOAuthConfig,
  McpAuthRequiredError,
  McpOAuthSession,
  normalizeServerConfig,
  validateOAuthConfig,
} from './session'
export { createFileMcpCredentialStore, createMemoryMcpCredentialStore, mcpCredentialKey } from './stores'
export type { McpCredentialStore, McpStoredCredentials } from './types'
