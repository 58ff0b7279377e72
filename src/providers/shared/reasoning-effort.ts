/**
 * Reasoning efforts, as both OpenAI-family APIs (Chat Completions'
 * `reasoning_effort`, Responses' `reasoning.effort`) spell them, and the rule
 * that fits a wanted effort to what a model accepts.
 */

/** `reasoning_effort` values this SDK sends, weakest first. */
export const CHAT_REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const
/** A `reasoning_effort` value a Chat Completions server may accept. */
export type ChatReasoningEffort = typeof CHAT_REASONING_EFFORTS[number]

/**
 * The effort to send for `wanted`: itself when accepted, else the strongest
 * accepted effort below it, else the weakest one above it (a `minimal` request
 * on a model whose floor is `low` still reasons a little). `undefined` when the
 * model accepts none.
 */
export function fitEffort(wanted: ChatReasoningEffort, accepted: readonly ChatReasoningEffort[]): ChatReasoningEffort | undefined {
  const rank = CHAT_REASONING_EFFORTS.indexOf(wanted)
  let below: ChatReasoningEffort | undefined
  let above: ChatReasoningEffort | undefined
  for (const effort of accepted) {
    const r = CHAT_REASONING_EFFORTS.indexOf(effort)
    if (r === rank)
      return effort
    if (r < rank && (below === undefined || r > CHAT_REASONING_EFFORTS.indexOf(below)))
      below = effort
    if (r > rank && (above === undefined || r < CHAT_REASONING_EFFORTS.indexOf(above)))
      above = effort
  }
  return below ?? above
}
