import type { AgentBehavior, ToolBatch, ToolBatchExecutor } from '../../src'
import type { ToolDef } from '../../src/tools/types'
import type { ToolResult } from '../../src/types'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { deferred, echoTool, wait } from '../support/helpers'

const CALLS = [
  { id: 'c1', name: 'alpha', input: { n: 1 } },
  { id: 'c2', name: 'beta', input: { n: 2 } },
  { id: 'c3', name: 'alpha', input: { n: 3 } },
]

interface Observed {
  results: { callId: string, output: unknown, isError?: boolean }[]
  ran: string[]
  stopReason: string
}

/** One turn with `calls`, answered under `behavior`; what the model got back, in order, and which tools ran. */
async function runBatch(behavior: AgentBehavior, options: { tools?: Record<string, ToolDef>, calls?: typeof CALLS, hooks?: Parameters<typeof createAgent>[0]['hooks'], signal?: AbortSignal } = {}): Promise<Observed> {
  const ran: string[] = []
  const tool = (name: string) => echoTool(name, {
    spec: { name, description: name, inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
    execute: (input) => {
      ran.push(`${name}:${(input as { n: number }).n}`)
      return `${name} says ${(input as { n: number }).n}`
    },
  })
  const results: Observed['results'] = []
  const agent = createAgent({
    provider: scriptedProvider([{ toolCalls: options.calls ?? CALLS }, { text: 'done' }]),
    tools: options.tools ?? { alpha: tool('alpha'), beta: tool('beta') },
    behavior,
    hooks: {
      ...options.hooks,
      'tool-results:after': (ctx) => {
        results.push(...ctx.results.map(result => ({ callId: result.callId, output: result.output, ...(result.isError ? { isError: true } : {}) })))
      },
    },
  })
  try {
    const stats = await agent.run({ prompt: 'go', signal: options.signal })
    return { results, ran, stopReason: stats.stopReason }
  }
  finally {
    await agent.destroy()
  }
}

describe('toolBatchExecutor', () => {
  it('gets the turn\'s calls with the run and turn ids, and its results go back in the model\'s order', async () => {
    let seen: ToolBatch | undefined
    const executor: ToolBatchExecutor = async (batch) => {
      seen = batch
      const results: ToolResult[] = []
      for (const call of [...batch.calls].reverse()) results.push(await batch.execute(call))
      return results
    }
    const observed = await runBatch({ toolBatchExecutor: executor })
    expect(seen!.calls.map(call => call.id)).toEqual(['c1', 'c2', 'c3'])
    expect(seen!.runId).toMatch(/\S/)
    expect(seen!.turnId).toMatch(/\S/)
    expect(observed.ran).toEqual(['alpha:3', 'beta:2', 'alpha:1'])
    expect(observed.results).toEqual([
      { callId: 'c1', output: 'alpha says 1' },
      { callId: 'c2', output: 'beta says 2' },
      { callId: 'c3', output: 'alpha says 3' },
    ])
    expect(observed.stopReason).toBe('completed')
  })

  it('runs each execute(call) through the whole call pipeline: host gate, validation, hooks, transforms', async () => {
    const before: string[] = []
    const executor: ToolBatchExecutor = batch => Promise.all(batch.calls.map(call => batch.execute(call)))
    const observed = await runBatch({ toolBatchExecutor: executor }, {
      calls: [
        { id: 'c1', name: 'alpha', input: { n: 1 } },
        { id: 'c2', name: 'beta', input: { n: 2 } },
        { id: 'c3', name: 'alpha', input: { wrong: true } as never },
        { id: 'c4', name: 'nope', input: { n: 4 } },
      ],
      hooks: {
        'tool:gate': (ctx) => {
          if (ctx.name === 'beta') {
            ctx.block = true
            ctx.reason = 'no beta today'
          }
        },
        'tool:before': (ctx) => {
          before.push(ctx.callId)
        },
        'tool:transform': (ctx) => {
          ctx.result = `[${String(ctx.result)}]`
        },
      },
    })
    expect(observed.ran).toEqual(['alpha:1'])
    expect(before).toEqual(['c1'])
    expect(observed.results[0]).toEqual({ callId: 'c1', output: '[alpha says 1]' })
    expect(observed.results[1]).toMatchObject({ callId: 'c2', isError: true })
    expect(String(observed.results[1].output)).toContain('Blocked: no beta today')
    expect(String(observed.results[2].output)).toContain('Invalid arguments for alpha')
    expect(String(observed.results[3].output)).toContain('there is no tool named "nope"')
  })

  it('gives a call it never executed and never answered an error result saying it did not run', async () => {
    const observed = await runBatch({ toolBatchExecutor: async batch => [await batch.execute(batch.calls[1])] })
    expect(observed.ran).toEqual(['beta:2'])
    expect(observed.results.map(result => result.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(observed.results[0]).toEqual({ callId: 'c1', output: 'Error: the tool batch executor returned no result for this call. It did not run.', isError: true })
    expect(observed.results[1]).toEqual({ callId: 'c2', output: 'beta says 2' })
    expect(observed.results[2].isError).toBe(true)
  })

  it('answers a call that ran with what the pipeline produced, even when the executor drops or rewrites it', async () => {
    const observed = await runBatch({
      toolBatchExecutor: async (batch) => {
        await Promise.all(batch.calls.map(call => batch.execute(call)))
        return [{ callId: 'c2', output: 'forged' }]
      },
    })
    expect(observed.results).toEqual([
      { callId: 'c1', output: 'alpha says 1' },
      { callId: 'c2', output: 'beta says 2' },
      { callId: 'c3', output: 'alpha says 3' },
    ])
  })

  it('takes the host\'s own result for a call it did not execute, drops unknown and extra ids', async () => {
    const observed = await runBatch({
      toolBatchExecutor: async batch => [
        { callId: 'zzz', output: 'stray' },
        { callId: 'c3', output: 'cached answer' },
        { callId: 'c3', output: 'second answer' },
        { callId: 'c1', output: { not: 'content' } as never, isError: true },
        await batch.execute(batch.calls[1]),
        null as never,
      ],
    })
    expect(observed.ran).toEqual(['beta:2'])
    expect(observed.results).toEqual([
      { callId: 'c1', output: '{"not":"content"}', isError: true },
      { callId: 'c2', output: 'beta says 2' },
      { callId: 'c3', output: 'cached answer' },
    ])
  })

  it('pairs results in call order when two calls came under one id (the second recorded as dup_2)', async () => {
    const calls = [{ id: 'dup', name: 'alpha', input: { n: 1 } }, { id: 'dup', name: 'beta', input: { n: 2 } }]
    const observed = await runBatch({
      toolBatchExecutor: async batch => [await batch.execute(batch.calls[1]), await batch.execute(batch.calls[0])],
    }, { calls })
    expect(observed.results).toEqual([{ callId: 'dup', output: 'alpha says 1' }, { callId: 'dup_2', output: 'beta says 2' }])
  })

  it('runs a call once when execute is called twice, and rejects a call that is not in the batch', async () => {
    let rejected: unknown
    const observed = await runBatch({
      toolBatchExecutor: async (batch) => {
        const [first, again] = await Promise.all([batch.execute(batch.calls[0]), batch.execute({ ...batch.calls[0] })])
        await batch.execute({ id: 'elsewhere', name: 'alpha', input: { n: 9 } }).catch((error) => {
          rejected = error
        })
        return [first, again, await batch.execute(batch.calls[1]), await batch.execute(batch.calls[2])]
      },
    })
    expect(observed.ran).toEqual(['alpha:1', 'beta:2', 'alpha:3'])
    expect(rejected).toBeInstanceOf(TypeError)
    expect(observed.results.map(result => result.output)).toEqual(['alpha says 1', 'beta says 2', 'alpha says 3'])
  })

  it('refuses execute() once the batch is over, so no tool runs after its turn', async () => {
    let late: Promise<unknown> | undefined
    let batchSignal: AbortSignal | undefined
    const observed = await runBatch({
      toolBatchExecutor: async (batch) => {
        batchSignal = batch.signal
        setTimeout(() => {
          late = batch.execute(batch.calls[0]).catch((error: Error) => error.message)
        }, 0)
        return [await batch.execute(batch.calls[1])]
      },
    })
    await wait(20)
    expect(await late).toBe('This tool batch is over; its results are already recorded')
    expect(batchSignal!.aborted).toBe(true)
    expect(observed.ran).toEqual(['beta:2'])
  })

  it('turns a rejecting or malformed executor into error results for every call it left unanswered', async () => {
    const failing = await runBatch({
      toolBatchExecutor: async (batch) => {
        await batch.execute(batch.calls[0])
        throw new Error('pool is down')
      },
    })
    expect(failing.results[0]).toEqual({ callId: 'c1', output: 'alpha says 1' })
    expect(failing.results[1]).toEqual({ callId: 'c2', output: 'Error: the tool batch executor failed (pool is down). It did not run.', isError: true })
    const malformed = await runBatch({ toolBatchExecutor: async () => 'nothing' as never })
    expect(malformed.results.every(result => result.isError)).toBe(true)
    expect(malformed.stopReason).toBe('completed')
  })

  it('toolBatchTimeoutMs: aborts the batch signal, cuts running tools, keeps finished answers, pairs every call', async () => {
    let batchSignal: AbortSignal | undefined
    let toolSignal: AbortSignal | undefined
    const hang = deferred()
    const tools = {
      alpha: echoTool('alpha', { execute: () => 'fast' }),
      beta: echoTool('beta', {
        execute: (_input, ctx) => {
          toolSignal = ctx.signal
          return hang.promise.then(() => 'never')
        },
      }),
    }
    const observed = await runBatch({
      toolBatchTimeoutMs: 30,
      toolBatchExecutor: async (batch) => {
        batchSignal = batch.signal
        await batch.execute(batch.calls[0])
        void batch.execute(batch.calls[1])
        await new Promise(() => {})
        return []
      },
    }, { tools })
    expect(batchSignal!.aborted).toBe(true)
    expect(toolSignal!.aborted).toBe(true)
    expect(observed.results).toEqual([
      { callId: 'c1', output: 'fast' },
      { callId: 'c2', output: 'Error: the tool batch executor did not finish within 30ms. It was started but did not finish.', isError: true },
      { callId: 'c3', output: 'Error: the tool batch executor did not finish within 30ms. It did not run.', isError: true },
    ])
    expect(observed.stopReason).toBe('completed')
  })

  it('toolBatchTimeoutMs also bounds calls the executor started but did not wait for', async () => {
    const observed = await runBatch({
      toolBatchTimeoutMs: 30,
      toolBatchExecutor: async (batch) => {
        void batch.execute(batch.calls[0])
        return []
      },
    }, { tools: { alpha: echoTool('alpha', { execute: () => new Promise(() => {}) }), beta: echoTool('beta') } })
    expect(observed.results[0]).toMatchObject({ callId: 'c1', isError: true })
    expect(String(observed.results[0].output)).toContain('did not finish within 30ms')
  })

  it('toolBatchTimeoutMs does not bound the built-in scheduler', async () => {
    const observed = await runBatch({ toolBatchTimeoutMs: 5 }, {
      tools: { alpha: echoTool('alpha', { execute: () => wait(40).then(() => 'slow') }), beta: echoTool('beta') },
      calls: [{ id: 'c1', name: 'alpha', input: { n: 1 } }],
    })
    expect(observed.results).toEqual([{ callId: 'c1', output: 'slow' }])
  })

  it('stops waiting for a hung executor when the run is aborted, and every call is still paired', async () => {
    const controller = new AbortController()
    let started = false
    const observed = await runBatch({
      toolBatchExecutor: async () => {
        started = true
        setTimeout(() => controller.abort(), 10)
        await new Promise(() => {})
        return []
      },
    }, { signal: controller.signal })
    expect(started).toBe(true)
    expect(observed.stopReason).toBe('aborted')
    expect(observed.results.map(result => result.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(observed.results.every(result => result.isError && String(result.output).startsWith('Aborted'))).toBe(true)
  })
})

describe('toolBatchExecutor pairing, for any answer an executor gives', () => {
  it('every call gets exactly one result, in the model\'s order; an executed call keeps its real result', async () => {
    const ids = ['c1', 'c2', 'c3']
    const resultArb = fc.oneof(
      fc.record({ callId: fc.constantFrom(...ids, 'zzz', ''), output: fc.oneof(fc.string(), fc.anything()), isError: fc.option(fc.boolean(), { nil: undefined }) }),
      fc.anything(),
    )
    await fc.assert(fc.asyncProperty(
      fc.subarray([0, 1, 2]),
      fc.array(resultArb, { maxLength: 6 }),
      fc.boolean(),
      async (executed, extra, shuffle) => {
        const observed = await runBatch({
          toolBatchExecutor: async (batch) => {
            const done = await Promise.all(executed.map(index => batch.execute(batch.calls[index])))
            const all = [...done, ...extra] as ToolResult[]
            return shuffle ? all.reverse() : all
          },
        })
        expect(observed.results.map(result => result.callId)).toEqual(ids)
        for (const index of executed)
          expect(observed.results[index]).toEqual({ callId: ids[index], output: `${CALLS[index].name} says ${index + 1}` })
        expect(observed.ran).toHaveLength(executed.length)
        expect(observed.stopReason).toBe('completed')
      },
    ), { numRuns: 40 })
  })
})
