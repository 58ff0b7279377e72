import type { AgentBehavior, Provider } from '../../../../src'
import type { WatchdogKnobs } from '../../../../src/knobs/watchdog-knobs'
import type { SliceScenarios } from '../harness'
import { scriptedProvider } from '../../../../src/testing'
import { wait } from '../../../support/helpers'
import { endOf } from '../harness'

const once = { retry: { maxAttempts: 1 } } satisfies AgentBehavior

/** A provider that streams one delta, goes quiet for `gapMs`, then finishes. */
function gapProvider(gapMs: number): Provider {
  return {
    name: 'gap',
    meta: { defaultModel: 'gap-model' },
    capabilities: { images: false, documents: false, toolResultMedia: false, thinking: false, promptCache: false },
    async stream(request, callbacks) {
      callbacks.onText('a')
      await Promise.race([wait(gapMs), new Promise(resolve => request.signal.addEventListener('abort', resolve, { once: true }))])
      if (request.signal.aborted)
        throw request.signal.reason
      callbacks.onText('b')
      return { content: [{ type: 'text', text: 'ab' }], toolCalls: [], finishReason: 'stop', usage: { input: 1, output: 1, modelId: request.model, finishReason: 'stop' } }
    },
  }
}

export const watchdogScenarios: SliceScenarios<WatchdogKnobs> = {
  providerStreamStartTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: scriptedProvider([{ text: 'late', delayMs: 200 }]), behavior: { ...once, ...behavior } }),
    unset: 'completed',
    set: 'AgentProviderError',
  },
  providerStreamIdleTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: gapProvider(200), behavior: { ...once, ...behavior } }),
    unset: 'completed',
    set: 'AgentProviderError',
  },
  providerStreamTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: gapProvider(200), behavior: { ...once, ...behavior } }),
    unset: 'completed',
    set: 'AgentProviderError',
  },
  hookTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: scriptedProvider([{ text: 'ok' }]), behavior, hooks: { 'turn:before': () => wait(200) } }),
    unset: 'completed',
    set: 'OperationTimeoutError',
  },
}
