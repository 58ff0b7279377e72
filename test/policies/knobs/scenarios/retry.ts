import type { AgentBehavior } from '../../../../src'
import type { RetryKnobs } from '../../../../src/knobs/retry-knobs'
import type { SliceScenarios } from '../harness'
import { vi } from 'vitest'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { endOf } from '../harness'

/** A retryable failure whose `retry-after` of 0 makes every retry immediate, then an answer. */
function flaky() {
  return scriptedProvider([{ error: { kind: 'server', retryable: true, retryAfterMs: 0 } }, { text: 'ok' }])
}

/** The delay the loop announces on `stream:retry` for the first retry; the run is aborted there, so nothing waits. */
async function firstDelay(behavior: AgentBehavior, retryAfterMs?: number): Promise<number> {
  const provider = scriptedProvider([{ error: { kind: 'server', retryable: true, retryAfterMs } }, { text: 'ok' }])
  const agent = createAgent({ provider, behavior })
  let delay = -1
  agent.hooks.hook('stream:retry', (ctx) => {
    delay = ctx.delayMs
    agent.abort()
  })
  const random = vi.spyOn(Math, 'random').mockReturnValue(0.5)
  try {
    await agent.run({ prompt: 'go' })
  }
  finally {
    random.mockRestore()
  }
  return delay
}

export const retryScenarios: SliceScenarios<RetryKnobs> = {
  retry: {
    value: { maxAttempts: 1 },
    outcome: behavior => endOf({ provider: flaky(), behavior }),
    unset: 'completed',
    set: 'AgentProviderError',
    fields: {
      maxAttempts: { value: 1, unset: 'completed', set: 'AgentProviderError' },
      // Full jitter is pinned to half the ceiling: half of 1000 by default, half of 100 when set.
      initialDelayMs: { value: 100, outcome: behavior => firstDelay(behavior), unset: 500, set: 50 },
      // A server's retry-after of 50 s is capped by maxDelayMs.
      maxDelayMs: { value: 10, outcome: behavior => firstDelay(behavior, 50_000), unset: 30_000, set: 10 },
    },
  },
}
