/**
 * Run behavior: limits, recovery policies and provider knobs. Set agent-wide
 * on `AgentOptions.behavior`, override per run on `AgentRunOptions.behavior`.
 * Each family owns a knob slice (`*-knobs.ts`: its keys' types, defaults,
 * validators and one-line docs); `AgentBehavior` is their composition, and
 * `BEHAVIOR_DEFAULTS` the union of their defaults.
 */

import type { BudgetKnobs } from './budget-knobs'
import type { CodemodeKnobs } from './codemode-knobs'
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
import { CODEMODE_KNOBS } from './codemode-knobs'
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

export type { CodemodeConfig } from './codemode-knobs'
export type { AutoCompactConfig, CompactFunction, CompactSkip } from './compaction-knobs'
export type { ToolBatch, ToolBatchExecutor } from './execution-knobs'
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
  CodemodeKnobs,
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

/**
 * Every knob slice, in reference-page order: the one list a slice is added
 * to (besides `AgentBehavior extends`, which the knob tests check against
 * it). Validation, the defaults, the reference-page check and the scenario
 * check all read it.
 */
const SLICES = [
  LIMIT_KNOBS,
  PROVIDER_KNOBS,
  RETRY_KNOBS,
  WATCHDOG_KNOBS,
  RECOVERY_KNOBS,
  EXECUTION_KNOBS,
  SHELL_KNOBS,
  MCP_KNOBS,
  CODEMODE_KNOBS,
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
] as const

/** The knobs a slice declares (its `K`). */
export type KnobsOfSlice<S> = S extends KnobSlice<infer K, any> ? K : never

type DefaultsOfSlice<S> = S extends KnobSlice<any, infer D> ? D : never

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never

/** The keys every slice declares, from the slice list's type (the knob tests compare them with `AgentBehavior`). */
export type SliceKnobName = keyof Intersection<KnobsOfSlice<typeof SLICES[number]>>

/** Every knob slice, in reference-page order. */
export const KNOB_SLICES: readonly KnobSlice<Record<string, unknown>>[] = Object.freeze(SLICES as readonly KnobSlice<any>[])

/** The metadata of every knob, by name. */
export const KNOBS: Readonly<Record<keyof AgentBehavior & string, KnobMeta>> = Object.freeze(
  Object.assign({}, ...KNOB_SLICES.map(slice => slice.knobs)),
)

/** The default of every knob that has one: the union of the slices' defaults (each written once, in its slice). */
export const BEHAVIOR_DEFAULTS: Readonly<Intersection<DefaultsOfSlice<typeof SLICES[number]>>> = Object.freeze(
  Object.assign({}, ...SLICES.map(slice => slice.defaults)),
)

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
