import type { ExecutionContext } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { PromptPart, ResolveContentRef, SystemNoteText } from '../core/content'
import type { DurableRuntime } from '../core/durable-runtime'
import type { RunEffects } from '../core/effects'
import type { AgentHookMap, RunHookMap } from '../hooks/hook-map'
import type { AgentBehavior } from '../knobs/behavior'
import type { McpCredentialStore } from '../mcp/oauth/types'
import type { McpServerConfig, McpServerPool } from '../mcp/types'
import type { BehaviorPolicy } from '../policies/policy'
import type { ModelTargetSpec } from '../providers/model-targets'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { Session } from '../session/session'
import type { SystemFreezeOptions } from '../session/system-freeze'
import type { SessionRunAgent } from '../session/types'
import type { ToolStateStore } from '../tool-state/types'
import type { ToolMap } from '../tools/types'
import type { AgentDecisionsOptions } from './decide'
import type { McpConnector } from './types'

/** Options for `createAgent`. */
export interface AgentOptions {
  /**
   * The model API the agent talks to, or an ordered list: a run whose turn
   * fails for good on one provider moves on to the next (see `run({ model })`).
   */
  provider: Provider | readonly Provider[]
  /** Tools available to every run, keyed by any label (the canonical name is `spec.name`). */
  tools?: ToolMap
  /** Default system prompt. Default: `'You are a helpful assistant.'`. */
  system?: string
  /** Behavior for every run; a run's `behavior` is merged over it. */
  behavior?: AgentBehavior
  /** Time and id source for recorded metadata. Default: the `effects`' time and ids when given, else `DEFAULT_AGENT_CLOCK`. */
  clock?: AgentClock
  /**
   * The seam of every run's effects: time and ids the runs measure with,
   * retry jitter, waits, each model call, each tool execution and the I/O of
   * policy phases (see `RunEffects`). Default: real time, random ids and
   * jitter, everything run as given. `testEffects()` (`zidane/testing`)
   * makes runs repeat byte for byte.
   */
  effects?: RunEffects
  /**
   * A durable runtime (`zidane/durable`): `checkpointRuntime()` keeps runs in
   * the session store under a lease; a `'replay'` runtime (Restate's
   * `restateRuntime(ctx)`, or a host's journal) journals every model result,
   * tool result, clock read and id, and replays them instead of calling
   * again. Its effects replace `effects`; in `'replay'` mode its time and ids
   * replace `clock` too, and `disableBackgroundTasks` defaults to `'non-durable'`.
   */
  durable?: DurableRuntime
  /**
   * Wire names for tools, keyed by canonical name: the model sees the alias,
   * sessions and hooks keep the canonical name.
   */
  toolAliases?: Record<string, string>
  /** Handlers registered on `agent.hooks` at creation. */
  hooks?: AgentHookMap
  /**
   * Resolves `ref` image and document blocks (in prompts and tool results)
   * when a request is built: the session keeps the reference, the request
   * carries the payload. Each reference is resolved once per run; a resolver
   * that throws fails the run with `AgentContentRefError`. Without one, a
   * provider refuses a request that carries a `ref` block.
   */
  resolveContentRef?: ResolveContentRef
  /**
   * The conversation to record into and continue. Without one, each run is a
   * fresh conversation and nothing outlives it.
   */
  session?: Session
  /**
   * Where tools run commands and touch files (`zidane/contexts`: process,
   * sandbox, docker). Default: a process context in the current directory.
   */
  execution?: ExecutionContext
  /**
   * MCP servers whose tools the agent offers (`zidane/mcp`), connected on the
   * first run and closed by `agent.destroy()`.
   */
  mcpServers?: readonly McpServerConfig[]
  /**
   * Connects `mcpServers` instead of `connectMcpServers` (a host's own
   * transport, cache or pool). It receives the options the agent would pass,
   * hook bridges included; `mcpConnectTimeoutMs` bounds it all the same.
   */
  mcpConnector?: McpConnector
  /**
   * Share host-spawned stdio servers with other agents through this pool
   * (`createMcpServerPool`). The pool key is the session id (one per agent
   * without a session), so `shared: false` servers get one process per session.
   */
  mcpPool?: McpServerPool
  /** Where OAuth tokens of MCP servers are kept between runs and restarts. Default: in memory. */
  mcpCredentialStore?: McpCredentialStore
  /**
   * Durable backing for tool state (`ToolContext.state`). Loaded at the start
   * of each run until a load succeeds; each call's writes are committed when
   * the call succeeds. Default: in memory, for the agent's lifetime.
   */
  toolState?: ToolStateStore
  /**
   * Host policies (`BehaviorPolicy`), run after the built-in ones and before
   * the agent's own steering. Names must be unique and `after` must name
   * policies the agent has, without a cycle: checked here (`AgentPolicyError`).
   */
  policies?: readonly BehaviorPolicy[]
  /** Where `agent.decide` / `ctx.decide` send decisions: provider, model and timeout defaults. */
  decisions?: AgentDecisionsOptions
}

/** Options for one `agent.run()`. */
export interface AgentRunOptions {
  /** The user's message: text, or parts for text with images and documents. */
  prompt?: string | PromptPart[]
  /**
   * Model selection. A model id runs on the (first) provider and falls back
   * across the others; a list is an ordered fallback chain whose entries may
   * pin a model to a provider by name. Default: each provider's default model.
   */
  model?: string | readonly (string | ModelTargetSpec)[]
  /** System prompt for this run. Default: the agent's, then `'You are a helpful assistant.'`. */
  system?: string
  /** Reasoning effort. Default `'off'`. */
  thinking?: ThinkingLevel
  /** Behavior overrides, merged over the profile's and the agent's (`extensions` merged key by key). */
  behavior?: AgentBehavior
  /** Replace the agent's (and the profile's) tools for this run, MCP tools included; `{}` means no tools. */
  tools?: ToolMap
  /**
   * Run as this profile: a layer between the agent and the run. Its system
   * prompt and tools replace the agent's, its behavior merges over the
   * agent's; the run's own `system`, `tools` and `behavior` still win.
   */
  profile?: AgentProfile
  /** Handlers attached for this run only and removed when it ends. */
  hooks?: RunHookMap
  /** Aborts the run like `agent.abort()`. */
  signal?: AbortSignal
  /** Time and id source for this run only. */
  clock?: AgentClock
  /** Effects of this run only (a durable engine's per-invocation journal, say); wins over `AgentOptions.effects`. */
  effects?: RunEffects
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
  /**
   * Continue the conversation of an earlier run of the session (its turns only,
   * with unanswered tool calls dropped). Needs a session and a prompt.
   */
  resumeRunId?: string
  /** Display label recorded on the run (`SessionRun.label`). */
  runLabel?: string
  /** The host's agent profile recorded on the run (`SessionRun.agent`); default: `{ name }` of the run's `profile`, when it has one. */
  runAgent?: SessionRunAgent
  /**
   * Stop at the next turn boundary, after the turn in flight and its tool
   * results are recorded; the run returns `stopReason: 'paused'` and a later
   * run on the same session continues it.
   */
  pauseSignal?: AbortSignal
  /**
   * How often the run renews its session's lease, in ms (the lease lasts
   * three intervals). Default 60,000. Shorter: a run that lost its session to
   * another writer notices sooner, and a crashed run's lease frees sooner.
   */
  leaseRenewMs?: number
  /** Notes for the model appended to this run's prompt turn, after the prompt. */
  systemNotes?: readonly SystemNoteText[]
  /** Keep the conversation's system prompt byte-stable across runs (see `SystemFreezeOptions`). */
  systemFreeze?: SystemFreezeOptions
}

export type { SystemNoteText }

/**
 * A named set of settings a run can take on (`run({ profile })`): a chat
 * product's "plan" or "build" mode, say, on one agent and one session. It is
 * one layer of the run's plan, resolved agent → profile → run: each setting
 * it gives replaces the agent's (behavior knobs merge, as a run's do), and the
 * run's own settings replace it. MCP tools still join a profile's tools.
 */
export interface AgentProfile {
  /** What the host calls it. */
  readonly name: string
  /** For people choosing a profile; the model never sees it. */
  readonly description?: string
  /** Replaces the agent's system prompt. */
  readonly system?: string
  /** Replaces the agent's tools (the MCP servers' tools still join them). */
  readonly tools?: ToolMap
  /** Merged over the agent's behavior, under the run's. */
  readonly behavior?: AgentBehavior
}

/** What `agent.steer` and `agent.followUp` take besides the prompt. */
export interface QueuedMessageOptions {
  /** Your id for the message; `steer:inject` gives it back. */
  id?: string
  systemNotes?: readonly SystemNoteText[]
}

export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.'
