/**
 * The decision events. Both are observers: they fire around every decision,
 * from `agent.decide` and from `ctx.decide`, and their contexts carry no
 * `decide` of their own (a decision hook that decided again could loop).
 */

import type { HookHandler } from '../core/hook-context'
import type { DecisionEndHookContext, DecisionStartHookContext } from './types'

/** The decision events and the context each handler receives. */
export interface DecisionHooks {
  /** A decision is about to be sent (after its request was checked and a provider chosen, or found missing). */
  'decision:start': HookHandler<DecisionStartHookContext>
  /** A decision finished: answers and usage, or the failure's reason and message. */
  'decision:end': HookHandler<DecisionEndHookContext>
}

/** The decision events by name; `satisfies` keeps it in step with `DecisionHooks`. */
export const DECISION_HOOK_NAMES = {
  'decision:start': true,
  'decision:end': true,
} as const satisfies Record<keyof DecisionHooks, true>
