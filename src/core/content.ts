/**
 * The provider-neutral conversation shapes: what a session stores and what the
 * loop hands to a provider's wire builder. Providers translate these blocks;
 * nothing here knows any vendor's format.
 */

import type { TurnUsage } from './stats'

/** Tool-result content blocks (what a tool may return besides a plain string). */
export interface ToolResultTextContent { type: 'text', text: string }
/** An image in a tool result, with its bytes inline. */
export interface ToolResultImageContent { type: 'image', data: string, mediaType: string, name?: string, ref?: undefined }
/** An image in a tool result, stored elsewhere and named by `ref`. */
export interface ToolResultImageRefContent { type: 'image', ref: string, mediaType: string, name?: string, data?: undefined }
/** Audio in a tool result, base64 encoded. */
export interface ToolResultAudioContent { type: 'audio', data: string, mediaType: string }
/** Video in a tool result, base64 encoded. */
export interface ToolResultVideoContent { type: 'video', data: string, mediaType: string }
/** A document in a tool result, with its bytes inline. */
export interface ToolResultDocumentContent { type: 'document', data: string, encoding: 'text' | 'base64', mediaType: string, name?: string, ref?: undefined }
/** A document in a tool result, stored elsewhere and named by `ref`. */
export interface ToolResultDocumentRefContent { type: 'document', ref: string, encoding: 'text' | 'base64', mediaType: string, name?: string, data?: undefined }

/** One block of a structured tool result. */
export type ToolResultContent
  = | ToolResultTextContent
    | ToolResultImageContent
    | ToolResultImageRefContent
    | ToolResultAudioContent
    | ToolResultVideoContent
    | ToolResultDocumentContent
    | ToolResultDocumentRefContent

/** What a `ResolveContentRef` callback is given: the `ref` block to resolve (top-level or in a tool result). */
export interface ResolveContentRefBlock {
  type: 'image' | 'document'
  /** The host's own reference, as the block carries it. */
  ref: string
  mediaType: string
  name?: string
  /** How the returned `data` is encoded, for documents (the block's `encoding`). */
  encoding?: 'text' | 'base64'
}

/**
 * The host's resolver for `ref` blocks, called when a request is built: the
 * session stores only the reference, the request carries the payload. Returns
 * the payload as the block would hold it inline (base64, or text for a text
 * document).
 */
export type ResolveContentRef = (block: ResolveContentRefBlock) => Promise<{ data: string }>

/** Model-invisible data a hook attaches to a tool result (telemetry about transforms and the like). */
export type ToolResultMetadata = Record<string, unknown>

/** Multimodal prompt parts accepted by `agent.run({ prompt })`. */
export interface PromptTextPart { type: 'text', text: string }
/** An image in a prompt, base64 encoded. */
export interface PromptImagePart { type: 'image', data: string, mediaType: string, name?: string }
/** Audio in a prompt, base64 encoded. */
export interface PromptAudioPart { type: 'audio', data: string, mediaType: string, name?: string }
/** Video in a prompt, base64 encoded. */
export interface PromptVideoPart { type: 'video', data: string, mediaType: string, name?: string }
/** A document in a prompt: plain text, or base64 bytes (a PDF). */
export interface PromptDocumentPart { type: 'document', data: string, encoding: 'text' | 'base64', mediaType: string, name?: string }
/** One part of a multimodal prompt. */
export type PromptPart = PromptTextPart | PromptImagePart | PromptAudioPart | PromptVideoPart | PromptDocumentPart

/** Which API produced an opaque signature; only that API's wire builder sends it back. */
export type SignatureProducer = 'anthropic' | 'openai' | 'gemini' | (string & {})
/**
 * Which API signed a text or tool-call block. Gemini is the one that signs
 * those (its thought signatures, which the Chat Completions provider records
 * from Gemini's OpenAI-compatible endpoint as `'gemini'`); the values are
 * those of `SignatureProducer`.
 */
export type GeminiSignatureScope = SignatureProducer

/** Where a text block came from when the loop (not the user) wrote it. */
export type TextOrigin = 'user' | 'injected' | 'system-note' | (string & {})

/** A note for the model appended to a prompt turn (mode change, environment, …). */
export interface SystemNote { kind: string, id?: string }

/** A tool call made from inside another tool (codemode); never part of the model transcript. */
export interface NestedToolCallRecord {
  id: string
  name: string
  input: Record<string, unknown>
  isError?: boolean
  durationMs?: number
  line?: number
}

/** One block of a recorded turn: text, reasoning, a tool call, a tool result, or media. */
export type SessionContentBlock
  = | { type: 'text', text: string, signature?: string, signatureProducer?: GeminiSignatureScope, origin?: TextOrigin, systemNote?: SystemNote }
    | { type: 'image', data: string, mediaType: string, name?: string, ref?: never }
    | { type: 'image', ref: string, mediaType: string, name?: string, data?: never }
    | { type: 'audio', data: string, mediaType: string, name?: string }
    | { type: 'video', data: string, mediaType: string, name?: string }
    | { type: 'document', data: string, encoding: 'base64' | 'text', mediaType: string, name?: string, ref?: never }
    | { type: 'document', ref: string, encoding: 'base64' | 'text', mediaType: string, name?: string, data?: never }
    | { type: 'tool_call', id: string, name: string, input: Record<string, unknown>, signature?: string, signatureProducer?: GeminiSignatureScope }
    | { type: 'tool_result', callId: string, output: string | ToolResultContent[], isError?: boolean, durationMs?: number, metadata?: ToolResultMetadata, calls?: NestedToolCallRecord[] }
    | { type: 'thinking', text: string, signature?: string, signatureProducer?: SignatureProducer }
    | { type: 'redacted_thinking', data: string }
    | { type: 'provider_reasoning', producer: 'openrouter', details: unknown[], model?: string }
    | { type: 'provider_reasoning', producer: 'vllm', reasoningText: string, model?: string }
    | { type: 'server_tool_use', producer: 'anthropic', id: string, name: string, input: Record<string, unknown> }
    | { type: 'server_tool_result', producer: 'anthropic', toolUseId: string, toolName: string, content: unknown }
    | { type: 'compact-summary', summary: string, model: string, compactedAt: number, replacesTurnIds: readonly string[], usage: TurnUsage }

/** Narrow a block union member by its `type`. */
export type BlockOf<T extends SessionContentBlock['type']> = Extract<SessionContentBlock, { type: T }>
/** The recorded form of a tool call. */
export type ToolCallBlock = BlockOf<'tool_call'>
/** The recorded form of a tool result. */
export type ToolResultBlock = BlockOf<'tool_result'>

/** One message as a provider receives it. */
export interface SessionMessage {
  role: 'user' | 'assistant'
  content: SessionContentBlock[]
}

/** Why the loop (rather than the user) added a user turn. */
export type InjectedTurnReason
  = | 'continue-pause'
    | 'continue-length'
    | 'continue-refusal'
    | 'max-turns-warning'
    | 'steer'
    | 'follow-up'
    | 'nudge'
    | 'unknown-tool-recovery'
    | 'text-tool-call-rescue'
    | 'progress-nudge'
    | 'thinking-overrun'
    | 'tool-budget'
    | 'tool-output-budget'
    | 'compact'
    | 'output-repair'
    | (string & {})

/** One turn of a conversation as it is kept (and, with a session, persisted). */
export interface SessionTurn {
  id: string
  role: 'system' | 'user' | 'assistant' | 'command'
  content: SessionContentBlock[]
  createdAt: number
  runId?: string
  usage?: TurnUsage
  injected?: InjectedTurnReason
  aborted?: true
  display?: string
  /** On a `role: 'system'` turn: a frozen system prompt (`content` holds its text). */
  systemSnapshot?: SystemPromptSnapshot
  /**
   * The id of an earlier turn this one replaces: a turn of tool results
   * recorded again once calls that waited for approval were answered (see
   * docs/approval.md). A run seeded from the session shows the model this
   * turn in the earlier one's place, and not the earlier one.
   */
  supersedes?: string
}

/**
 * Named sections the SDK appends to the base system prompt (a tools catalog,
 * server instructions, …), in the order they are appended. Keeping them apart
 * lets a host tell the model what changed without editing a frozen prompt.
 */
export type FrozenPromptSections = Readonly<Record<string, string>>

/** What a `role: 'system'` snapshot turn records besides the prompt text. */
export interface SystemPromptSnapshot {
  /** Which prompt this is, for hosts that keep several (default `'default'`). */
  key: string
  capturedAt: number
  sections?: FrozenPromptSections
}

/** A note for the model: a `SystemNote` marker plus its text. */
export type SystemNoteText = SystemNote & { text: string }
