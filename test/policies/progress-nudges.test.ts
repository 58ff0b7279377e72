import type { ToolOutcome } from '../../src'
import type { PolicyScriptStep, ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { progressNudges } from '../../src/policies/progress-nudges'
import { runPolicyScript, scriptedProvider } from '../../src/testing'
import { injectedTexts } from '../support/helpers'

const callBlock = (name: string, i: number) => ({ type: 'tool_call' as const, id: `c${i}`, name, input: {} })
/** One turn: its calls' results, then the turn's end listing the calls. */
function turn(calls: { name: string, result?: string, isError?: boolean, outcome?: ToolOutcome }[]): PolicyScriptStep[] {
  return [
    ...calls.map(call => ({ phase: 'result' as const, call: { name: call.name }, result: call.result ?? 'ok', isError: call.isError, outcome: call.outcome })),
    { phase: 'afterTurn', content: calls.map((call, i) => callBlock(call.name, i)), toolResults: calls.map((_, i) => ({ callId: `c${i}`, output: 'ok' })), finishReason: 'tool-calls' },
  ]
}
const repeat = (times: number, steps: PolicyScriptStep[]): PolicyScriptStep[] => Array.from<PolicyScriptStep[]>({ length: times }).fill(steps).flat()
/** The nudge texts of each turn. */
async function nudgesPerTurn(config: Record<string, unknown>, steps: PolicyScriptStep[]) {
  const { steps: played } = await runPolicyScript(progressNudges, { behavior: { progressNudges: config }, steps })
  return played.filter(step => step.phase === 'afterTurn').map(step => step.phase === 'afterTurn' ? step.messages.map(m => m.content.map(b => (b as { text: string }).text).join('')) : [])
}

describe('progress-nudges', () => {
  it('is off unless at least one pattern has a threshold: `{}` alone watches nothing', async () => {
    for (const behavior of [{}, { progressNudges: false as const }, { progressNudges: {} }, { progressNudges: { maxNudges: 5, readOnlyTurns: false as const, messages: { toolErrors: 'x' } } }])
      expect((await runPolicyScript(progressNudges, { behavior, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(progressNudges, { behavior: { progressNudges: { toolErrors: 4 } }, steps: [] })).enabled).toBe(true)
  })

  it('readOnlyTurns: a streak of read-only turns, reset by any other call; the streak starts over after a nudge', async () => {
    const read = turn([{ name: 'read_file' }, { name: 'grep' }])
    const perTurn = await nudgesPerTurn({ readOnlyTurns: 2 }, [...read, ...turn([{ name: 'edit' }]), ...read, ...read, ...read, ...read])
    expect(perTurn.map(texts => texts.length)).toEqual([0, 0, 0, 1, 0, 1])
    expect(perTurn[3][0]).toBe('The last 2 turns only read and searched. If you know enough, make the change now; if not, say what is still missing.')
  })

  it('failedMutations and noopMutations count mutation calls; a real change resets both', async () => {
    const failed = turn([{ name: 'edit', result: 'Error: old_string not found', isError: true }])
    const noop = turn([{ name: 'write_file', result: 'No change needed', outcome: 'noop' }])
    const changed = turn([{ name: 'multi_edit', result: 'Edited a.ts', outcome: 'edited' }])
    expect((await nudgesPerTurn({ failedMutations: 2, toolErrors: false }, [...failed, ...changed, ...failed, ...failed])).map(t => t.length)).toEqual([0, 0, 0, 1])
    expect((await nudgesPerTurn({ noopMutations: 2 }, [...noop, ...changed, ...noop, ...noop])).map(t => t.length)).toEqual([0, 0, 0, 1])
    const failedOutcome = turn([{ name: 'write_file', result: 'Refused', outcome: 'failed' }])
    expect((await nudgesPerTurn({ failedMutations: 1 }, failedOutcome))[0][0]).toMatch(/^The last 1 edits failed\./)
  })

  it('validationRejects and toolErrors count results in a row; a success resets them', async () => {
    const rejected = turn([{ name: 'grep', result: 'Invalid arguments for grep: pattern: required', isError: true }])
    const ok = turn([{ name: 'grep' }])
    expect((await nudgesPerTurn({ validationRejects: 2, toolErrors: false }, [...rejected, ...ok, ...rejected, ...rejected])).map(t => t.length)).toEqual([0, 0, 0, 1])
    const failing = turn([{ name: 'shell', result: 'Error: boom', isError: true }])
    const errors = await nudgesPerTurn({ toolErrors: 3 }, [...failing, ...failing, ...failing])
    expect(errors[2]).toEqual(['The last 3 tool calls failed. Read the errors and change the approach instead of repeating it.'])
  })

  it('singleCallTurns: off by default, on with a number', async () => {
    const one = turn([{ name: 'shell' }])
    expect((await nudgesPerTurn({ toolErrors: 9 }, repeat(4, one))).flat()).toEqual([])
    expect((await nudgesPerTurn({ singleCallTurns: 2 }, repeat(2, one)))[1]).toEqual(['The last 2 turns made one tool call each. Make calls that do not depend on each other together, in one turn.'])
  })

  it('sends at most one nudge per turn and maxNudges per run; `false` turns a pattern off', async () => {
    const failing = turn([{ name: 'edit', result: 'Error: no', isError: true }])
    const perTurn = await nudgesPerTurn({ toolErrors: 1, failedMutations: 1, maxNudges: 2 }, repeat(4, failing))
    expect(perTurn.map(texts => texts.length)).toEqual([1, 1, 0, 0])
    expect(perTurn[0][0]).toMatch(/edits failed/)
    expect((await nudgesPerTurn({ toolErrors: false, failedMutations: false }, repeat(5, failing))).flat()).toEqual([])
  })

  it('takes texts by kind, a string or a function of the kind and the count, and a custom read-only list', async () => {
    const perTurn = await nudgesPerTurn(
      { readOnlyTurns: 2, readOnlyTools: ['lookup'], messages: { readOnlyTurns: ({ kind, count }: { kind: string, count: number }) => `${kind}:${count}` } },
      [...turn([{ name: 'lookup' }]), ...turn([{ name: 'lookup' }]), ...turn([{ name: 'read_file' }]), ...turn([{ name: 'read_file' }])],
    )
    expect(perTurn).toEqual([[], ['readOnlyTurns:2'], [], []])
    expect((await nudgesPerTurn({ toolErrors: 1, messages: { toolErrors: 'STOP RETRYING' } }, turn([{ name: 'x', isError: true }])))[0]).toEqual(['STOP RETRYING'])
  })

  it('sends nothing after a turn without calls (the model answered) or one another policy ends', async () => {
    const { steps } = await runPolicyScript(progressNudges, {
      behavior: { progressNudges: { toolErrors: 1 } },
      steps: [
        { phase: 'result', call: { name: 'x' }, result: 'Error', isError: true },
        { phase: 'afterTurn', text: 'I give up.' },
        { phase: 'result', call: { name: 'x' }, result: 'Error', isError: true },
        { phase: 'afterTurn', content: [callBlock('x', 0)], decided: { stop: 'max-turns' } },
      ],
    })
    expect(steps.filter(step => step.phase === 'afterTurn').map(step => step.phase === 'afterTurn' && step.messages.length)).toEqual([0, 0])
  })
})

describe('progressNudges through an agent: every pattern is off until given a threshold', () => {
  /** Six read-only turns, then four failing calls: each streak reaches what used to be its default threshold. */
  async function nudgeKinds(progress: Record<string, unknown>): Promise<string[]> {
    const reads: ScriptedTurn[] = Array.from({ length: 6 }, (_, i) => ({ toolCalls: [{ name: 'read_file', input: { i } }] }))
    const failures: ScriptedTurn[] = Array.from({ length: 4 }, (_, i) => ({ toolCalls: [{ name: 'boom', input: { i } }] }))
    const provider = scriptedProvider([...reads, ...failures, { text: 'done' }])
    const readFile = tool({ name: 'read_file', description: 'Read', input: z.object({ i: z.number() }), execute: () => 'text' })
    const boom = tool({ name: 'boom', description: 'Fails', input: z.object({ i: z.number() }), execute: () => {
      throw new Error('broken')
    } })
    const agent = createAgent({ provider, tools: { read_file: readFile, boom }, behavior: { progressNudges: progress } })
    await agent.run({ prompt: 'go' })
    return injectedTexts(provider.requests.at(-1)!.messages)
  }

  it('`{}` sends no nudge, although every pattern would have fired at its usual threshold', async () => {
    expect(await nudgeKinds({})).toEqual([])
    expect(await nudgeKinds({ maxNudges: 3 })).toEqual([])
  })

  it('one pattern set: only that pattern nudges', async () => {
    const errorsOnly = await nudgeKinds({ toolErrors: 2 })
    expect(errorsOnly.length).toBeGreaterThan(0)
    expect(errorsOnly.every(text => text.includes('tool calls failed'))).toBe(true)
    const readsOnly = await nudgeKinds({ readOnlyTurns: 2 })
    expect(readsOnly.length).toBeGreaterThan(0)
    expect(readsOnly.every(text => text.includes('only read and searched'))).toBe(true)
  })
})
