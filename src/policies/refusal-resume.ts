import type { BehaviorPolicy } from './policy'
import { RECOVERY_DEFAULTS } from '../knobs/recovery-knobs'
import { continueWith } from './policy'

/** The continuation a refused turn gets. */
export const REFUSAL_CONTINUE_MESSAGE = 'Please continue with the task.'

/** Refusals continued in a row, as `refusal-resume` counts them. */
export interface RefusalResumeState {
  readonly resumes: number
}

/**
 * A refusal (`finishReason: 'content-filter'`) with no tool calls is often
 * transient; retry it with a continue message up to
 * `maxConsecutiveRefusalResumes` times in a row (default 3; 0 turns this off,
 * and the run then stops with `content-filter`), then stop with
 * `refusal-exhausted`.
 */
export const refusalResume: BehaviorPolicy<RefusalResumeState> = {
  name: 'refusal-resume',
  enabled: behavior => (behavior.maxConsecutiveRefusalResumes ?? RECOVERY_DEFAULTS.maxConsecutiveRefusalResumes) > 0,
  initialState: () => ({ resumes: 0 }),
  afterTurn({ behavior, state, finishReason, toolResults }) {
    if (finishReason !== 'content-filter' || toolResults.length > 0)
      return state.resumes === 0 ? undefined : { state: { resumes: 0 } }
    if (state.resumes >= (behavior.maxConsecutiveRefusalResumes ?? RECOVERY_DEFAULTS.maxConsecutiveRefusalResumes))
      return { decision: { type: 'stop', reason: 'refusal-exhausted' } }
    return { state: { resumes: state.resumes + 1 }, decision: continueWith(REFUSAL_CONTINUE_MESSAGE, 'continue-refusal') }
  },
}
