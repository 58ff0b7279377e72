/** Every thinking level a run may ask for, from none to the most the model allows. */
export const THINKING_LEVELS = Object.freeze(['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'adaptive'] as const)

/** How much the model reasons before it answers. */
export type ThinkingLevel = typeof THINKING_LEVELS[number]

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === 'string' && (THINKING_LEVELS as readonly string[]).includes(value)
}
