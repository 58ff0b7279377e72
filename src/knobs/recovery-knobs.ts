/** Recovery: continuing a run after a pause, an output-cap cut or a refusal. */

import { defineKnobs, isBoolean, isLimit } from './define'

/** How the loop recovers from turns that ended without an answer. */
export interface RecoveryKnobs {
  /** Most consecutive empty `pause_turn` continuations; `0` means unlimited. Default 0. */
  maxConsecutivePauseTurns?: number
  /** Continue a turn cut off by the output cap. Default false. */
  resumeOnMaxTokens?: boolean
  /** Most consecutive output-cap continuations; `0` turns the recovery off. Default 8. */
  maxConsecutiveLengthResumes?: number
  /** Most consecutive refusal continuations; `0` turns the recovery off. Default 3. */
  maxConsecutiveRefusalResumes?: number
}

/** Defaults of the recovery slice. */
export const RECOVERY_DEFAULTS = Object.freeze({
  maxConsecutivePauseTurns: 0,
  resumeOnMaxTokens: false,
  maxConsecutiveLengthResumes: 8,
  maxConsecutiveRefusalResumes: 3,
} satisfies RecoveryKnobs)

/** The recovery slice. */
export const RECOVERY_KNOBS = defineKnobs<RecoveryKnobs, typeof RECOVERY_DEFAULTS>('recovery', RECOVERY_DEFAULTS, {
  maxConsecutivePauseTurns: { doc: 'Empty `pause_turn` continuations in a row before the run ends with `pause-exhausted`; `0` is unlimited.', check: isLimit },
  resumeOnMaxTokens: { doc: 'Continue a turn cut off by the output cap instead of ending with `length`.', check: isBoolean },
  maxConsecutiveLengthResumes: { doc: 'Output-cap continuations in a row; `0` turns the recovery off.', check: isLimit },
  maxConsecutiveRefusalResumes: { doc: 'Refusal continuations in a row; `0` ends the run at the first refusal.', check: isLimit },
})
