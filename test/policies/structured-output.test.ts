import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { LAST_TURN_NOTE, structuredOutput } from '../../src/policies/structured-output'
import { runPolicyScript } from '../../src/testing'

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }

/** A turn that called the final-answer tool with `input`, answered as the loop would (an error for invalid input). */
function answered(input: Record<string, unknown>, isError = false): AfterTurnStep {
  return {
    phase: 'afterTurn',
    finishReason: 'tool-calls',
    content: [{ type: 'tool_call', id: 'c1', name: 'final_answer', input }],
    toolResults: [{ callId: 'c1', output: isError ? 'Invalid arguments' : 'Output received.', ...(isError ? { isError: true } : {}) }],
  }
}

describe('structured-output policy', () => {
  it('is off without a schema and brings no tool', async () => {
    expect((await runPolicyScript(structuredOutput, { steps: [] })).enabled).toBe(false)
    const plan = { tools: {}, replaced: false, deferred: new Set<string>(), load: () => {} }
    expect(structuredOutput.tools!({}, plan)).toBeUndefined()
    expect(Object.keys(structuredOutput.tools!({ schema }, plan)!)).toEqual(['final_answer'])
  })

  it('stops with the value and its JSON text when the final-answer call passed', async () => {
    const { steps } = await runPolicyScript(structuredOutput, { behavior: { schema }, steps: [answered({ n: 3 })] })
    expect(steps[0]).toMatchObject({ phase: 'afterTurn', end: 'completed', result: { output: { n: 3 }, text: '{"n":3}' } })
  })

  it('counts invalid answers, continues a text answer with the problems, then stops with output-invalid', async () => {
    const { steps } = await runPolicyScript(structuredOutput, {
      behavior: { schema, maxOutputRepairs: 2 },
      steps: [{ phase: 'afterTurn', text: '{"n": "x"}' }, answered({ n: 1.5 }, true), { phase: 'afterTurn', text: 'no idea' }],
    })
    expect(steps[0]).toMatchObject({ keepGoing: true, messages: [{ injected: 'output-repair', content: [{ text: expect.stringContaining('n: expected integer, got string') }] }] })
    expect(steps[1]).toMatchObject({ keepGoing: false, messages: [] })
    expect(steps[1]).not.toHaveProperty('end')
    expect(steps[2]).toMatchObject({
      end: 'output-invalid',
      result: { text: 'no idea', outputError: { attempts: 3, problems: ['(output): the answer was text, not a call to final_answer'] } },
    })
    expect(steps.map(step => step.state)).toEqual([{ invalid: 1 }, { invalid: 2 }, { invalid: 3 }])
  })

  it('defers to an earlier stop and to another policy\'s continuation', async () => {
    const { steps } = await runPolicyScript(structuredOutput, {
      behavior: { schema },
      steps: [{ phase: 'afterTurn', text: 'cut', decided: { continues: true } }, { phase: 'afterTurn', text: 'x', decided: { stop: 'aborted' } }],
    })
    expect(steps.map(step => step.state)).toEqual([{ invalid: 0 }, { invalid: 0 }])
    expect(steps[0]).toMatchObject({ keepGoing: true, messages: [] })
  })

  it('leaves only the final-answer tool on the last turn maxTurns allows', async () => {
    const tools = [{ name: 'lookup', description: 'd', inputSchema: {} }, { name: 'final_answer', description: 'd', inputSchema: schema }]
    const { steps } = await runPolicyScript(structuredOutput, {
      behavior: { schema, maxTurns: 2 },
      steps: [
        { phase: 'request', request: { model: 'm', system: 'Be brief.', tools } },
        { phase: 'afterTurn', text: '', toolResults: [{ callId: 'x', output: 'ok' }], content: [{ type: 'tool_call', id: 'x', name: 'lookup', input: {} }] },
        { phase: 'request', request: { model: 'm', system: 'Be brief.', tools } },
      ],
    })
    expect(steps[0]).toMatchObject({ request: { tools, system: 'Be brief.' } })
    expect(steps[2]).toMatchObject({ request: { tools: [tools[1]], system: `Be brief.\n\n${LAST_TURN_NOTE}` } })
  })
})
