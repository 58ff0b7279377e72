import type { AfterTurnStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { maxTurnsWarning } from '../../src/policies/max-turns-warning'
import { runPolicyScript } from '../../src/testing'

const turn: AfterTurnStep = { phase: 'afterTurn', toolResults: [{ callId: 'c', output: 'ok', isError: false }] }

describe('max-turns-warning', () => {
  it('is off without maxTurns, with a warning at or beyond maxTurns, and with a non-positive one', async () => {
    for (const behavior of [{ maxTurnsWarning: 2 }, { maxTurns: 3, maxTurnsWarning: 3 }, { maxTurns: 3, maxTurnsWarning: 0 }, { maxTurns: Number.POSITIVE_INFINITY, maxTurnsWarning: 1 }])
      expect((await runPolicyScript(maxTurnsWarning, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('nudges once, after the turn that leaves exactly that many turns, without keeping the run going', async () => {
    const { steps } = await runPolicyScript(maxTurnsWarning, { behavior: { maxTurns: 5, maxTurnsWarning: 2 }, steps: [turn, turn, turn, turn] })
    expect(steps.map(step => step.phase === 'afterTurn' && step.messages.length)).toEqual([0, 0, 1, 0])
    expect(steps[2]).toMatchObject({ turn: 3, keepGoing: false, messages: [{ injected: 'max-turns-warning' }] })
    const text = steps[2].phase === 'afterTurn' ? steps[2].messages[0].content[0] : undefined
    expect(text).toMatchObject({ type: 'text', origin: 'injected', text: expect.stringContaining('You have 2 turns left') })
    expect(steps.map(step => step.state)).toEqual([{ warned: false }, { warned: false }, { warned: true }, { warned: true }])
  })

  it('takes a message or a message function', async () => {
    const fixed = await runPolicyScript(maxTurnsWarning, { behavior: { maxTurns: 2, maxTurnsWarning: 1, maxTurnsWarningMessage: 'WRAP UP' }, steps: [turn] })
    expect(fixed.steps[0]).toMatchObject({ messages: [{ content: [{ text: 'WRAP UP' }] }] })
    const made = await runPolicyScript(maxTurnsWarning, {
      behavior: { maxTurns: 4, maxTurnsWarning: 3, maxTurnsWarningMessage: ({ maxTurns, remaining }) => `only ${remaining} of ${maxTurns} left` },
      steps: [turn],
    })
    expect(made.steps[0]).toMatchObject({ messages: [{ content: [{ text: 'only 3 of 4 left' }] }] })
  })

  it('a restored state that already warned does not warn again', async () => {
    const { steps } = await runPolicyScript(maxTurnsWarning, { behavior: { maxTurns: 5, maxTurnsWarning: 2 }, state: { warned: true }, turnsBefore: 2, steps: [turn] })
    expect(steps[0]).toMatchObject({ turn: 3, messages: [] })
  })
})
