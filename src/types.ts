/**
 * `zidane/types`: the public types for code that only needs to name them
 * (shared packages, UI adapters). Everything here is a type except a few tiny
 * pure helpers and the default clock, so `import type` adds nothing to a bundle.
 *
 * @module zidane/types
 */

export type { ContextBreakdown, ContextMessageCategory, ContextPart, ContextSize } from './agent/context-breakdown'
export type { Agent, RunOptionsWithSchema } from './agent/create-agent'
export type { AgentDecisionsOptions } from './agent/decide'
export type { AgentOptions, AgentProfile, AgentRunOptions } from './agent/options'
export type { QueuedMessageOptions, SystemNoteText } from './agent/options'
export type { QueuedUserMessage } from './agent/steering'
export type { AgentStream, AgentStreamOptions } from './agent/stream'
export type * from './agent/stream-events'
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
export type { DurableMode, DurableRuntime } from './core/durable-runtime'
export type { ModelCallKind, ModelCallRequest, RunEffects, ToolCallRecord, ToolCallRequest } from './core/effects'
export type { MaybePromise } from './core/maybe-promise'
export type { ApprovalDecision, PendingApproval, RunReadState, RunState, RunStateTarget } from './core/run-state'
export type { AgentStats, ChildRunStats, ModelUsage, OutputError, SchemaOutput, SideCallUsage, TurnFinishReason, TurnUsage } from './core/stats'
export { flattenTurns, statsByModel } from './core/stats'
export type { StopReason, StopReasons } from './core/stop-reason'
export type {
  AgentDecide,
  DecideHookContext,
  DecideOptions,
  DecisionAnswer,
  DecisionAnswerFor,
  DecisionAnswers,
  DecisionChoiceAnswer,
  DecisionChoiceQuestion,
  DecisionEndHookContext,
  DecisionFailure,
  DecisionFailureReason,
  DecisionInput,
  DecisionInputKind,
  DecisionOutcome,
  DecisionPredicateAnswer,
  DecisionPredicateQuestion,
  DecisionQuestion,
  DecisionQuestions,
  DecisionRecord,
  DecisionRefusalAnswer,
  DecisionRequest,
  DecisionScoreAnswer,
  DecisionScoreQuestion,
  DecisionStartHookContext,
  DecisionSuccess,
  DecisionUsage,
} from './decisions/types'
export type { DecisionCall, DecisionReply, DecisionReplyBody, ProviderDecisions } from './decisions/types'
export type {
  AgentAbortedError,
  AgentBehaviorError,
  AgentBudgetExceededError,
  AgentBusyError,
  AgentContentRefError,
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
  CompactionRefusedError,
  CompactRefusalReason,
  DecisionError,
  DecisionErrorInit,
  McpConnectorUnavailableError,
  McpIdentityAssertionError,
  McpIdentityAssertionStage,
  MissingPeerDependencyError,
  OAuthRefreshError,
  OAuthRefreshFailure,
  OperationTimeoutError,
  PairingRepair,
  SessionLease,
  SessionLeaseError,
  SessionRecordLocation,
  SessionStoreError,
  WorkingDirectoryError,
} from './errors'
export { CONTEXT_EXCEEDED_MESSAGE_PATTERNS, matchesContextExceeded } from './errors'
export type { AgentHookBus, AgentHookRegistration } from './hooks/bus'
export type * from './hooks/hook-map'

export type { MutationValidationBatch, MutationValidationFailure, MutationValidationHooks, MutationValidationHooksOptions, MutationValidationMutation, MutationValidationResult, SuccessfulMutationOutcome } from './hooks/mutation-validation'
export type { AgentBehavior, CacheTtl, CodemodeConfig, OutputSchema, OutputZodSchema, RepeatGuardConfig, RepeatGuardMessage, RepeatGuardToolMatcher, RetryConfig, ToolBatch, ToolBatchExecutor, ToolSearchBehavior } from './knobs/behavior'
export type { ThinkingDecay, ThinkingDecayFunction, ThinkingDecayGeometric, ThinkingDecayStep } from './knobs/behavior'
export type { MediaBudget } from './knobs/behavior'
export type { DedupHasher, StaleReadPolicy, ToolBudget, ToolBudgetExceedContext, ToolBudgetMode, ToolBudgetOnExceed } from './knobs/budget-knobs'
export type { AutoCompact, AutoCompactConfig, CompactFunction, CompactSkip } from './knobs/compaction-knobs'
export type { ProgressNudgeKind, ProgressNudgeMessage, ProgressNudgesConfig, ShellToolNudgesConfig, ThinkingOverrunConfig, ThinkingOverrunMode, UnknownToolMessageContext, UnknownToolRecoveryConfig } from './knobs/nudge-knobs'
export type { McpElicitationContext } from './mcp/elicitation-form'
export type { ConnectMcpServersOptions, McpAuthRequiredContext, McpCloseContext, McpConnection, McpOAuthClientConfig, McpServerConfig, McpServerInfo, McpServerStatus, McpToolSchema, McpToolsFilterContext } from './mcp/types'
export type { McpIdentityProviderConfig, McpIdentityTokenContext } from './mcp/types'
export type { AgentPlugin, AgentPluginManifest, AgentPluginProblem, LoadAgentPluginOptions } from './plugins/types'
export type * from './policies/policy'
export type { Preset } from './presets'
export type { AnthropicParams } from './providers/anthropic'
export type { ModelCatalog, ModelInfo, ModelPricing } from './providers/catalog/types'
export type { CerebrasParams } from './providers/cerebras'
export type { ModelTarget, ModelTargetSpec } from './providers/model-targets'
export type { OpenAIParams } from './providers/openai'
export type { OpenRouterParams } from './providers/openrouter'
export type { ThinkingLevel } from './providers/thinking'
export type {
  Provider,
  ProviderCapabilities,
  ProviderInputTransformation,
  ProviderMeta,
  StreamCallbacks,
  StreamOptions,
  ToolCall,
  ToolResult,
  ToolSpec,
  TurnResult,
} from './providers/types'
export type { CreateSessionOptions, LoadSessionOptions, Session } from './session/session'
export type { RemoteStoreHeaders, RemoteStoreOptions } from './session/stores/remote'
export type { FrozenPromptSections, SystemFreezeOptions, SystemPromptSnapshot } from './session/system-freeze'
export { toolOutputBudgetByteLength, toolOutputByteLength, toolResultToText } from './session/tool-output'
export type { CreateSessionRecord, SessionData, SessionEndStatus, SessionLoadOptions, SessionRun, SessionRunAgent, SessionRunOrigin, SessionRunUsage, SessionStore, SkippedSessionRecord } from './session/types'
export type { LoadedSkills, SkillConfig, SkillResource, SkillsConfig, SkillSkip, SkillSource } from './skills/types'
export { DEFAULT_MAX_CONTENT_BYTES } from './telemetry/options'
export type { AgentTelemetry, TelemetryContentInfo } from './telemetry/options'
export type { AgentToolState, StagedToolState, ToolStateCommitResult, ToolStateController, ToolStateOp, ToolStateStore, ToolStateView } from './tool-state/types'
export type { ToolProgressContext } from './tools/hooks'
export type { ApprovalDecisionOptions } from './tools/hooks'
export type { InteractionToolOptions } from './tools/interaction'
export type { ToolDescriptionOverride, ToolDescriptions, ToolDescriptionTarget, ToolPrompts } from './tools/prompts'
export type { ReadStateEntry, ReadStateMap } from './tools/read-state'
export type { ChildAgent, SpawnedChild, SpawnTool, SpawnToolOptions, SpawnToolState } from './tools/spawn'
export type { ToolCatalogEntry } from './tools/tool-search'
export type { ApprovalCheck, DurableToolDef, NeedsApproval, NeedsApprovalMap, NestedToolCallOptions, NestedToolCallResult, ToolContext, ToolDef, ToolEnvelopeTarget, ToolMap, ToolOutcome, ToolOutput, ToolProgress, ToolProgressUpdate, ValidationResult } from './tools/types'
