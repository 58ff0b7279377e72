import type { BehaviorPolicy } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { AgentLengthResumeExhaustedError } from '../errors'
import { RECOVERY_DEFAULTS } from '../knobs/recovery-knobs'
import { CONTINUE_MESSAGE } from './pause-continuation'
import { continueWith } from './policy'

/** Resumed turns with no text and no tool calls (reasoning that restarts every time) allowed in a row. */
const MAX_EMPTY_LENGTH_TURNS = 2

/** Text a reader would see: anything but whitespace. */
const VISIBLE = /\S/

/** The two counters `length-resume` keeps on the run state. */
export interface LengthResumeState {
  /** Cut-off turns with visible text continued in a row. */
  readonly resumes: number
  /** Cut-off turns with no visible text in a row. */
  readonly emptyTurns: number
}

const RESET: LengthResumeState = { resumes: 0, emptyTurns: 0 }

/**
 * `resumeOnMaxTokens`: a turn cut off by the output cap, with no tool call to
 * run, is continued instead of ending the run mid-answer.
 *
 * Two counters, as the contract defines them. `maxConsecutiveLengthResumes`
 * (default 8; 0 turns this off) bounds continuations of cut-off turns that
 * produced visible text: once that many were continued in a row, the next
 * cut-off turn stops the run with `length-exhausted`. A cut-off turn with no
 * visible text (reasoning that restarts every time) neither counts toward
 * that cap nor breaks the chain; it is bounded separately, and after
 * `MAX_EMPTY_LENGTH_TURNS` of them in a row the run fails with
 * `AgentLengthResumeExhaustedError`. Any turn that is not cut off (or that
 * called tools) resets both.
 */
export const lengthResume: BehaviorPolicy<LengthResumeState> = {
  name: 'length-resume',
  enabled: behavior => (behavior.resumeOnMaxTokens ?? RECOVERY_DEFAULTS.resumeOnMaxTokens) && (behavior.maxConsecutiveLengthResumes ?? RECOVERY_DEFAULTS.maxConsecutiveLengthResumes) > 0,
  initialState: () => RESET,
  afterTurn({ behavior, state, finishReason, assistant, toolResults }) {
    if (finishReason !== 'length' || toolResults.length > 0)
      return state.resumes === 0 && state.emptyTurns === 0 ? undefined : { state: RESET }
    if (!assistant.content.some(block => block.type === 'text' && VISIBLE.test(block.text))) {
      const emptyTurns = state.emptyTurns + 1
      if (emptyTurns >= MAX_EMPTY_LENGTH_TURNS)
        return { state: mergeObjects(state, { emptyTurns }), decision: { type: 'fail', error: new AgentLengthResumeExhaustedError(emptyTurns) } }
      return { state: mergeObjects(state, { emptyTurns }), decision: continueWith(CONTINUE_MESSAGE, 'continue-length') }
    }
    const cap = behavior.maxConsecutiveLengthResumes ?? RECOVERY_DEFAULTS.maxConsecutiveLengthResumes
    if (state.resumes >= cap)
      return { state: mergeObjects(state, { emptyTurns: 0 }), decision: { type: 'stop', reason: 'length-exhausted' } }
    return { state: { resumes: state.resumes + 1, emptyTurns: 0 }, decision: continueWith(CONTINUE_MESSAGE, 'continue-length') }
  },
}
