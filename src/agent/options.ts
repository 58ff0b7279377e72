import type { AgentHookMap, RunHookMap } from '../hooks/hook-map'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { PromptPart } from '../session/content'
import type { ToolMap } from '../tools/types'
import type { AgentBehavior } from './behavior'
import type { AgentClock } from './clock'

/** Options for `createAgent`. */
export interface AgentOptions {
  /** The model API the agent talks to. */
  provider: Provider
  /** Tools available to every run, keyed by any label (the canonical name is `spec.name`). */
  tools?: ToolMap
  /** Default system prompt. Default: `'You are a helpful assistant.'`. */
  system?: string
  /** Behavior for every run; a run's `behavior` is merged over it. */
  behavior?: AgentBehavior
  /** Time and id source for recorded metadata. Default `DEFAULT_AGENT_CLOCK`. */
  clock?: AgentClock
  /**
   * Wire names for tools, keyed by canonical name: the model sees the alias,
   * sessions and hooks keep the canonical name.
   */
  toolAliases?: Record<string, string>
  /** Handlers registered on `agent.hooks` at creation. */
  hooks?: AgentHookMap
}

/** Options for one `agent.run()`. */
export interface AgentRunOptions {
  /** The user's message: text, or parts for text with images and documents. */
  prompt?: string | PromptPart[]
  /** Model id. Default: the provider's `meta.defaultModel`. */
  model?: string
  /** System prompt for this run. Default: the agent's, then `'You are a helpful assistant.'`. */
  system?: string
  /** Reasoning effort. Default `'off'`. */
  thinking?: ThinkingLevel
  /** Behavior overrides, merged over the agent's (`extensions` merged key by key). */
  behavior?: AgentBehavior
  /** Replace the agent's tools for this run; `{}` means no tools. */
  tools?: ToolMap
  /** Handlers attached for this run only and removed when it ends. */
  hooks?: RunHookMap
  /** Aborts the run like `agent.abort()`. */
  signal?: AbortSignal
  /** Time and id source for this run only. */
  clock?: AgentClock
  /** Subagent depth; 0 at the top level. */
  depth?: number
  /** Host data about this run; the agent never reads it. */
  metadata?: Readonly<Record<string, unknown>>
  /** Run id of the parent, for subagents. */
  parentRunId?: string
  /** Tool-call id of the spawn call that started this run, for subagents. */
  parentCallId?: string
  /** Trace-context carrier from a parent tracer, re-emitted on `agent:start`. */
  tracingContext?: Readonly<Record<string, string>>
  /** Model-specific options for this run; wins over `behavior.modelOptions`. */
  modelOptions?: Record<string, unknown>
}

export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.'
