import type { ToolBatchExecutor } from '../../../../src'
import type { ExecutionContext } from '../../../../src/contexts/types'
import type { ExecutionKnobs } from '../../../../src/knobs/execution-knobs'
import type { SliceScenarios } from '../harness'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { scriptedProvider } from '../../../../src/testing'
import { echoTool, wait } from '../../../support/helpers'
import { endOf } from '../harness'

function context(overrides: Partial<ExecutionContext>): ExecutionContext {
  const inner = createProcessContext({ cwd: mkdtempSync(join(tmpdir(), 'zidane-knobs-')) })
  return Object.assign(Object.create(inner) as ExecutionContext, overrides)
}

export const executionScenarios: SliceScenarios<ExecutionKnobs> = {
  maxConcurrentTools: {
    value: 1,
    outcome: async (behavior) => {
      let inFlight = 0
      let most = 0
      const slow = echoTool('slow', {
        isConcurrencySafe: true,
        execute: async () => {
          most = Math.max(most, ++inFlight)
          await wait(20)
          inFlight--
          return 'ok'
        },
      })
      const provider = scriptedProvider([{ toolCalls: [{ name: 'slow', input: { n: 1 } }, { name: 'slow', input: { n: 2 } }, { name: 'slow', input: { n: 3 } }] }, { text: 'done' }])
      await createAgent({ provider, tools: { slow }, behavior }).run({ prompt: 'go' })
      return most
    },
    unset: 3,
    set: 1,
  },
  spawnTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: scriptedProvider([{ text: 'ok' }]), tools: { a: echoTool('a') }, execution: context({ spawn: () => wait(200) }), behavior }),
    unset: 'completed',
    set: 'OperationTimeoutError',
  },
  destroyTimeoutMs: {
    value: 20,
    outcome: async (behavior) => {
      let tornDown = false
      const execution = context({
        destroy: async () => {
          await wait(200)
          tornDown = true
        },
      })
      await createAgent({ provider: scriptedProvider([]), execution, behavior }).destroy()
      return tornDown
    },
    unset: true,
    set: false,
  },
  toolBatchExecutor: {
    // The order the calls run in: the built-in scheduler keeps the model's, this executor reverses it.
    value: (async (batch) => {
      const results = []
      for (const call of [...batch.calls].reverse()) results.push(await batch.execute(call))
      return results
    }) satisfies ToolBatchExecutor,
    outcome: async (behavior) => {
      const ran: string[] = []
      const tool = echoTool('step', { execute: (input) => {
        ran.push(String((input as { n: number }).n))
        return 'ok'
      } })
      const provider = scriptedProvider([{ toolCalls: [{ name: 'step', input: { n: 1 } }, { name: 'step', input: { n: 2 } }] }, { text: 'done' }])
      await createAgent({ provider, tools: { step: tool }, behavior }).run({ prompt: 'go' })
      return ran.join(',')
    },
    unset: '1,2',
    set: '2,1',
  },
  toolBatchTimeoutMs: {
    // Bounds a slow host executor: its late answer is replaced by a timeout error.
    value: 20,
    outcome: async (behavior) => {
      let answer: unknown
      const slowExecutor: ToolBatchExecutor = async (batch) => {
        await wait(150)
        return Promise.all(batch.calls.map(call => batch.execute(call)))
      }
      const provider = scriptedProvider([{ toolCalls: [{ name: 'step', input: {} }] }, { text: 'done' }])
      await createAgent({
        provider,
        tools: { step: echoTool('step', { execute: () => 'ok' }) },
        behavior: { ...behavior, toolBatchExecutor: slowExecutor },
        hooks: { 'tool-results:after': (ctx) => {
          answer = ctx.results[0].isError ? 'error' : ctx.results[0].output
        } },
      }).run({ prompt: 'go' })
      return answer
    },
    unset: 'ok',
    set: 'error',
  },
}
