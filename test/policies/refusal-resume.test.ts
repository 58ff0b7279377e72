import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { refusalResume } from '../../src/policies/refusal-resume'
import { runPolicyScript } from '../../src/testing'

const refusal: AfterTurnStep = { phase: 'afterTurn', finishReason: 'content-filter' }

describe('refusal-resume', () => {
  it('is on by default and off with a cap of 0', async () => {
    expect((await runPolicyScript(refusalResume, { steps: [] })).enabled).toBe(true)
    expect((await runPolicyScript(refusalResume, { behavior: { maxConsecutiveRefusalResumes: 0 }, steps: [] })).enabled).toBe(false)
  })

  it('retries up to three refusals in a row by default, then stops with refusal-exhausted', async () => {
    const { steps } = await runPolicyScript(refusalResume, { steps: [refusal, refusal, refusal, refusal] })
    expect(steps.map(step => step.phase === 'afterTurn' && (step.end ?? step.keepGoing))).toEqual([true, true, true, 'refusal-exhausted'])
    expect(steps[0]).toMatchObject({ messages: [{ injected: 'continue-refusal', content: [{ text: 'Please continue with the task.' }] }] })
  })

  it('an answered turn resets the count', async () => {
    const { steps } = await runPolicyScript(refusalResume, { behavior: { maxConsecutiveRefusalResumes: 1 }, steps: [refusal, { phase: 'afterTurn', text: 'ok' }, refusal, refusal] })
    expect(steps.map(step => step.phase === 'afterTurn' && (step.end ?? step.keepGoing))).toEqual([true, false, true, 'refusal-exhausted'])
    expect(steps.map(step => step.state)).toEqual([1, 0, 1, 1].map(resumes => ({ resumes })))
  })
})
