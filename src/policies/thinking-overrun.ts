import type { SessionTurn } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { AgentBehavior } from '../knobs/behavior'
import type { ThinkingOverrunConfig } from '../knobs/nudge-knobs'
import type { BehaviorPolicy } from './policy'
import { THINKING_OVERRUN_DEFAULTS } from '../knobs/nudge-knobs'
import { nudge } from './policy'

/** Characters per token when thinking has to be measured from its text (a provider that reports no thinking tokens). */
const CHARS_PER_TOKEN = 4

function settingsOf(behavior: Readonly<AgentBehavior>): { thresholdTokens: number, message?: string } | undefined {
  const value = behavior.thinkingOverrunPolicy
  if (value === undefined || value === 'off')
    return undefined
  const config: ThinkingOverrunConfig = typeof value === 'string' ? { mode: value } : value
  if ((config.mode ?? THINKING_OVERRUN_DEFAULTS.mode) === 'off')
    return undefined
  return { thresholdTokens: config.thresholdTokens ?? THINKING_OVERRUN_DEFAULTS.thresholdTokens, message: config.message }
}

/** Thinking tokens of a turn: as the provider reported them, else estimated from the streamed thinking text. */
export function thinkingTokensOf(assistant: SessionTurn, usage: TurnUsage): number {
  if (typeof usage.thinking === 'number' && usage.thinking > 0)
    return usage.thinking
  let chars = 0
  for (const block of assistant.content) {
    if (block.type === 'thinking')
      chars += block.text.length
  }
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

function defaultMessage(tokens: number): string {
  return `The last turn spent about ${tokens} tokens thinking. Act on what you already know: take the next concrete step now, and keep the reasoning before each step short.`
}

/**
 * `thinkingOverrunPolicy`: after a turn whose thinking ran past
 * `thresholdTokens` and that goes on (it called tools), one nudge joins the
 * next user turn pushing toward concrete progress. Advisory only: the turn's
 * own tool calls have already run, and a turn that answered is left alone.
 */
export const thinkingOverrun: BehaviorPolicy<null> = {
  name: 'thinking-overrun',
  enabled: behavior => settingsOf(behavior) !== undefined,
  afterTurn({ behavior, assistant, usage, toolResults, decided }) {
    if (toolResults.length === 0 || decided.ending)
      return
    const { thresholdTokens, message } = settingsOf(behavior)!
    const tokens = thinkingTokensOf(assistant, usage)
    if (tokens <= thresholdTokens)
      return
    return { decision: nudge(message ?? defaultMessage(tokens), 'thinking-overrun') }
  },
}
