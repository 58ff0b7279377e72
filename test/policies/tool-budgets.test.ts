import type { ToolBudgetExceededContext } from '../../src'
import type { GateBatchStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { toolBudgets } from '../../src/policies/tool-budgets'
import { runPolicyScript } from '../../src/testing'
import { probeTool, runOnFakeAnthropic, textsOf } from './budget-support'

const five: GateBatchStep = { phase: 'gateBatch', calls: Array.from({ length: 5 }, (_, i) => ({ name: 'probe', input: { n: i } })) }

describe('tool-budgets (policy harness)', () => {
  it('is off without budgets', async () => {
    expect((await runPolicyScript(toolBudgets, { steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(toolBudgets, { behavior: { toolBudgets: {} }, steps: [] })).enabled).toBe(false)
  })

  it('block: five calls of one batch against max 3 let exactly three through, and report each refusal', async () => {
    const { steps } = await runPolicyScript(toolBudgets, { behavior: { toolBudgets: { probe: { max: 3, onExceed: 'block' } } }, steps: [five] })
    const decisions = steps[0].phase === 'gateBatch' ? steps[0].decisions : []
    expect(decisions.map(decision => decision?.type)).toEqual([undefined, undefined, undefined, 'block', 'block'])
    expect(decisions[3]).toMatchObject({ reason: expect.stringContaining('probe has used its budget of 3 calls') })
    expect(steps[0].state).toEqual({ counts: { probe: 3 }, steers: [] })
    expect(steps[0].events.map(event => [event.hook, event.context.mode, event.context.count, event.context.callId])).toEqual([
      ['tool-budget:exceeded', 'block', 3, 'call-0-3'],
      ['tool-budget:exceeded', 'block', 3, 'call-0-4'],
    ])
    expect(steps[0].events[0].context).toMatchObject({ turnId: 'turn-1', tool: 'probe', max: 3, input: { n: 3 } })
  })

  it('steer (the default): every call runs, and one nudge per tool joins the next turn', async () => {
    const { steps } = await runPolicyScript(toolBudgets, { behavior: { toolBudgets: { probe: { max: 3 } } }, steps: [five, { phase: 'afterTurn' }, { phase: 'afterTurn' }] })
    expect(steps[0]).toMatchObject({ decisions: [undefined, undefined, undefined, undefined, undefined] })
    expect(steps[0].events.map(event => [event.context.mode, event.context.count])).toEqual([['steer', 3], ['steer', 4]])
    expect(steps[0].state).toMatchObject({ counts: { probe: 5 } })
    expect(steps[1]).toMatchObject({ keepGoing: false, messages: [{ injected: 'tool-budget', content: [{ origin: 'injected', text: expect.stringContaining('called probe 4 times') }] }] })
    expect(steps[2]).toMatchObject({ messages: [] })
  })

  it('counts carry over turns; calls the loop or an earlier gate refused are not counted', async () => {
    const behavior = { toolBudgets: { probe: { max: 2, onExceed: 'block' as const } } }
    const { steps } = await runPolicyScript(toolBudgets, {
      behavior,
      steps: [
        { phase: 'gateBatch', calls: [{ name: 'probe' }, { name: 'probe' }, { name: 'other' }], blocked: { 0: 'not allowed' } },
        { phase: 'afterTurn' },
        { phase: 'gateBatch', calls: [{ name: 'probe' }, { name: 'probe' }] },
      ],
    })
    expect(steps[0].state).toMatchObject({ counts: { probe: 1 } })
    expect(steps[2]).toMatchObject({ decisions: [undefined, { type: 'block' }] })
  })

  it('a call the host gate refused is given back; one the tool ran, a replay, or a policy refusal is not', async () => {
    const behavior = { toolBudgets: { probe: { max: 2, onExceed: 'block' as const } } }
    const call = { name: 'probe' }
    const { steps } = await runPolicyScript(toolBudgets, {
      behavior,
      steps: [
        { phase: 'gateBatch', calls: [call, call] },
        { phase: 'result', call, result: 'Blocked: not now', isError: true, answer: { kind: 'refused', by: 'host' } },
        { phase: 'result', call, result: 'ok' },
        { phase: 'result', call, result: 'replayed', answer: { kind: 'substituted', by: 'policy' } },
        { phase: 'result', call, result: 'Blocked: by policy', isError: true, answer: { kind: 'refused', by: 'policy' } },
        { phase: 'result', call: { name: 'other' }, result: 'Blocked', isError: true, answer: { kind: 'refused', by: 'host' } },
        { phase: 'afterTurn' },
        { phase: 'gateBatch', calls: [call, call] },
      ],
    })
    expect(steps[0].state).toMatchObject({ counts: { probe: 2 } })
    expect(steps.slice(1, 6).map(step => step.state)).toEqual(Array.from({ length: 5 }).fill({ counts: { probe: 1 }, steers: [] }))
    expect(steps[7]).toMatchObject({ decisions: [undefined, { type: 'block' }] })
  })

  it('a function picks mode and text per call; one that throws or answers nonsense steers with the default text', async () => {
    const seen: unknown[] = []
    const { steps } = await runPolicyScript(toolBudgets, {
      behavior: { toolBudgets: { probe: { max: 1, onExceed: (ctx) => {
        seen.push(ctx)
        return ctx.count === 1 ? { mode: 'block', message: 'no more probes' } : { mode: 'steer', message: `probe #${ctx.count + 1}` }
      } } } },
      steps: [{ phase: 'gateBatch', calls: [{ name: 'probe', input: { n: 1 } }, { name: 'probe', input: { n: 2 } }] }],
    })
    expect(steps[0]).toMatchObject({ decisions: [undefined, { type: 'block', reason: 'no more probes' }] })
    expect(seen).toEqual([{ tool: 'probe', max: 1, count: 1, callId: 'call-0-1', input: { n: 2 } }])

    const throws = (): never => {
      throw new Error('boom')
    }
    for (const onExceed of [throws, () => ({ mode: 'explode', message: '' }) as never]) {
      const broken = await runPolicyScript(toolBudgets, { behavior: { toolBudgets: { probe: { max: 0, onExceed } } }, steps: [{ phase: 'gateBatch', calls: [{ name: 'probe' }] }] })
      expect(broken.steps[0]).toMatchObject({ decisions: [undefined], events: [{ context: { mode: 'steer', message: expect.stringContaining('its budget is 0') } }] })
    }
  })
})

describe('tool-budgets through createAgent and the Anthropic wire', () => {
  it('five parallel calls against max 3 with block: three ran, two were refused on the wire, the hook saw both', async () => {
    const probe = probeTool()
    const exceeded: ToolBudgetExceededContext[] = []
    const { bodies } = await runOnFakeAnthropic({
      turns: [{ toolCalls: Array.from({ length: 5 }, (_, i) => ({ id: `toolu_${i}`, name: 'probe', input: { n: i + 1 } })) }],
      tools: { probe: probe.def },
      behavior: { toolBudgets: { probe: { max: 3, onExceed: 'block' } } },
      hooks: { 'tool-budget:exceeded': ctx => void exceeded.push(ctx) },
    })
    expect(probe.runs()).toBe(3)
    const results = (bodies[1].messages.at(-1).content as any[]).filter(block => block.type === 'tool_result')
    expect(results.map(block => block.is_error === true)).toEqual([false, false, false, true, true])
    expect(textsOf(bodies[1]).filter(text => text.startsWith('Blocked: probe has used its budget of 3 calls'))).toHaveLength(2)
    expect(exceeded.map(ctx => ({ callId: ctx.callId, mode: ctx.mode, count: ctx.count, max: ctx.max, tool: ctx.tool }))).toEqual([
      { callId: 'toolu_3', mode: 'block', count: 3, max: 3, tool: 'probe' },
      { callId: 'toolu_4', mode: 'block', count: 3, max: 3, tool: 'probe' },
    ])
    expect(exceeded[0]).toMatchObject({ runId: expect.any(String), depth: 0, input: { n: 4 }, message: expect.stringContaining('budget') })
  })

  it('a call a host tool:gate refused does not use up the budget: the next call still runs', async () => {
    const probe = probeTool()
    const exceeded: ToolBudgetExceededContext[] = []
    const { bodies } = await runOnFakeAnthropic({
      turns: [1, 2, 3].map(n => ({ toolCalls: [{ id: `toolu_${n}`, name: 'probe', input: { n } }] })),
      tools: { probe: probe.def },
      behavior: { toolBudgets: { probe: { max: 2, onExceed: 'block' } } },
      hooks: {
        'tool:gate': (ctx) => {
          if (ctx.callId === 'toolu_1') {
            ctx.block = true
            ctx.reason = 'the host says not yet'
          }
        },
        'tool-budget:exceeded': ctx => void exceeded.push(ctx),
      },
    })
    expect(textsOf(bodies[1])).toContain('Blocked: the host says not yet')
    expect(probe.runs()).toBe(2)
    expect(exceeded).toEqual([])
    expect(textsOf(bodies[3]).some(text => text.includes('used its budget'))).toBe(false)
  })

  it('steer: the call past the budget ran, and the nudge reached the next request as injected text', async () => {
    const probe = probeTool()
    const exceeded: ToolBudgetExceededContext[] = []
    const { bodies } = await runOnFakeAnthropic({
      turns: [1, 2].map(i => ({ toolCalls: [{ id: `toolu_${i}`, name: 'probe', input: {} }] })),
      tools: { probe: probe.def },
      behavior: { toolBudgets: { probe: { max: 1 } } },
      hooks: { 'tool-budget:exceeded': ctx => void exceeded.push(ctx) },
    })
    expect(probe.runs()).toBe(2)
    expect(exceeded).toMatchObject([{ mode: 'steer', count: 1 }])
    expect(textsOf(bodies[1]).some(text => text.includes('Stop calling probe'))).toBe(false)
    expect(textsOf(bodies[2]).filter(text => text.includes('called probe 2 times'))).toHaveLength(1)
  })
})
