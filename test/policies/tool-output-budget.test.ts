import type { OutputBudgetExceededContext, ToolOutput } from '../../src'
import type { SessionContentBlock } from '../../src/core/content'
import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUDGET_EXCLUDE_TOOLS, toolOutputBudgetByteLength } from '../../src'
import { toolOutputBudget } from '../../src/policies/tool-output-budget'
import { DEFAULT_BUDGET_EXCLUDE_TOOLS as FROM_PRESETS } from '../../src/presets'
import { runPolicyScript } from '../../src/testing'
import { probeTool, runOnFakeAnthropic, textsOf } from './budget-support'

function turnOf(results: { name: string, output: ToolOutput }[]): AfterTurnStep {
  const content: SessionContentBlock[] = results.map((result, i) => ({ type: 'tool_call', id: `c${i}`, name: result.name, input: {} }))
  return { phase: 'afterTurn', content, finishReason: 'tool-calls', toolResults: results.map((result, i) => ({ callId: `c${i}`, output: result.output })) }
}

describe('tool-output-budget (policy harness)', () => {
  it('is off unset, at 0 and below', async () => {
    for (const behavior of [{}, { toolOutputBudget: 0 }, { toolOutputBudget: -5 }])
      expect((await runPolicyScript(toolOutputBudget, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('a turn over the budget gets one summarize nudge and budget:exceeded; a turn at it gets nothing', async () => {
    const over = turnOf([{ name: 'a', output: 'x'.repeat(60) }, { name: 'b', output: 'é'.repeat(30) }])
    const at = turnOf([{ name: 'a', output: 'x'.repeat(100) }])
    const { steps } = await runPolicyScript(toolOutputBudget, { behavior: { toolOutputBudget: 100 }, steps: [over, at] })
    expect(steps[0]).toMatchObject({ keepGoing: false, messages: [{ injected: 'tool-output-budget', content: [{ origin: 'injected', text: expect.stringContaining('came to 120 bytes') }] }] })
    expect(steps[0].events).toEqual([{ hook: 'budget:exceeded', context: {
      runId: 'policy-script',
      depth: 0,
      parentRunId: undefined,
      parentCallId: undefined,
      turnId: 'turn-1',
      turn: 1,
      budget: 100,
      totalBytes: 120,
      outputs: [{ callId: 'c0', tool: 'a', bytes: 60 }, { callId: 'c1', tool: 'b', bytes: 60 }],
      message: expect.stringContaining('summarize'),
    }, turn: 1 }])
    expect(steps[1]).toMatchObject({ messages: [], events: [] })
  })

  it('excluded tools do not count, and attachments count as their text markers', async () => {
    const image = [{ type: 'image' as const, data: 'A'.repeat(10_000), mediaType: 'image/png' }]
    const { steps } = await runPolicyScript(toolOutputBudget, {
      behavior: { toolOutputBudget: 200, toolOutputBudgetExcludeTools: DEFAULT_BUDGET_EXCLUDE_TOOLS },
      steps: [turnOf([{ name: 'tool_search', output: 'x'.repeat(5000) }, { name: 'shot', output: image }])],
    })
    expect(toolOutputBudgetByteLength(image)).toBeLessThan(200)
    expect(steps[0]).toMatchObject({ messages: [] })
    expect(DEFAULT_BUDGET_EXCLUDE_TOOLS).toEqual(['tool_search', 'skills_use', 'skills_read'])
    expect(FROM_PRESETS).toBe(DEFAULT_BUDGET_EXCLUDE_TOOLS)
  })
})

describe('tool-output-budget through createAgent and the Anthropic wire', () => {
  it('the summarize nudge reaches the next request, counted after tool:transform, and the hook fires with its fields', async () => {
    const probe = probeTool()
    const fired: OutputBudgetExceededContext[] = []
    const { bodies } = await runOnFakeAnthropic({
      turns: [{ toolCalls: [{ id: 'toolu_a', name: 'probe', input: { n: 500 } }] }, { toolCalls: [{ id: 'toolu_b', name: 'probe', input: { n: 5000 } }] }],
      tools: { probe: probe.def },
      behavior: { toolOutputBudget: 1000 },
      hooks: {
        // The host truncates the first result: measured after the transform, it stays under the budget.
        'tool:transform': (ctx) => {
          if (ctx.callId === 'toolu_a')
            ctx.result = 'short'
        },
        'budget:exceeded': ctx => void fired.push(ctx),
      },
    })
    expect(textsOf(bodies[1]).some(text => text.includes('bytes per turn'))).toBe(false)
    expect(textsOf(bodies[2]).filter(text => text.includes('came to 5000 bytes, over this run\'s budget of 1000 bytes per turn'))).toHaveLength(1)
    expect(fired).toHaveLength(1)
    expect(fired[0]).toMatchObject({ runId: expect.any(String), budget: 1000, totalBytes: 5000, outputs: [{ callId: 'toolu_b', tool: 'probe', bytes: 5000 }] })
  })
})
