import type { ThinkingDecay } from '../knobs/thinking-knobs'
import type { BehaviorPolicy } from './policy'
import { AgentBehaviorError } from '../errors'

/**
 * The budget of run turn `turn` (1-based) under `decay`, from `base`. Step
 * and geometric schedules only ever lower the budget; they hold `base`
 * through `afterTurn`. Whole tokens, since providers take integers.
 */
export function decayedThinkingBudget(decay: ThinkingDecay, turn: number, base: number): number {
  if (typeof decay === 'function') {
    const value = decay(turn, base)
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new AgentBehaviorError('thinkingDecay', value, 'a function returning a finite number > 0', 'run')
    return Math.floor(value)
  }
  if (turn <= decay.afterTurn)
    return base
  const floor = Math.min(base, decay.floor)
  if (!('factor' in decay) || decay.factor === undefined)
    return Math.floor(floor)
  return Math.floor(Math.max(floor, base * decay.factor ** (turn - decay.afterTurn)))
}

/**
 * `thinkingDecay`: lower the per-turn thinking budget as the run goes on, by
 * patching the request's `thinkingBudget` before each model call. Off without
 * a `thinkingBudget` (nothing to decay), with thinking off, and with
 * `thinking: 'adaptive'` on a provider whose budget caps the whole response
 * there (`adaptiveBudgetIsEnvelope`): shrinking that cap would cut the answer,
 * not the reasoning.
 */
export const thinkingDecay: BehaviorPolicy = {
  name: 'thinking-decay',
  enabled: (behavior, run) => behavior.thinkingDecay !== undefined && behavior.thinkingBudget !== undefined && run.thinking !== 'off',
  request({ behavior, run, turn, request }) {
    const base = behavior.thinkingBudget
    if (base === undefined || request.thinkingBudget === undefined)
      return
    if (run.thinking === 'adaptive' && run.provider?.capabilities.adaptiveBudgetIsEnvelope)
      return
    const budget = decayedThinkingBudget(behavior.thinkingDecay!, turn, base)
    return budget === request.thinkingBudget ? undefined : { decision: { thinkingBudget: budget } }
  },
}
