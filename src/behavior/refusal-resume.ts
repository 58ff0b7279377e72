import type { BehaviorPolicy } from './policy'

export const REFUSAL_CONTINUE_MESSAGE = 'Please continue with the task.'

/**
 * A refusal (`finishReason: 'content-filter'`) with no tool calls is often
 * transient; retry it with a continue message up to
 * `maxConsecutiveRefusalResumes` times in a row (default 3; 0 turns this off,
 * and the run then stops with `content-filter`), then stop with
 * `refusal-exhausted`.
 */
export const refusalResume: BehaviorPolicy = {
  name: 'refusal-resume',
  attach(ctx) {
    const cap = ctx.behavior.maxConsecutiveRefusalResumes ?? 3
    if (!(cap > 0))
      return
    let resumes = 0
    return ctx.hooks.hook('turn:after', ({ finishReason, toolResults }) => {
      if (finishReason !== 'content-filter' || toolResults.length > 0) {
        resumes = 0
        return
      }
      if (resumes >= cap) {
        ctx.stop('refusal-exhausted')
        return
      }
      resumes += 1
      ctx.continueWith(REFUSAL_CONTINUE_MESSAGE, 'continue-refusal')
    })
  },
}
