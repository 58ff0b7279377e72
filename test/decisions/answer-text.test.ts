/**
 * The words of an answer are the model's (or a server's). Before, a `reason`
 * of 20 MB was kept whole in the outcome, the `decision:end` hook and the
 * run's record, and a lone surrogate in it was kept as sent. A choice option
 * holding a lone surrogate could never be answered: requests carry text
 * well-formed, so the model saw U+FFFD and sent that back, which matched no
 * option.
 */

import type { DecisionAnswer, DecisionEndHookContext, DecisionQuestions } from '../../src'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { MAX_ANSWER_REASON_CHARS } from '../../src/decisions/questions'
import { replying } from './echo-provider'

const QUESTIONS = {
  pick: { kind: 'choice', question: 'Which?', options: ['left', 'right'] },
  safe: { kind: 'predicate', question: 'Is it safe?' },
} as const satisfies DecisionQuestions

function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed: () => boolean }).isWellFormed()
}

async function answersFor(pickReason: string, safeReason: string) {
  const agent = createAgent({ provider: replying(() => ({ type: 'answers', value: { pick: { value: 'left', refused: false, reason: pickReason }, safe: { value: true, refused: true, reason: safeReason } } })) })
  const ends: DecisionEndHookContext[] = []
  agent.hooks.hook('decision:end', (ctx) => {
    ends.push(ctx)
  })
  const outcome = await agent.decide({ input: 'evidence', questions: QUESTIONS })
  if (!outcome.ok)
    throw new Error(outcome.message)
  return { answers: outcome.answers, hooked: ends[0].answers! }
}

describe('an answer\'s reason', () => {
  it('of 20 MB is cut to MAX_ANSWER_REASON_CHARS with …, in the outcome and the hook; a short one is kept', async () => {
    const { answers, hooked } = await answersFor('r'.repeat(20_000_000), 'short and plain')
    expect(answers.pick.reason).toHaveLength(MAX_ANSWER_REASON_CHARS)
    expect(answers.pick.reason.endsWith('r…')).toBe(true)
    expect(answers.safe).toEqual({ kind: 'refusal', reason: 'short and plain' })
    expect(hooked).toEqual(answers)
  })

  it('with lone surrogates has U+FFFD in their place; pairs are kept and never split by the cut', async () => {
    const { answers } = await answersFor('half \uD83D of an emoji', `${'x'.repeat(MAX_ANSWER_REASON_CHARS - 2)}\uD83D\uDE00tail`)
    expect(answers.pick.reason).toBe('half \uFFFD of an emoji')
    expect(answers.safe.reason).toBe(`${'x'.repeat(MAX_ANSWER_REASON_CHARS - 2)}…`)
  })

  it('whatever its UTF-16 units, comes back well-formed and at most MAX_ANSWER_REASON_CHARS long', async () => {
    const units = fc.array(fc.integer({ min: 0, max: 0xFFFF }), { maxLength: MAX_ANSWER_REASON_CHARS + 50 }).map(codes => String.fromCharCode(...codes))
    await fc.assert(fc.asyncProperty(units, units, async (a, b) => {
      const { answers } = await answersFor(a, b)
      for (const answer of Object.values(answers) as DecisionAnswer[]) {
        expect(isWellFormed(answer.reason)).toBe(true)
        expect(answer.reason.length).toBeLessThanOrEqual(MAX_ANSWER_REASON_CHARS)
      }
      if (isWellFormed(a) && a.length <= MAX_ANSWER_REASON_CHARS)
        expect(answers.pick.reason).toBe(a)
    }), { numRuns: 100 })
  })
})

describe('a choice option with a lone surrogate', () => {
  it('makes the request invalid before anything is sent, naming the question', async () => {
    let sent = 0
    const agent = createAgent({ provider: replying(() => {
      sent++
      return { type: 'answers', value: { which: { value: 'a\uFFFD', refused: false, reason: '' } } }
    }) })
    const outcome = await agent.decide({ input: 'evidence', questions: { which: { kind: 'choice', question: 'Which?', options: ['a\uD800', 'b'] } } })
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid', message: expect.stringMatching(/question "which" has an option with a lone surrogate/) })
    expect(sent).toBe(0)
  })
})

describe('a refusal of the whole request, and hooks that never settle', () => {
  it('a refusal of megabytes is cut once and shared by every question\'s answer', async () => {
    const agent = createAgent({ provider: replying(() => ({ type: 'refusal', message: 'n'.repeat(10_000_000) })) })
    const outcome = await agent.decide({ input: 'evidence', questions: QUESTIONS })
    if (!outcome.ok)
      throw new Error(outcome.message)
    expect(outcome.answers.pick).toEqual({ kind: 'refusal', reason: `${'n'.repeat(MAX_ANSWER_REASON_CHARS - 1)}…` })
    expect(outcome.answers.safe).toEqual(outcome.answers.pick)
  })

  it.each(['decision:start', 'decision:end'] as const)('a %s hook that never settles holds the decision no longer than its timeout or its signal', async (name) => {
    // The hooks' own bound is five minutes: past the test's timeout, were it the only one.
    const agent = createAgent({ provider: replying(() => ({ type: 'answers', value: { pick: { value: 'left', refused: false, reason: 'r' }, safe: { value: true, refused: false, reason: 'r' } } })) })
    agent.hooks.hook(name, () => new Promise<void>(() => {}))
    const timed = await agent.decide({ input: 'evidence', questions: QUESTIONS, timeoutMs: 100 })
    expect(timed.ok ? 'answered' : timed.reason).toBe(name === 'decision:start' ? 'timeout' : 'answered')
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 100)
    const cancelled = await agent.decide({ input: 'evidence', questions: QUESTIONS, signal: stop.signal, timeoutMs: 600_000 })
    expect(cancelled.ok ? 'answered' : cancelled.reason).toBe(name === 'decision:start' ? 'aborted' : 'answered')
  })
})
