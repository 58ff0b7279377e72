import type { BehaviorPolicy } from './policy'
import { RECOVERY_DEFAULTS } from '../knobs/recovery-knobs'
import { continueWith } from './policy'

/** The text of every continuation the built-in policies inject. */
export const CONTINUE_MESSAGE = 'Please continue.'

/** Empty pause turns in a row, as `pause-continuation` counts them. */
export interface PauseContinuationState {
  readonly emptyPauses: number
}

/**
 * Anthropic's `pause_turn` is a server-side pause, not an answer: continue
 * the turn. `maxConsecutivePauseTurns` (0 = unlimited, the default) caps runs
 * of *empty* pauses (no text, thinking or tool calls); a productive pause
 * resets the count.
 */
export const pauseContinuation: BehaviorPolicy<PauseContinuationState> = {
  name: 'pause-continuation',
  initialState: () => ({ emptyPauses: 0 }),
  afterTurn({ behavior, state, finishReason, assistant, toolResults }) {
    if (finishReason !== 'pause' || toolResults.length > 0)
      return state.emptyPauses === 0 ? undefined : { state: { emptyPauses: 0 } }
    const cap = Math.max(0, behavior.maxConsecutivePauseTurns ?? RECOVERY_DEFAULTS.maxConsecutivePauseTurns)
    const empty = !assistant.content.some(block =>
      (block.type === 'text' && block.text.length > 0) || block.type === 'thinking' || block.type === 'redacted_thinking')
    const emptyPauses = empty ? state.emptyPauses + 1 : 0
    if (cap > 0 && emptyPauses >= cap)
      return { state: { emptyPauses }, decision: { type: 'stop', reason: 'pause-exhausted' } }
    return { state: { emptyPauses }, decision: continueWith(CONTINUE_MESSAGE, 'continue-pause') }
  },
}
