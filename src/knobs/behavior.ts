/**
 * Run behavior: limits, recovery policies and provider knobs. Set agent-wide
 * on `AgentOptions.behavior`, override per run on `AgentRunOptions.behavior`.
 * Each field's default lives in `BEHAVIOR_DEFAULTS` or in the policy module
 * that reads it, next to the code that acts on it.
 */

import type { ModelCatalog } from '../providers/catalog/types'
import type { ReadFileDefaults, WriteFileExistingPolicy } from './file-knobs'
import { definedOnly } from '../core/defined-only'

/** Retry-with-backoff around one provider call. */
export interface RetryConfig {
  /** Attempts including the first. `1` turns retry off. Default 3. */
  maxAttempts?: number
  /** First backoff delay; each later one doubles before jitter. Default 1000. */
  initialDelayMs?: number
  /** Ceiling for any one delay, `retry-after` included. Default 30000. */
  maxDelayMs?: number
}

/** How long a prompt-cache entry lives: the provider default of five minutes, or an hour. */
export type CacheTtl = '5m' | '1h'

/** Settings of the `tool_search` tool that lazy disclosure injects. No effect while every tool is eager. */
export interface ToolSearchBehavior {
  /** `false`: inject nothing (the host ships its own discovery tool); the catalog then drops its pointer to `tool_search`. */
  tool?: false
  /** Results per search when the model gives no `limit`. Default 20. */
  limit?: number
  /**
   * How a found tool becomes callable. `'dispatch'` (default): through a fixed
   * `call_tool { name, arguments }` tool, so the tools array never changes and
   * the prompt cache survives. `'unlock'`: its schema joins the tools array
   * from the next turn, appended in discovery order (each wave rewrites the cache).
   */
  mode?: 'dispatch' | 'unlock'
  /** What the system-prompt catalog lists per tool: `'full'` (default) name and description, `'names'` names only. */
  catalog?: 'full' | 'names'
}

/** Every knob of a run: limits, retries, watchdogs, caching, recovery and tool settings. Each is off or at its documented default until set. */
export interface AgentBehavior {
  // --- limits -------------------------------------------------------------
  /** Most loop iterations. Default unlimited. */
  maxTurns?: number
  /** Turns left before `maxTurns` at which a one-time wrap-up message is injected. */
  maxTurnsWarning?: number
  /** Text of that wrap-up message (string, or built from the counts). */
  maxTurnsWarningMessage?: string | ((ctx: { maxTurns: number, remaining: number }) => string)
  /** Run cost ceiling in USD, checked after each turn. `0` disables. */
  maxCostUsd?: number
  /** Run ceiling on input + output tokens (cache tokens excluded), checked after each turn. `0` disables. */
  maxTotalTokens?: number
  /** Run wall-clock ceiling in ms, read through the run's clock. `0` disables. */
  maxWallMs?: number

  // --- tools ---------------------------------------------------------------
  /** Concurrency-safe tools in flight at once within a turn. Default 10; values below 1 become 1. */
  maxConcurrentTools?: number

  // --- provider calls ------------------------------------------------------
  /** Output-token ceiling per response. Default: model-driven. */
  maxTokens?: number
  /** Prompt-cache breakpoints. Default true. */
  cache?: boolean
  /** Cache entry lifetime. Default `'5m'`. */
  cacheTtl?: CacheTtl
  /** Per-turn thinking budget in tokens, overriding the level's default. */
  thinkingBudget?: number
  /** Whole-task thinking budget (Anthropic adaptive thinking). */
  taskBudget?: number
  /** Send the Anthropic `output_config.effort` hint. Default true. */
  effortHint?: boolean
  /** Model-specific options for every run (a run's `modelOptions` wins). */
  modelOptions?: Record<string, unknown>
  /** Context window of the serving model, when the host knows it better than the provider. */
  contextWindow?: number
  /**
   * Model metadata overrides (window, output ceiling, prices), keyed
   * `'provider:modelId'`, or a `{ get, list }` source. A run's catalog is
   * consulted before the agent's, then `setModelCatalog()`, then the bundled data.
   */
  modelCatalog?: ModelCatalog
  /** Retry policy for retryable provider failures. */
  retry?: RetryConfig

  // --- watchdogs -----------------------------------------------------------
  /** Time allowed until the first stream event. Default 300000; `0` disables. */
  providerStreamStartTimeoutMs?: number
  /** Longest silence between stream events once streaming. Default off. */
  providerStreamIdleTimeoutMs?: number
  /** Time allowed for a whole provider call. Default 1800000; `0` disables. */
  providerStreamTimeoutMs?: number
  /** Bound on each awaited hook dispatch. Default 300000; `0` disables. */
  hookTimeoutMs?: number

  // --- recovery ------------------------------------------------------------
  /** Most consecutive empty `pause_turn` continuations; `0` means unlimited. Default 0. */
  maxConsecutivePauseTurns?: number
  /** Continue a turn cut off by the output cap. Default false. */
  resumeOnMaxTokens?: boolean
  /** Most consecutive output-cap continuations; `0` turns the recovery off. Default 8. */
  maxConsecutiveLengthResumes?: number
  /** Most consecutive refusal continuations; `0` turns the recovery off. Default 3. */
  maxConsecutiveRefusalResumes?: number

  // --- execution context and shell ------------------------------------------
  /** Bound on the execution context's first `spawn()`. Default 300000; `0` disables. */
  spawnTimeoutMs?: number
  /** Bound on the execution context's teardown in `agent.destroy()`. Default 30000; `0` disables. */
  destroyTimeoutMs?: number
  /** Absolute directory for background task logs; background mode is off without it. */
  tasksDir?: string
  /** Hide background mode from `shell` (`'non-durable'`: unless the context's tasks survive a restart). */
  disableBackgroundTasks?: boolean | 'non-durable'
  /** Byte cap per background task log; the task keeps running past it. */
  backgroundOutputCap?: number
  /** Silence (ms) after which a background task is reported stalled (`background:stall`). */
  backgroundStallWatchdogMs?: number
  /** A foreground `shell` timeout above this is refused in favor of background mode, when that is available. */
  shellLongTimeoutMs?: number

  // --- MCP -------------------------------------------------------------------
  /** Bound on connecting the agent's MCP servers. Default 120000; `0` disables; a lower `maxWallMs` wins. */
  mcpConnectTimeoutMs?: number
  /** Separator of MCP tool names on the wire: `'_'` (`mcp_server_tool`, default) or `'__'`. */
  mcpToolNameSeparator?: '_' | '__'
  /** Add the servers' own instructions to the system prompt. Default true. */
  surfaceMcpInstructions?: boolean
  /**
   * How MCP tools reach the model. `'eager'` (default): every schema in the
   * tools array. `'lazy'`: a name + description catalog in the system prompt,
   * schemas loaded on demand with `tool_search`. Native tools stay eager; a
   * server's own `disclosure` wins over this.
   */
  toolDisclosure?: 'eager' | 'lazy'
  /** The `tool_search` tool injected for lazy disclosure (see `ToolSearchBehavior`). */
  toolSearch?: ToolSearchBehavior

  // --- file tools ------------------------------------------------------------
  /** `read_file` prefixes lines with `cat -n`-style numbers (a call's `lineNumbers` wins). Default true. */
  readLineNumbers?: boolean
  /** `read_file` slice limits for calls that give none. Default: 2000 lines, 100 KiB. */
  readFileDefaults?: ReadFileDefaults
  /** An identical re-read of an unchanged file returns a short stub (needs a session). Default true. */
  dedupReads?: boolean
  /** `edit` / `multi_edit` refuse files not read in this session, and stale anchors after drift (needs a session). Default false. */
  requireReadBeforeEdit?: boolean
  /** Full-file reads through `shell` (`cat`, `head`, …) count as reads for `requireReadBeforeEdit`. Default true. */
  trackShellReads?: boolean
  /** Refuse `write_file` over existing files, pointing the model to `read_file` + `edit`. Default `'allow'`. */
  writeFileExistingPolicy?: WriteFileExistingPolicy

  // --- web tools -------------------------------------------------------------
  /** Egress allowlist for `fetch_url` and `web_search` (host suffix, case-insensitive; `[]` means unset). */
  fetchUrlAllowHosts?: readonly string[]
  /** TTL (ms) of `fetch_url`'s in-process response cache. Default off. */
  fetchUrlCacheTtlMs?: number

  // --- sessions ------------------------------------------------------------
  /**
   * Append each finished turn to the session store as the run goes (default
   * true): a tool call is stored together with its result, so a crash loses at
   * most the turn in flight. `false` writes once when the run ends, on every
   * exit path; the prompt turn is stored up front either way.
   */
  persistTurns?: boolean
  /** Throw `AgentToolPairingError` instead of repairing broken tool-call pairing on the wire. */
  strictToolPairing?: boolean
  /** Most pairing repairs one request may need before the run fails with `AgentToolPairingError`. Default off. */
  maxPairingRepairsPerTurn?: number

  // --- host data -----------------------------------------------------------
  /** Host-owned settings the SDK never reads; surfaced on `ToolContext.behavior.extensions`. */
  extensions?: Record<string, unknown>
}

export const BEHAVIOR_DEFAULTS = Object.freeze({
  maxConcurrentTools: 10,
  providerStreamStartTimeoutMs: 300_000,
  providerStreamTimeoutMs: 1_800_000,
  hookTimeoutMs: 300_000,
  spawnTimeoutMs: 300_000,
  destroyTimeoutMs: 30_000,
  cache: true,
  cacheTtl: '5m' as CacheTtl,
  effortHint: true,
})

/**
 * Merge a run's behavior over the agent's: each key of the run wins, except
 * `extensions`, whose keys merge one level deep.
 */
export function resolveBehavior(agent: AgentBehavior | undefined, run: AgentBehavior | undefined): AgentBehavior {
  if (!run)
    return { ...agent }
  const merged: AgentBehavior = { ...agent, ...definedOnly(run) }
  if (agent?.extensions || run.extensions)
    merged.extensions = { ...agent?.extensions, ...run.extensions }
  return merged
}

/** A numeric limit that is on only when positive and finite (`0`, negatives and NaN mean off). */
export function activeLimit(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined
}

/** A bound in milliseconds (`0`: none) cut short by a lower `maxWallMs`, so no single step outlives the run's budget. */
export function boundByWall(configured: number, behavior: AgentBehavior): number {
  const wall = activeLimit(behavior.maxWallMs)
  return wall !== undefined && (!(configured > 0) || wall < configured) ? wall : configured
}
