import type { SessionContentBlock, SessionMessage } from '../core/content'
import type { TurnFinishReason, TurnUsage } from '../core/stats'
import type { ToolResult } from '../core/tool-io'
import type { ProviderDecisions } from '../decisions/types'
import type { OAuthRefreshHookContext } from './oauth-hook'
import type { ThinkingLevel } from './thinking'

/** A tool as the model sees it: the (wire) name, a description and a JSON Schema for its input. */
export interface ToolSpec {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** One tool call the model made. `name` is canonical inside the loop, the wire name inside a provider. */
export interface ToolCall {
  id: string
  name: string
  input: Record<string, unknown>
}

export type { ToolResult }

/** What a provider can do; the loop and wire transforms read it instead of checking names. */
export interface ProviderCapabilities {
  /** Images in user prompts. */
  images: boolean
  /** Native PDF documents. */
  documents: boolean
  /** Images and documents inside tool results. */
  toolResultMedia: boolean
  /** Reasoning output and thinking levels. */
  thinking: boolean
  /** Prompt cache breakpoints. */
  promptCache: boolean
  /** With `thinking: 'adaptive'`, `thinkingBudget` caps the whole response rather than the reasoning alone. */
  adaptiveBudgetIsEnvelope?: boolean
  /** Most media blocks one request may carry, when the API has such a limit. */
  maxMediaPerRequest?: number
}

/** Defaults a provider reports about itself. */
export interface ProviderMeta {
  defaultModel: string
  contextWindow?: number
}

/** Everything one model call needs, already provider-neutral. */
export interface StreamOptions {
  model: string
  system: string
  messages: SessionMessage[]
  tools: ToolSpec[]
  thinking: ThinkingLevel
  /** Per-turn reasoning budget in tokens; overrides the level's default. */
  thinkingBudget?: number
  /** Whole-task reasoning budget (Anthropic adaptive thinking only). */
  taskBudget?: number
  /** Send the level-derived effort hint (Anthropic). Default true. */
  effortHint?: boolean
  /** Output-token ceiling; providers pick a model-driven default when absent. */
  maxTokens?: number
  /**
   * Whether the model reasons, when the host's model catalog says so
   * (`ModelInfo.reasoning`). `false`: no reasoning fields are sent, whatever
   * the level; `true`: the level is sent even for a model the provider's own
   * tables do not know as a reasoning model. Absent: those tables decide.
   */
  reasoning?: boolean
  /** Mark cache breakpoints. Default true. */
  cache?: boolean
  cacheTtl?: '5m' | '1h'
  /** Model-specific switches (e.g. `{ fast: true }`); unknown ones are ignored. */
  modelOptions?: Record<string, unknown>
  /** Cancels the request. Providers must pass it to their HTTP client. */
  signal: AbortSignal
}

/**
 * Streaming callbacks. Providers call them as bytes arrive; the loop forwards
 * them to hooks and feeds its watchdogs, so every call also counts as activity.
 */
export interface StreamCallbacks {
  /** A piece of answer text, as it streams. */
  onText: (delta: string) => void
  /** A piece of reasoning, as it streams. */
  onThinking: (delta: string) => void
  /** A tool call's block began; its arguments follow. */
  onToolCallStart?: (call: { id: string, name: string }) => void
  /**
   * A fragment of a tool call's JSON arguments, as it streams (after that
   * call's `onToolCallStart`). The fragments of one call add up to its
   * arguments text; they are not parsed here.
   */
  onToolCallDelta?: (call: { id: string, name: string }, fragment: string) => void
  /**
   * A server-side tool (e.g. Anthropic web search) was called in this turn.
   * The API runs it on its side, so the loop never retries or falls back
   * once this fired: a replay would run the tool again.
   */
  onServerToolUse?: (call: { id: string, name: string }) => void
  /** Any other sign of life (argument fragments, server-tool progress). */
  onActivity?: () => void
  /**
   * The provider refreshed its OAuth credentials (during this call, or during
   * a call that had no callbacks, such as a decision). The loop fires
   * `oauth:refresh` with it and the provider waits for the hook, so a host
   * has stored a rotated refresh token before the next refresh needs it.
   */
  onOAuthRefresh?: (refresh: OAuthRefreshHookContext) => Promise<void> | void
}

/** One finished assistant turn. */
export interface TurnResult {
  /** The assistant message, in order: thinking, text, tool calls, provider-specific blocks. */
  content: SessionContentBlock[]
  /** The tool calls of `content`, in order, for convenience. */
  toolCalls: ToolCall[]
  usage: TurnUsage
  finishReason: TurnFinishReason
  /** Changes the provider reports it made to the request's input before sampling (Anthropic `input_transformations`); absent when none. */
  inputTransformations?: ProviderInputTransformation[]
  /** The provider's id of this response (Anthropic's message id, OpenAI's response or completion id), when it sent one. */
  responseId?: string
}

/**
 * One change a provider made to the input it was sent, as it reported it:
 * Anthropic's `thinking_dropped` (a replayed thinking block removed before
 * the model saw it) and `thinking_mismatch_allowed` entries, and any type the
 * API adds later, passed through as sent.
 */
export interface ProviderInputTransformation {
  /** `'thinking_dropped'`, `'thinking_mismatch_allowed'`, or a newer type. */
  type: string
  /** Where the block was in the request the provider received, e.g. `messages.3.content.0`. */
  path?: string
  /** Which check the block failed (e.g. `prefix_binding_mismatch`). */
  reason?: string
}

/**
 * A model API behind one small seam. `stream()` turns provider-neutral options
 * into the vendor's request, streams it, and resolves with the finished turn;
 * failures are thrown as `ClassifiedError` so the loop can decide what to do.
 */
export interface Provider {
  readonly name: string
  readonly meta: ProviderMeta
  readonly capabilities: ProviderCapabilities
  /** Stream one model turn: report deltas through `callbacks` as they arrive, resolve with the finished turn. */
  stream: (options: StreamOptions, callbacks: StreamCallbacks) => Promise<TurnResult>
  /**
   * One short structured call that answers typed questions (`agent.decide`),
   * in the API's cheapest reliable structured mode. Optional: a provider
   * without it is skipped when the agent picks where decisions go.
   */
  decisions?: ProviderDecisions
  /**
   * Load what the first request needs (an SDK kept off the import path).
   * `createAgent` calls it without waiting, so the load overlaps whatever the
   * host does before its first run; the loop calls it again and awaits it
   * before the stream watchdogs start, under bounds of its own, so the load is
   * never counted by them. Returns nothing once everything is loaded, and
   * tries again on the next call after a failed load. Optional; a failed load
   * is reported by `stream()`, never by `createAgent`.
   */
  prepare?: () => PromiseLike<void> | void
}
