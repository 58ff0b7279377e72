/** The repeat guard: stops a model that keeps making the same tool call. */

import type { KnobCheck } from './define'
import { defineFields, defineKnobs, either, isBoolean, isFunction, isString, oneOf, shape } from './define'

/** Picks a tool by its canonical name: a string matches that name exactly, a function decides. */
export type RepeatGuardToolMatcher = string | ((name: string) => boolean)

/** The model-visible text at the block threshold: verbatim, or built from the tool name and the repeat count. */
export type RepeatGuardMessage = string | ((name: string, count: number) => string)

/** How the repeat guard counts repeats, and what it does about them. */
export interface RepeatGuardConfig {
  /**
   * `'chain'`: back-to-back repeats only; any other call in between breaks the chain.
   * `'window'`: repeats of a key among that tool's last `windowSize` tracked calls.
   * `'both'`: either counter reaching a threshold trips the guard.
   * Default: `'chain'` (`'window'` when only `windowSize` is set).
   */
  mode?: 'chain' | 'window' | 'both'
  /** Window size for `'window'` / `'both'`, raised to the tool's highest active threshold so that threshold stays reachable. Default: off. */
  windowSize?: number
  /** Repeats at which the call is refused (or steered, see `thresholdAction`); at least 2. Default: 4 / read_file 6. */
  blockThreshold?: number
  /** Repeats at which the run is aborted; raised above `blockThreshold` when not above it; `0` or less, or `Infinity`, turns the abort off. Default: 8 / read_file 12. */
  abortThreshold?: number
  /** At `blockThreshold`: `'block'` refuses the call; `'steer'` runs it and appends the steering message to its result. Default: `'block'`. */
  thresholdAction?: 'block' | 'steer'
  /** Text the model reads at the block threshold (the `Blocked:` reason, or the note appended to the result). Default: a pivot suggestion. */
  steeringMessage?: RepeatGuardMessage
  /** Older name of `steeringMessage`, read when that one is unset. Default: see steeringMessage. */
  blockReason?: RepeatGuardMessage
  /** The streak key of a call; `undefined` leaves the call untracked. Default: built-in (shell commands canonicalized, other inputs as JSON). */
  normalize?: (name: string, input: Record<string, unknown>) => string | undefined
  /** The tools the guard tracks; an empty list tracks none (the global ceiling still applies). Default: shell and read_file. */
  tools?: readonly RepeatGuardToolMatcher[]
  /** Count calls an earlier gate already refused toward the streak, so a model hammering a refused call still reaches the abort. Default: `false`. */
  countBlockedCalls?: boolean
  /** Back-to-back identical calls of any tool (exact input, refused ones included) that abort the run; `0` or less, or `Infinity`, turns it off. Default: `12`. */
  globalCeiling?: number
  /** Tools the global ceiling ignores (status or wait tools polled with the same input). Default: none. */
  globalCeilingExclude?: readonly RepeatGuardToolMatcher[]
}

/** The repeat guard knob. */
export interface RepeatKnobs {
  /** Stop a run whose model keeps making the same tool call: refuse or steer at a threshold, abort at a higher one. Default: off. */
  repeatGuard?: RepeatGuardConfig
}

/** What unset fields of `repeatGuard` behave as. Thresholds depend on the tool: see `REPEAT_GUARD_THRESHOLDS`. */
export const REPEAT_GUARD_DEFAULTS = Object.freeze({
  mode: 'chain',
  thresholdAction: 'block',
  countBlockedCalls: false,
  globalCeiling: 12,
} satisfies RepeatGuardConfig)

/** Unset thresholds by tool: `read_file` is re-read more often for honest reasons, so it gets more room. */
export const REPEAT_GUARD_THRESHOLDS = Object.freeze({
  default: Object.freeze({ block: 4, abort: 8 }),
  read_file: Object.freeze({ block: 6, abort: 12 }),
})

/** The window `'window'` / `'both'` use when `windowSize` is unset. */
export const REPEAT_GUARD_DEFAULT_WINDOW = 16

const isNumber: KnobCheck = value => typeof value === 'number' && !Number.isNaN(value) ? undefined : { path: '', expected: 'a number' }
const isMatcherList: KnobCheck = value => Array.isArray(value) && value.every(entry => typeof entry === 'string' || typeof entry === 'function')
  ? undefined
  : { path: '', expected: 'an array of tool names or (name) => boolean functions' }
const isMessage = either(isString, isFunction)

const REPEAT_GUARD_FIELDS = defineFields<RepeatGuardConfig>('repeatGuard', REPEAT_GUARD_DEFAULTS, {
  mode: { doc: 'How repeats are counted: back-to-back (`\'chain\'`), within a per-tool window (`\'window\'`), or both.', check: oneOf('chain', 'window', 'both') },
  windowSize: { doc: 'Window of a tool\'s last tracked calls for `\'window\'` / `\'both\'`; raised to the highest active threshold.', defaultLabel: 'off', check: isNumber },
  blockThreshold: { doc: 'Repeats at which the call is refused or steered; at least 2.', defaultLabel: '4 / read_file 6', check: isNumber },
  abortThreshold: { doc: 'Repeats at which the run is aborted; raised above the block threshold; `0` or less or `Infinity` turns it off.', defaultLabel: '8 / read_file 12', check: isNumber },
  thresholdAction: { doc: '`\'block\'` refuses the call at the threshold; `\'steer\'` runs it and appends the steering message to its result.', check: oneOf('block', 'steer') },
  steeringMessage: { doc: 'Text the model reads at the threshold: a string, or `(name, count) => string`.', defaultLabel: 'a pivot suggestion', check: isMessage },
  blockReason: { doc: 'Older name of `steeringMessage`, read when that one is unset.', defaultLabel: 'see steeringMessage', check: isMessage },
  normalize: { doc: 'The streak key of a call, `(name, input) => string | undefined`; `undefined` leaves it untracked.', defaultLabel: 'built-in', check: isFunction },
  tools: { doc: 'Tools tracked, by name or predicate; `[]` tracks none.', defaultLabel: 'shell and read_file', check: isMatcherList },
  countBlockedCalls: { doc: 'Calls an earlier gate refused still march the streak toward the abort.', check: isBoolean },
  globalCeiling: { doc: 'Back-to-back identical calls of any tool that abort the run; `0` or less or `Infinity` turns it off.', check: isNumber },
  globalCeilingExclude: { doc: 'Tools the global ceiling ignores (status or wait tools polled with the same input).', defaultLabel: 'none', check: isMatcherList },
})

/** The repeat guard slice. */
export const REPEAT_KNOBS = defineKnobs<RepeatKnobs, Record<never, never>>('repeat guard', {}, {
  repeatGuard: { doc: 'Refuse or steer a tool call repeated too often, and abort the run at a higher count.', defaultLabel: 'off', check: shape(REPEAT_GUARD_FIELDS), fields: REPEAT_GUARD_FIELDS },
})
