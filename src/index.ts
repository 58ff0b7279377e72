/**
 * `zidane`: create an agent, give it tools, run it.
 *
 *   import { createAgent, tool } from 'zidane'
 *
 * @module zidane
 */

export type { AgentApprovals } from './agent/approvals'
export type { ContextBreakdown, ContextMessageCategory, ContextPart, ContextSize } from './agent/context-breakdown'
export { createAgent } from './agent/create-agent'
export type { Agent, AgentResumeOptions, RunOptionsWithSchema } from './agent/create-agent'
export type { AgentDecisionsOptions } from './agent/decide'
export type { AgentOptions, AgentProfile, AgentRunOptions } from './agent/options'
export type { QueuedMessageOptions, SystemNoteText } from './agent/options'
export type { QueuedUserMessage } from './agent/steering'
export { DEFAULT_STREAM_HIGH_WATER_MARK } from './agent/stream'
export type { AgentStream, AgentStreamOptions } from './agent/stream'
export type * from './agent/stream-events'
export type { ApprovalDecision, PendingApproval } from './core/approval'
export { DEFAULT_AGENT_CLOCK } from './core/clock'
export type { AgentClock } from './core/clock'
export type * from './core/content'
export { defaultRunEffects } from './core/effects'
export type { ModelCallKind, ModelCallRequest, RunEffects, ToolCallRecord, ToolCallRequest } from './core/effects'
export { flattenTurns, statsByModel } from './core/stats'
export type { AgentStats, ChildRunStats, ModelUsage, OutputError, SchemaOutput, SideCallUsage, TurnFinishReason, TurnUsage } from './core/stats'
export type { StopReason, StopReasons } from './core/stop-reason'
export { TOOL_OUTPUT_LIMITS, TOOL_PROGRESS_LIMITS } from './core/tool-io'
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
export { AgentLengthResumeExhaustedError } from './errors'
export type { AgentHookBus, AgentHookRegistration } from './hooks/bus'
export type * from './hooks/hook-map'
export { createMutationValidationHooks } from './hooks/mutation-validation'
export type { MutationValidationBatch, MutationValidationFailure, MutationValidationHooks, MutationValidationHooksOptions, MutationValidationMutation, MutationValidationResult, SuccessfulMutationOutcome } from './hooks/mutation-validation'
export type { AgentBehavior, CacheTtl, CodemodeConfig, OutputSchema, OutputZodSchema, RepeatGuardConfig, RepeatGuardMessage, RepeatGuardToolMatcher, RetryConfig, ToolBatch, ToolBatchExecutor } from './knobs/behavior'
export type { ThinkingDecay, ThinkingDecayFunction, ThinkingDecayGeometric, ThinkingDecayStep } from './knobs/behavior'
export type { MediaBudget } from './knobs/behavior'
export { DEFAULT_BUDGET_EXCLUDE_TOOLS } from './knobs/budget-knobs'
export type { DedupHasher, StaleReadPolicy, ToolBudget, ToolBudgetExceedContext, ToolBudgetMode, ToolBudgetOnExceed } from './knobs/budget-knobs'
export type { AutoCompact, AutoCompactConfig, CompactFunction, CompactSkip } from './knobs/compaction-knobs'
export { shouldAutoCompact } from './policies/compact-summary'
export { continueWith, definePolicy, nudge } from './policies/policy'
export type * from './policies/policy'
export { canonicalShellCommand, defaultRepeatKey } from './policies/repeat-guard'
export { recommendedRepeatGuard } from './policies/repeat-guard/recommended'
export type { RecommendedRepeatGuardOptions } from './policies/repeat-guard/recommended'
export type { ModelTarget, ModelTargetSpec } from './providers/model-targets'
export { THINKING_LEVELS } from './providers/thinking'
export type { ThinkingLevel } from './providers/thinking'
export type { Provider, StreamOptions, TurnResult } from './providers/types'
export { catalogChangeNotes, composeSystemPrompt, latestSystemSnapshot, systemSnapshotTurn } from './session/system-freeze'
export type { FrozenPromptSections, SystemFreezeOptions, SystemPromptSnapshot } from './session/system-freeze'
export { toolOutputBudgetByteLength, toolOutputByteLength, toolResultToText } from './session/tool-output'
export { DEFAULT_MAX_CONTENT_BYTES } from './telemetry/options'
export type { AgentTelemetry, TelemetryContentInfo } from './telemetry/options'
export { createMemoryToolStateStore, createToolStateController, DEFAULT_MAX_VALUE_BYTES, stagedToolState } from './tool-state'
export type { AgentToolState, StagedToolState, ToolStateController, ToolStateOp, ToolStateStore, ToolStateView } from './tool-state'
export type { ToolProgressContext } from './tools/hooks'
export type { ApprovalDecisionOptions } from './tools/hooks'
export { OUTPUT_TOOL_NAME, parsePartialJson } from './tools/output-schema'
export { tool } from './tools/tool'
export type { ApprovalCheck, NeedsApproval, NeedsApprovalMap, NestedToolCallOptions, NestedToolCallResult, ToolContext, ToolDef, ToolMap, ToolOutcome, ToolOutput, ToolProgress, ToolProgressUpdate } from './tools/types'
export { filterUnresolvedToolUses, repairToolPairing, SYNTHETIC_TOOL_RESULT_PLACEHOLDER } from './wire/pairing'
