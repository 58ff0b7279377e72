import type { DecisionReplyBody, Provider } from '../../src'

/** A provider whose decisions capability hands back whatever body the test gives it, as a model might. */
export function replying(next: () => DecisionReplyBody): Provider {
  return {
    name: 'echo',
    meta: { defaultModel: 'echo-1' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    stream: () => Promise.reject(new Error('not used')),
    decisions: {
      defaultModel: 'echo-1',
      canAnswer: () => true,
      decide: async () => ({ body: next(), model: 'echo-1', usage: { input: 1, output: 1 } }),
    },
  }
}
