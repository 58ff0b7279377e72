/**
 * The skills events. Declared apart from the policy, with nothing but core
 * types, so the hook map (a lower layer than the policies) can name them.
 */

import type { HookHandler, RunHookContext } from '../../core/hook-context'
import type { StopReason } from '../../core/stop-reason'

/**
 * What led to an activation: the model picked a skill the catalog describes
 * (`'catalog'`), one the catalog only names or leaves out, which it found by
 * a search or by name (`'search'`), or a tool called `skills_use` for it
 * (`'nested'`, codemode say).
 */
export type SkillActivationReason = 'catalog' | 'search' | 'nested'

/** `skills:activate`: a skill became active in this run (its first `skills_use`); fired before the next call is gated. */
export interface SkillActivateContext extends RunHookContext {
  name: string
  /** The `skills_use` call that activated it. */
  callId: string
  reason: SkillActivationReason
  /** The model's own words on why the skill fits (`skills_use { reason }`), when it gave them. */
  rationale?: string
  /** The tools the skill allows while it is active; absent when it restricts none. */
  allowedTools?: readonly string[]
}

/** `skills:deactivate`: the run ended with the skill active (awaited, bounded by `hookTimeoutMs`). */
export interface SkillDeactivateContext extends RunHookContext {
  name: string
  /** How the run ended; absent when it failed with an error. */
  stopReason?: StopReason
}

/** `skills:skip`: a skill on disk was left out when the agent's skills loaded (before its first run). */
export interface SkillSkipContext {
  /** The skill's directory, its `SKILL.md`, or the path given. */
  path: string
  /** Its name, when the frontmatter gave one. */
  name?: string
  /** The rule it broke. */
  reason: string
}

/** `skills:overflow`: the catalog did not describe every skill within its budget (fired once, when the skills load). */
export interface SkillOverflowContext {
  /** Skills listed with their description. */
  described: readonly string[]
  /** Skills listed by name alone. */
  named: readonly string[]
  /** Skills only counted; all stay reachable through `skills_use { query }`. */
  unlisted: readonly string[]
  /** The budget in characters. */
  maxChars: number
}

/** The skills events. */
export interface SkillsHooks {
  'skills:activate': HookHandler<SkillActivateContext>
  'skills:deactivate': HookHandler<SkillDeactivateContext>
  'skills:skip': HookHandler<SkillSkipContext>
  'skills:overflow': HookHandler<SkillOverflowContext>
}
