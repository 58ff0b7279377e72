import type { BehaviorPolicy } from './policy'

export const CONTINUE_MESSAGE = 'Please continue.'

/**
 * Anthropic's `pause_turn` is a server-side pause, not an answer: continue
 * the turn. `maxConsecutivePauseTurns` (0 = unlimited, the default) caps runs
 * of *empty* pauses (no text, thinking or tool calls); a productive pause
 * resets the count.
 */
export const pauseContinuation: BehaviorPolicy = {
  name: 'pause-continuation',
  attach(ctx) {
    const cap = Math.max(0, ctx.behavior.maxConsecutivePauseTurns ?? 0)
    let emptyPauses = 0
    return ctx.hooks.hook('turn:after', ({ finishReason, assistant, toolResults }) => {
      if (finishReason !== 'pause' || toolResults.length > 0) {
        emptyPauses = 0
        return
      }
      const empty = !assistant.content.some(block =>
        (block.type === 'text' && block.text.length > 0) || block.type === 'thinking' || block.type === 'redacted_thinking')
      emptyPauses = empty ? emptyPauses + 1 : 0
      if (cap > 0 && emptyPauses >= cap) {
        ctx.stop('pause-exhausted')
        return
      }
      ctx.continueWith(CONTINUE_MESSAGE, 'continue-pause')
    })
  },
}
