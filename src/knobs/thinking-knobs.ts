/** Thinking: how the per-turn reasoning budget changes over a run. */

import type { KnobCheck } from './define'
import { defineKnobs } from './define'

/** Full budget through `afterTurn`, then `floor` for the rest of the run: one budget change per run. */
export interface ThinkingDecayStep {
  /** Last run turn (1-based) that keeps the full budget. */
  afterTurn: number
  /** Budget of every later turn, in tokens. */
  floor: number
}

/** Full budget through `afterTurn`, then multiplied by `factor` each later turn, never below `floor`. */
export interface ThinkingDecayGeometric {
  afterTurn: number
  /** Per-turn multiplier, in (0, 1]. */
  factor: number
  floor: number
}

/** Any curve: the budget of `runTurn` (1-based, counted within the run) given the run's base budget. */
export type ThinkingDecayFunction = (runTurn: number, baseBudget: number) => number

/**
 * How `thinkingDecay` tapers the thinking budget over a run: a step, a
 * geometric curve, or a function. Every distinct budget a schedule emits
 * re-bills the cached prefix on Anthropic (the budget is part of the cache
 * key), which is why a step is the cache-friendly form.
 */
export type ThinkingDecay = ThinkingDecayStep | ThinkingDecayGeometric | ThinkingDecayFunction

/** Knobs of the thinking family. */
export interface ThinkingKnobs {
  /**
   * Taper `thinkingBudget` over the run (a step, a geometric curve, or a
   * function). No effect without `thinkingBudget`, on `thinking: 'off'`, or on
   * `thinking: 'adaptive'` where the provider treats the budget as the whole
   * response's cap. Never touches `taskBudget`. Default off.
   */
  thinkingDecay?: ThinkingDecay
}

const whole = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0
const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0

/** A function, or `{ afterTurn, floor }` with an optional `factor` in (0, 1]; the problem names the bad field. */
const isThinkingDecay: KnobCheck = (value) => {
  if (typeof value === 'function')
    return undefined
  const expected = 'a function, { afterTurn, floor } or { afterTurn, factor, floor }'
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { path: '', expected }
  const raw = value as Record<string, unknown>
  if (!whole(raw.afterTurn))
    return { path: '.afterTurn', expected: 'a whole number >= 0' }
  if (!positive(raw.floor))
    return { path: '.floor', expected: 'a finite number > 0' }
  if (raw.factor !== undefined && !(positive(raw.factor) && (raw.factor as number) <= 1))
    return { path: '.factor', expected: 'a number in (0, 1]' }
  return undefined
}

/** The thinking slice: decay is off until set. */
export const THINKING_KNOBS = defineKnobs<ThinkingKnobs, object>('thinking', {}, {
  thinkingDecay: { doc: 'Taper `thinkingBudget` over the run: a step, a geometric curve, or a function of the turn.', defaultLabel: 'off', check: isThinkingDecay },
})
