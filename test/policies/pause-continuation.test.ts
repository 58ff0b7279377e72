import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { pauseContinuation } from '../../src/policies/pause-continuation'
import { runPolicyScript } from '../../src/testing'

const emptyPause: AfterTurnStep = { phase: 'afterTurn', finishReason: 'pause' }
const textPause: AfterTurnStep = { phase: 'afterTurn', text: 'half', finishReason: 'pause' }
const thinkingPause: AfterTurnStep = { phase: 'afterTurn', content: [{ type: 'thinking', text: 'hm' }], finishReason: 'pause' }

describe('pause-continuation', () => {
  it('continues every pause with "Please continue." when uncapped (the default)', async () => {
    const { enabled, steps } = await runPolicyScript(pauseContinuation, { steps: [emptyPause, emptyPause, emptyPause, emptyPause] })
    expect(enabled).toBe(true)
    expect(steps.every(step => step.phase === 'afterTurn' && step.keepGoing)).toBe(true)
    expect(steps[0]).toMatchObject({ messages: [{ injected: 'continue-pause', content: [{ text: 'Please continue.', origin: 'injected' }] }] })
  })

  it('stops with pause-exhausted after the cap of empty pauses; a productive pause resets the count', async () => {
    const { steps } = await runPolicyScript(pauseContinuation, { behavior: { maxConsecutivePauseTurns: 2 }, steps: [emptyPause, textPause, emptyPause, thinkingPause, emptyPause, emptyPause] })
    expect(steps.map(step => step.phase === 'afterTurn' && (step.end ?? step.keepGoing))).toEqual([true, true, true, true, true, 'pause-exhausted'])
    expect(steps.map(step => step.state)).toEqual([1, 0, 1, 0, 1, 2].map(emptyPauses => ({ emptyPauses })))
  })

  it('leaves turns that are not pauses, or that called tools, alone and resets the count', async () => {
    const toolPause: AfterTurnStep = { ...emptyPause, toolResults: [{ callId: 'c', output: 'ok', isError: false }] }
    const { steps } = await runPolicyScript(pauseContinuation, { behavior: { maxConsecutivePauseTurns: 3 }, steps: [emptyPause, toolPause, emptyPause, { phase: 'afterTurn', text: 'done' }] })
    expect(steps.map(step => step.phase === 'afterTurn' && step.keepGoing)).toEqual([true, false, true, false])
    expect(steps.map(step => step.state)).toEqual([1, 0, 1, 0].map(emptyPauses => ({ emptyPauses })))
  })
})
