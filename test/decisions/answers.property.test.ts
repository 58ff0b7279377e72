import type { DecisionQuestion, DecisionQuestions } from '../../src'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { replying } from './echo-provider'

const name = fc.stringMatching(/^\w[\w-]{0,11}$/)
const question: fc.Arbitrary<DecisionQuestion> = fc.oneof(
  fc.constant<DecisionQuestion>({ kind: 'predicate', question: 'Is it so?' }),
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }).map((options): DecisionQuestion => ({ kind: 'choice', question: 'Which?', options })),
  fc.tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: 1, max: 100 })).map(([min, span]): DecisionQuestion => ({ kind: 'score', question: 'How much?', min, max: min + span })),
)
const questions: fc.Arbitrary<DecisionQuestions> = fc.dictionary(name, question, { minKeys: 1, maxKeys: 5 })

/** A value that fits the question. */
function fitting(q: DecisionQuestion): fc.Arbitrary<unknown> {
  switch (q.kind) {
    case 'predicate': return fc.boolean()
    case 'choice': return fc.constantFrom(...q.options)
    case 'score': return fc.double({ min: q.min, max: q.max, noNaN: true })
  }
}

/** A value close to fitting: a fitting one, one just outside the range or options, or any JSON at all. */
function nearly(q: DecisionQuestion): fc.Arbitrary<unknown> {
  const off = q.kind === 'score'
    ? fc.oneof(fc.double({ min: q.max, max: q.max + 50, minExcluded: true, noNaN: true }), fc.double({ min: q.min - 50, max: q.min, maxExcluded: true, noNaN: true }), fc.constant(String(q.min)))
    : q.kind === 'choice'
      ? fc.string().filter(value => !q.options.includes(value))
      : fc.constantFrom('true', 0, 1, null)
  return fc.oneof(fitting(q), off, fc.jsonValue())
}

/** Model JSON of any shape: near-miss answer objects, loose per-question entries, or anything at all. */
function anyAnswerObject(qs: DecisionQuestions): fc.Arbitrary<unknown> {
  const loose = fc.oneof(
    fc.jsonValue(),
    fc.record({ value: fc.jsonValue(), refused: fc.oneof(fc.boolean(), fc.jsonValue()), reason: fc.oneof(fc.string(), fc.jsonValue()) }, { requiredKeys: [] }),
  )
  const close = fc.record(Object.fromEntries(Object.entries(qs).map(([key, q]) => [key, fc.record({ value: nearly(q), refused: fc.boolean(), reason: fc.string() })])))
  const shaped = fc.record(Object.fromEntries(Object.keys(qs).map(key => [key, loose])), { requiredKeys: [] })
  return fc.oneof({ arbitrary: close, weight: 3 }, { arbitrary: fc.jsonValue(), weight: 1 }, { arbitrary: shaped, weight: 1 }, { arbitrary: close.map(value => JSON.stringify(value)), weight: 1 })
}

describe('answer validation (property)', () => {
  it('never throws on arbitrary model JSON: a success that fits every question, or `invalid`', async () => {
    await fc.assert(fc.asyncProperty(questions.chain(qs => fc.tuple(fc.constant(qs), anyAnswerObject(qs))), async ([qs, raw]) => {
      const agent = createAgent({ provider: replying(() => ({ type: 'answers', value: raw })) })
      const outcome = await agent.decide({ input: 'evidence', questions: qs })
      if (!outcome.ok) {
        expect(outcome.reason).toBe('invalid')
        expect(outcome.message).toMatch(/^Malformed decision answer: /)
        return
      }
      expect(Object.keys(outcome.answers).sort()).toEqual(Object.keys(qs).sort())
      for (const [key, answer] of Object.entries(outcome.answers)) {
        const q = qs[key]
        expect(typeof answer.reason).toBe('string')
        if (answer.kind === 'refusal')
          continue
        expect(answer.kind).toBe(q.kind)
        if (q.kind === 'predicate')
          expect(typeof answer.value).toBe('boolean')
        if (q.kind === 'choice')
          expect(q.options).toContain(answer.value)
        if (q.kind === 'score') {
          expect(answer.value).toBeGreaterThanOrEqual(q.min)
          expect(answer.value).toBeLessThanOrEqual(q.max)
        }
      }
    }), { numRuns: 300 })
  })

  it('accepts every answer object that fits, value for value', async () => {
    const case_ = questions.chain(qs => fc.tuple(
      fc.constant(qs),
      fc.record(Object.fromEntries(Object.entries(qs).map(([key, q]) => [key, fitting(q)]))),
    ))
    await fc.assert(fc.asyncProperty(case_, async ([qs, values]) => {
      const raw = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value, refused: false, reason: 'because' }]))
      const agent = createAgent({ provider: replying(() => ({ type: 'answers', value: raw })) })
      const outcome = await agent.decide({ input: 'evidence', questions: qs })
      expect(outcome.ok).toBe(true)
      if (outcome.ok) {
        for (const [key, value] of Object.entries(values))
          expect(outcome.answers[key]).toEqual({ kind: qs[key].kind, value, reason: 'because' })
      }
    }), { numRuns: 200 })
  })

  it('a malformed reply body is `invalid`, a refusal body refuses every question', async () => {
    await fc.assert(fc.asyncProperty(questions, fc.string(), async (qs, message) => {
      const malformed = await createAgent({ provider: replying(() => ({ type: 'malformed', message })) }).decide({ input: 'e', questions: qs })
      expect(malformed).toMatchObject({ ok: false, reason: 'invalid' })
      const refused = await createAgent({ provider: replying(() => ({ type: 'refusal', message })) }).decide({ input: 'e', questions: qs })
      expect(refused.ok && Object.values(refused.answers).every(answer => answer.kind === 'refusal' && answer.reason === message)).toBe(true)
    }), { numRuns: 50 })
  })
})
