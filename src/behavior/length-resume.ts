import type { BehaviorPolicy } from './policy'
import { AgentLengthResumeExhaustedError } from '../errors'
import { CONTINUE_MESSAGE } from './pause-continuation'

/** Resumed turns with no text and no tool calls (reasoning that restarts every time) allowed in a row. */
const MAX_EMPTY_LENGTH_TURNS = 2

/**
 * `resumeOnMaxTokens`: a turn cut off by the output cap, with no tool call to
 * run, is continued instead of ending the run mid-answer. At most
 * `maxConsecutiveLengthResumes` (default 8; 0 turns this off) in a row, then
 * the run stops with `length-exhausted`; turns that produce nothing at all
 * fail the run much sooner with `AgentLengthResumeExhaustedError`.
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
      const producedText = assistant.content.some(block => block.type === 'text' && block.text.length > 0)
      emptyTurns = producedText ? 0 : emptyTurns + 1
      if (emptyTurns >= MAX_EMPTY_LENGTH_TURNS)
        throw new AgentLengthResumeExhaustedError(emptyTurns)
      if (resumes >= cap) {
        ctx.stop('length-exhausted')
        return
      }
      resumes += 1
      ctx.continueWith(CONTINUE_MESSAGE, 'continue-length')
    })
  },
}
