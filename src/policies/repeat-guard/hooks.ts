/**
 * The repeat guard's event. Declared apart from the policy, with nothing but
 * core types, so the hook map (a lower layer than the policies) can name it.
 */

import type { HookHandler, RunHookContext } from '../../core/hook-context'

/** What the guard did about a repeated call. */
export type RepeatGuardAction = 'block' | 'steer' | 'abort'

/** Which counter reached its threshold: the back-to-back chain, the per-tool window, or the global ceiling. */
export type RepeatGuardCounter = 'chain' | 'window' | 'global'

/** `repeat-guard:exceeded`: a call reached a repeat threshold; fired before the guard's decision takes effect. */
export interface RepeatGuardExceededContext extends RunHookContext {
  turnId: string
  callId: string
  /** Canonical tool name. */
  name: string
  input: Record<string, unknown>
  /** The streak key the call counted under (the normalized payload; the exact input for the global ceiling). */
  key: string
  /** Repeats counted, this call included. */
  count: number
  /** The threshold `count` reached. */
  threshold: number
  action: RepeatGuardAction
  counter: RepeatGuardCounter
  /** What the model reads (the `Blocked:` reason or the steering note), or the abort reason. */
  message: string
}

/** The repeat guard's events. */
export interface RepeatGuardHooks {
  'repeat-guard:exceeded': HookHandler<RepeatGuardExceededContext>
}
