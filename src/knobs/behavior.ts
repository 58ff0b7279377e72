/**
 * Run behavior: limits, recovery policies and provider knobs. Set agent-wide
 * on `AgentOptions.behavior`, override per run on `AgentRunOptions.behavior`.
 * Each family owns a knob slice (`*-knobs.ts`: its keys' types, defaults,
 * validators and one-line docs); `AgentBehavior` is their composition, and
 * `BEHAVIOR_DEFAULTS` the union of their defaults.
 */

import type { BudgetKnobs } from './budget-knobs'
import type { CompactionKnobs } from './compaction-knobs'
import type { KnobMeta, KnobSlice } from './define'
import type { ExecutionKnobs } from './execution-knobs'
import type { FileKnobs } from './file-knobs'
import type { HostKnobs } from './host-knobs'
import type { LimitKnobs } from './limit-knobs'
import type { McpKnobs } from './mcp-knobs'
import type { MediaKnobs } from './media-knobs'
import type { NudgeKnobs } from './nudge-knobs'
import type { OutputKnobs } from './output-knobs'
import type { PersistKnobs } from './persist-knobs'
import type { ProviderKnobs } from './provider-knobs'
import type { RecoveryKnobs } from './recovery-knobs'
import type { RepeatKnobs } from './repeat-knobs'
import type { RetryKnobs } from './retry-knobs'
import type { SessionKnobs } from './session-knobs'
import type { ShellKnobs } from './shell-knobs'
import type { ThinkingKnobs } from './thinking-knobs'
import type { WatchdogKnobs } from './watchdog-knobs'
import type { WebKnobs } from './web-knobs'
import { definedOnly } from '../core/defined-only'
import { AgentBehaviorError } from '../errors'
import { BUDGET_KNOBS } from './budget-knobs'
import { COMPACTION_KNOBS } from './compaction-knobs'
import { EXECUTION_KNOBS } from './execution-knobs'
import { FILE_KNOBS } from './file-knobs'
import { HOST_KNOBS } from './host-knobs'
import { LIMIT_KNOBS } from './limit-knobs'
import { MCP_KNOBS } from './mcp-knobs'
import { MEDIA_AGEING_KNOBS, MEDIA_KNOBS } from './media-knobs'
import { NUDGE_KNOBS } from './nudge-knobs'
import { OUTPUT_KNOBS } from './output-knobs'
import { PERSIST_KNOBS } from './persist-knobs'
import { PROVIDER_KNOBS } from './provider-knobs'
import { RECOVERY_KNOBS } from './recovery-knobs'
import { REPEAT_KNOBS } from './repeat-knobs'
import { RETRY_KNOBS } from './retry-knobs'
import { SESSION_KNOBS } from './session-knobs'
import { SHELL_KNOBS } from './shell-knobs'
import { THINKING_KNOBS } from './thinking-knobs'
import { WATCHDOG_KNOBS } from './watchdog-knobs'
import { WEB_KNOBS } from './web-knobs'

export type { AutoCompactConfig, CompactFunction, CompactSkip } from './compaction-knobs'
export type { ToolSearchBehavior } from './mcp-knobs'
export type { MediaBudget } from './media-knobs'
export type { OutputSchema, OutputZodSchema } from './output-knobs'
export type { CacheTtl } from './provider-knobs'
export type { RepeatGuardConfig, RepeatGuardMessage, RepeatGuardToolMatcher } from './repeat-knobs'
export type { RetryConfig } from './retry-knobs'
export type { ThinkingDecay, ThinkingDecayFunction, ThinkingDecayGeometric, ThinkingDecayStep } from './thinking-knobs'

/**
 * Every knob of a run: limits, retries, watchdogs, caching, recovery and tool
 * settings. Each is off or at its documented default until set. Unknown keys
 * are ignored (host settings belong under `extensions`).
 */
export interface AgentBehavior extends
  LimitKnobs,
  ExecutionKnobs,
  ProviderKnobs,
  RetryKnobs,
  WatchdogKnobs,
  RecoveryKnobs,
  ShellKnobs,
  McpKnobs,
  FileKnobs,
  WebKnobs,
  SessionKnobs,
  NudgeKnobs,
  HostKnobs,
  RepeatKnobs,
  BudgetKnobs,
  ThinkingKnobs,
  CompactionKnobs,
  PersistKnobs,
  MediaKnobs,
  OutputKnobs {}

/** Every knob slice, in reference-page order. Adding a slice here adds its knobs to validation, the docs check and the scenario check. */
export const KNOB_SLICES: readonly KnobSlice<Record<string, unknown>>[] = Object.freeze([
  LIMIT_KNOBS,
  PROVIDER_KNOBS,
  RETRY_KNOBS,
  WATCHDOG_KNOBS,
  RECOVERY_KNOBS,
  EXECUTION_KNOBS,
  SHELL_KNOBS,
  MCP_KNOBS,
  FILE_KNOBS,
  WEB_KNOBS,
  SESSION_KNOBS,
  NUDGE_KNOBS,
  HOST_KNOBS,
  REPEAT_KNOBS,
  BUDGET_KNOBS,
  THINKING_KNOBS,
  COMPACTION_KNOBS,
  PERSIST_KNOBS,
  MEDIA_KNOBS,
  OUTPUT_KNOBS,
] as KnobSlice<Record<string, unknown>>[])

/** The metadata of every knob, by name. */
export const KNOBS: Readonly<Record<keyof AgentBehavior & string, KnobMeta>> = Object.freeze(
  Object.assign({}, ...KNOB_SLICES.map(slice => slice.knobs)),
)

/** The default of every knob that has one, from the slices (each written once there). */
export const BEHAVIOR_DEFAULTS = Object.freeze({
  ...PROVIDER_KNOBS.defaults,
  ...RETRY_KNOBS.defaults,
  ...WATCHDOG_KNOBS.defaults,
  ...RECOVERY_KNOBS.defaults,
  ...EXECUTION_KNOBS.defaults,
  ...SHELL_KNOBS.defaults,
  ...MCP_KNOBS.defaults,
  ...FILE_KNOBS.defaults,
  ...SESSION_KNOBS.defaults,
  ...NUDGE_KNOBS.defaults,
  ...BUDGET_KNOBS.defaults,
  ...COMPACTION_KNOBS.defaults,
  ...OUTPUT_KNOBS.defaults,
})

const KNOB_BY_NAME: ReadonlyMap<string, KnobMeta> = new Map(Object.entries(KNOBS))

/**
 * Throw `AgentBehaviorError` for the first knob whose value zidane cannot act
 * on. Unset (`undefined`) knobs and unknown keys pass.
 */
export function validateBehavior(behavior: AgentBehavior | undefined, where: 'createAgent' | 'run'): void {
  if (behavior === undefined)
    return
  if (typeof behavior !== 'object' || behavior === null)
    throw new AgentBehaviorError('', behavior, 'an object', where)
  const raw = behavior as Record<string, unknown>
  // Walk the keys that are set (usually a handful), not every declared knob: this runs once per run.
  for (const name of Object.keys(raw)) {
    const value = raw[name]
    const meta = KNOB_BY_NAME.get(name)
    if (value === undefined || meta === undefined)
      continue
    const problem = meta.check(value)
    if (problem)
      throw new AgentBehaviorError(`${name}${problem.path}`, problem.path === '' ? value : valueAt(value, problem.path), problem.expected, where)
  }
}

function valueAt(value: unknown, path: string): unknown {
  let current = value
  for (const key of path.split('.').slice(1))
    current = (current as Record<string, unknown>)[key]
  return current
}

/**
 * Merge a run's behavior over the agent's: each key of the run wins, except
 * `extensions`, whose keys merge one level deep, and the media-ageing pair
 * (`mediaKeepTurns`, `mediaBudget`), which a run overrides as one. The merged behavior is
 * validated (`validateBehavior`, as `run()`), so a run never starts on a knob
 * it cannot act on.
 */
export function resolveBehavior(agent: AgentBehavior | undefined, run: AgentBehavior | undefined): AgentBehavior {
  // The run's own keys first: merging could hide a bad `extensions` (spreading a non-object yields `{}`).
  validateBehavior(run, 'run')
  const merged: AgentBehavior = run ? { ...agent, ...definedOnly(run) } : { ...agent }
  if (run && (agent?.extensions || run.extensions))
    merged.extensions = { ...agent?.extensions, ...run.extensions }
  if (run && MEDIA_AGEING_KNOBS.some(key => run[key] !== undefined)) {
    for (const key of MEDIA_AGEING_KNOBS) {
      if (run[key] === undefined)
        delete merged[key]
    }
  }
  validateBehavior(merged, 'run')
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
