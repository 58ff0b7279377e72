/**
 * `zidane/types`: the public types for code that only needs to name them
 * (shared packages, UI adapters). Everything here is a type except a few tiny
 * pure helpers and the default clock, so `import type` adds nothing to a bundle.
 *
 * @module zidane/types
 */

export type { Agent } from './agent/create-agent'
export type { AgentOptions, AgentRunOptions } from './agent/options'
export type { QueuedMessageOptions, SystemNoteText } from './agent/options'
export type { QueuedUserMessage } from './agent/steering'
export type { AgentStream, AgentStreamOptions } from './agent/stream'
export type * from './agent/stream-events'
export type * from './behavior/policy'
export type { SandboxProvider } from './contexts/sandbox'
export type {
  BackgroundTaskStatus,
  ContextCapabilities,
  ContextHardening,
  ContextType,
  DetachedTasksCapability,
  ExecResult,
  ExecutionContext,
  ExecutionHandle,
  SpawnConfig,
  TaskEntry,
  TaskExitInfo,
  TaskHandle,
  TaskStallInfo,
} from './contexts/types'
export type { AgentClock } from './core/clock'
export { DEFAULT_AGENT_CLOCK } from './core/clock'
export type * from './core/content'
export type { AgentStats, ChildRunStats, ModelUsage, OutputError, TurnFinishReason, TurnUsage } from './core/stats'
export { flattenTurns, statsByModel } from './core/stats'
export type { StopReason } from './core/stop-reason'
export type {
  AgentAbortedError,
  AgentBehaviorError,
  AgentBudgetExceededError,
  AgentBusyError,
  AgentContextExceededError,
  AgentLengthResumeExhaustedError,
  AgentPolicyError,
  AgentPolicyProblem,
  AgentProviderError,
  AgentToolNotAllowedError,
  AgentToolPairingError,
  BudgetLimit,
  ClassifiedError,
  ClassifiedErrorKind,
  MissingPeerDependencyError,
  OperationTimeoutError,
  PairingRepair,
  SessionRecordLocation,
  SessionStoreError,
  WorkingDirectoryError,
} from './errors'
export type { AgentHookBus } from './hooks/bus'

export type * from './hooks/hook-map'
export type { AgentBehavior, CacheTtl, OutputSchema, OutputZodSchema, RetryConfig, ToolSearchBehavior } from './knobs/behavior'
export type { McpElicitationContext } from './mcp/elicitation'
export type { McpAuthRequiredContext, McpCloseContext, McpConnection, McpOAuthClientConfig, McpServerConfig, McpServerInfo, McpServerStatus, McpToolSchema, McpToolsFilterContext } from './mcp/types'
export type { Preset } from './presets'
export type { ModelCatalog, ModelInfo, ModelPricing } from './providers/catalog/types'
export type { ModelTarget, ModelTargetSpec } from './providers/model-targets'
export type { ThinkingLevel } from './providers/thinking'
export type {
  Provider,
  ProviderCapabilities,
  ProviderMeta,
  StreamCallbacks,
  StreamOptions,
  ToolCall,
  ToolResult,
  ToolSpec,
  TurnResult,
} from './providers/types'
export type { CreateSessionOptions, LoadSessionOptions, Session } from './session/session'
export type { FrozenPromptSections, SystemFreezeOptions, SystemPromptSnapshot } from './session/system-freeze'
export { toolOutputBudgetByteLength, toolOutputByteLength, toolResultToText } from './session/tool-output'
export type { CreateSessionRecord, SessionData, SessionEndStatus, SessionLoadOptions, SessionRun, SessionRunAgent, SessionRunUsage, SessionStore, SkippedSessionRecord } from './session/types'
export type { AgentToolState, StagedToolState, ToolStateCommitResult, ToolStateController, ToolStateOp, ToolStateStore, ToolStateView } from './tool-state/types'
export type { InteractionToolOptions } from './tools/interaction'
export type { ToolDescriptionOverride, ToolDescriptions, ToolDescriptionTarget, ToolPrompts } from './tools/prompts'
export type { ReadStateEntry, ReadStateMap } from './tools/read-state'
export type { ChildAgent, SpawnedChild, SpawnTool, SpawnToolOptions, SpawnToolState } from './tools/spawn'
export type { ToolCatalogEntry } from './tools/tool-search'
export type { ToolContext, ToolDef, ToolEnvelopeTarget, ToolMap, ToolOutcome, ToolOutput, ValidationResult } from './tools/types'
