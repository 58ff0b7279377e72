export { CALLBACK_PATH, startLoopbackCallback } from './callback-server'
export type { LoopbackCallback } from './callback-server'
export { OAuthInteractionNeeded, StoreOAuthProvider } from './provider'
export type { AssertionTarget, MachineClientInit, PendingAuthorization, StoreOAuthProviderInit } from './provider'
export {
  createOAuthSession,
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  isOAuthConfig,
  MAX_AUTHORIZATIONS_PER_REQUEST,
  McpAuthRequiredError,
  McpOAuthSession,
  normalizeServerConfig,
  validateOAuthConfig,
} from './session'
export type { OAuthBudget, OAuthRunOptions } from './session'
export { createFileMcpCredentialStore, createMemoryMcpCredentialStore, mcpCredentialKey } from './stores'
export type { McpCredentialStore, McpStoredCredentials } from './types'
