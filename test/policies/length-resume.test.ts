import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { AgentLengthResumeExhaustedError } from '../../src/errors'
import { lengthResume } from '../../src/policies/length-resume'
import { runPolicyScript } from '../../src/testing'

const cut = (text: string): AfterTurnStep => ({ phase: 'afterTurn', text, finishReason: 'length' })
const answer: AfterTurnStep = { phase: 'afterTurn', text: 'done' }

describe('length-resume', () => {
  it('is off unless resumeOnMaxTokens is set, and with a cap of 0', async () => {
    expect((await runPolicyScript(lengthResume, { steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(lengthResume, { behavior: { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 0 }, steps: [] })).enabled).toBe(false)
  })

  it('continues cut-off turns up to the cap, then stops with length-exhausted', async () => {
    const { steps } = await runPolicyScript(lengthResume, { behavior: { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 2 }, steps: [cut('a'), cut('b'), cut('c')] })
    expect(steps.map(step => step.phase === 'afterTurn' && [step.keepGoing, step.end])).toEqual([[true, undefined], [true, undefined], [false, 'length-exhausted']])
    expect(steps[0]).toMatchObject({ messages: [{ injected: 'continue-length', content: [{ type: 'text', text: 'Please continue.', origin: 'injected' }] }] })
    expect(steps.map(step => step.state)).toEqual([{ resumes: 1, emptyTurns: 0 }, { resumes: 2, emptyTurns: 0 }, { resumes: 2, emptyTurns: 0 }])
  })

  it('a turn that is not cut off, or that called tools, resets the chain', async () => {
    const toolTurn: AfterTurnStep = { ...cut('t'), toolResults: [{ callId: 'c', output: 'ok', isError: false }] }
    const { steps } = await runPolicyScript(lengthResume, { behavior: { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 1 }, steps: [cut('a'), answer, cut('b'), toolTurn, cut('c')] })
    expect(steps.map(step => step.phase === 'afterTurn' && step.keepGoing)).toEqual([true, false, true, false, true])
    expect(steps.map(step => step.state)).toEqual([
      { resumes: 1, emptyTurns: 0 },
      { resumes: 0, emptyTurns: 0 },
      { resumes: 1, emptyTurns: 0 },
      { resumes: 0, emptyTurns: 0 },
      { resumes: 1, emptyTurns: 0 },
    ])
  })

  it('cut-off turns without visible text neither count nor break the chain, and two in a row fail the run', async () => {
    const { steps } = await runPolicyScript(lengthResume, { behavior: { resumeOnMaxTokens: true }, steps: [cut('a'), cut('  '), cut('b'), cut(''), cut('\n')] })
    expect(steps.map(step => step.state)).toEqual([
      { resumes: 1, emptyTurns: 0 },
      { resumes: 1, emptyTurns: 1 },
      { resumes: 2, emptyTurns: 0 },
      { resumes: 2, emptyTurns: 1 },
      { resumes: 2, emptyTurns: 2 },
    ])
    const last = steps[4]
    expect(last.phase === 'afterTurn' && last.error).toBeInstanceOf(AgentLengthResumeExhaustedError)
  })

  it('continues from a state restored from JSON exactly as it would have without the break', async () => {
    const behavior = { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 3 }
    const all = [cut('a'), cut('b'), cut('c'), cut('d')]
    const straight = await runPolicyScript(lengthResume, { behavior, steps: all })
    const first = await runPolicyScript(lengthResume, { behavior, steps: all.slice(0, 2) })
    const saved = JSON.parse(JSON.stringify(first.state))
    const resumed = await runPolicyScript(lengthResume, { behavior, state: saved, turnsBefore: 2, steps: all.slice(2) })
    expect([...first.steps, ...resumed.steps]).toEqual(straight.steps)
    expect(resumed.steps.at(-1)).toMatchObject({ turn: 4, end: 'length-exhausted' })
  })
})
