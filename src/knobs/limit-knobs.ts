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
  /**
   * Run wall-clock ceiling in ms: a soft cap, compared after each turn on the
   * run's clock (so a replay trips it at the same turn), that also bounds every
   * wait of the loop (stream watchdogs, MCP connect, first spawn, policy
   * phases) when lower. A tool in flight is not interrupted. `0` disables.
   */
  maxWallMs?: number
  /**
   * Hard real-time deadline in ms from `run()`: when it passes, the run's
   * signal aborts wherever the run is (a tool in flight included) and the run
   * fails with the wall-clock budget error. Not replay-stable. Default off;
   * `0` disables.
   */
  hardWallMs?: number
}

/** The limit slice: every limit is off until set. */
export const LIMIT_KNOBS = defineKnobs<LimitKnobs, object>('limits', {}, {
  maxTurns: { doc: 'Most loop iterations; the run then stops with `max-turns`.', defaultLabel: 'unlimited', check: wholeAtLeast(0, true) },
  maxTurnsWarning: { doc: 'Turns left before `maxTurns` at which a one-time wrap-up message is injected.', defaultLabel: 'off', check: isLimit },
  maxTurnsWarningMessage: { doc: 'Text of the wrap-up message, or a function of the counts.', defaultLabel: 'built in', check: either(isString, isFunction) },
  maxCostUsd: { doc: 'Run cost ceiling in USD, checked after each turn.', defaultLabel: 'off', check: isLimit },
  maxTotalTokens: { doc: 'Run ceiling on input + output tokens, checked after each turn.', defaultLabel: 'off', check: isLimit },
  maxWallMs: { doc: 'Run wall-clock ceiling in ms: a post-turn check on the run\'s clock that also bounds every wait.', defaultLabel: 'off', check: isLimit },
  hardWallMs: { doc: 'Hard real-time deadline in ms: aborts the run wherever it is.', defaultLabel: 'off', check: isLimit },
})
