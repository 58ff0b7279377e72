/**
 * Typed errors. The loop keeps failures as values (`ClassifiedError`) until it
 * decides what they mean; only the stops the contract says throw reach the
 * caller of `agent.run()`, and each carries the data a host needs to react.
 * Each group lives in its own module under `errors/`; this entry re-exports them all.
 *
 * @module zidane/errors
 */

export type { AgentPolicyProblem } from './errors/configuration'
export { AgentBehaviorError, AgentPolicyError, MissingPeerDependencyError } from './errors/configuration'
export type { DecisionErrorInit, DecisionFailureReason } from './errors/decisions'
export { DecisionError } from './errors/decisions'
export { DurablePayloadTooLargeError } from './errors/durable'
export type { McpIdentityAssertionStage } from './errors/mcp'
export { McpConnectorUnavailableError, McpIdentityAssertionError } from './errors/mcp'
export type { ClassifiedErrorInit, ClassifiedErrorKind, OAuthRefreshFailure } from './errors/provider'
export { AgentContextExceededError, AgentProviderError, ClassifiedError, CONTEXT_EXCEEDED_MESSAGE_PATTERNS, matchesContextExceeded, OAuthRefreshError } from './errors/provider'
export type { BudgetLimit, CompactRefusalReason, PairingRepair } from './errors/run'
export { AgentAbortedError, AgentBudgetExceededError, AgentBusyError, AgentContentRefError, AgentLengthResumeExhaustedError, AgentToolPairingError, CompactionRefusedError, OperationTimeoutError } from './errors/run'
export type { SessionLease, SessionRecordLocation } from './errors/session'
export { RunStateError, SessionLeaseError, SessionStoreError } from './errors/session'
export { AgentPluginError, SkillValidationError } from './errors/skills-and-plugins'
export { AgentToolNotAllowedError, ToolApprovalError, WorkingDirectoryError } from './errors/tools'
