import type { Provider, StreamCallbacks } from '../../src/providers/types'

/**
 * A provider whose every attempt streams the same partial output (each step
 * calls one callback) and then fails with `fail()`: a stream that dies
 * mid-answer, which the scripted provider cannot express.
 */
export function partialProvider(name: string, steps: ((callbacks: StreamCallbacks) => void)[], fail: () => Error): Provider & { calls: number } {
  const provider = {
    name,
    meta: { defaultModel: `${name}-model` },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: true, promptCache: false },
    calls: 0,
    async stream(_options: unknown, callbacks: StreamCallbacks) {
      provider.calls++
      for (const step of steps)
        step(callbacks)
      await Promise.resolve()
      throw fail()
    },
  }
  return provider
}
