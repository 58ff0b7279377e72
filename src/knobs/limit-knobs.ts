/** Run limits: turns, the wrap-up warning, and the cost, token and wall-clock budgets. */

import { defineKnobs, either, isFunction, isLimit, isString, wholeAtLeast } from './define'

/** Limits of one run. */
export interface LimitKnobs {
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
}

/** The limit slice: every limit is off until set. */
export const LIMIT_KNOBS = defineKnobs<LimitKnobs, object>('limits', {}, {
  maxTurns: { doc: 'Most loop iterations; the run then stops with `max-turns`.', defaultLabel: 'unlimited', check: wholeAtLeast(0, true) },
  maxTurnsWarning: { doc: 'Turns left before `maxTurns` at which a one-time wrap-up message is injected.', defaultLabel: 'off', check: isLimit },
  maxTurnsWarningMessage: { doc: 'Text of the wrap-up message, or a function of the counts.', defaultLabel: 'built in', check: either(isString, isFunction) },
  maxCostUsd: { doc: 'Run cost ceiling in USD, checked after each turn.', defaultLabel: 'off', check: isLimit },
  maxTotalTokens: { doc: 'Run ceiling on input + output tokens, checked after each turn.', defaultLabel: 'off', check: isLimit },
  maxWallMs: { doc: 'Run wall-clock ceiling in ms: a post-turn check and a hard deadline.', defaultLabel: 'off', check: isLimit },
})
