import type { BehaviorPolicy } from './policy'
import { AgentLengthResumeExhaustedError } from '../errors'
import { CONTINUE_MESSAGE } from './pause-continuation'

/** Resumed turns with no text and no tool calls (reasoning that restarts every time) allowed in a row. */
const MAX_EMPTY_LENGTH_TURNS = 2

/** Text a reader would see: anything but whitespace. */
const VISIBLE = /\S/

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
export const lengthResume: BehaviorPolicy = {
  name: 'length-resume',
  attach(ctx) {
    const cap = ctx.behavior.maxConsecutiveLengthResumes ?? 8
    if (!ctx.behavior.resumeOnMaxTokens || !(cap > 0))
      return
    let resumes = 0
    let emptyTurns = 0
    return ctx.hooks.hook('turn:after', ({ finishReason, assistant, toolResults }) => {
      if (finishReason !== 'length' || toolResults.length > 0) {
        resumes = 0
        emptyTurns = 0
        return
      }
      if (!assistant.content.some(block => block.type === 'text' && VISIBLE.test(block.text))) {
        emptyTurns += 1
        if (emptyTurns >= MAX_EMPTY_LENGTH_TURNS)
          throw new AgentLengthResumeExhaustedError(emptyTurns)
        ctx.continueWith(CONTINUE_MESSAGE, 'continue-length')
        return
      }
      emptyTurns = 0
      if (resumes >= cap) {
        ctx.stop('length-exhausted')
        return
      }
      resumes += 1
      ctx.continueWith(CONTINUE_MESSAGE, 'continue-length')
    })
  },
}
