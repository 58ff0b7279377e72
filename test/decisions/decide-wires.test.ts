import type { DecisionQuestions } from '../../src'
import type { FakeApi } from './wires'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent } from '../../src'
import { DECISION_WIRES } from './wires'

const QUESTIONS = {
  destructive: { kind: 'predicate', question: 'Does the command delete files?' },
  area: { kind: 'choice', question: 'Which area does it touch?', options: ['source', 'tests', 'docs'] },
  risk: { kind: 'score', question: 'How risky is it?', min: 0, max: 10 },
} as const satisfies DecisionQuestions

const GOOD = {
  destructive: { value: true, refused: false, reason: 'rm -rf removes the folder.' },
  area: { value: 'tests', refused: false, reason: 'The path is under test/.' },
  risk: { value: 7.5, refused: false, reason: 'Recursive delete.' },
}

const INPUT = 'rm -rf test/fixtures'

describe.each(DECISION_WIRES)('decisions on $name', (wire) => {
  let fake: FakeApi
  beforeEach(async () => {
    fake = await wire.start()
  })
  afterEach(async () => {
    await fake.close()
  })

  const agentOn = (options: { apiKey?: string } = {}) => createAgent({ provider: wire.provider(fake.url, options.apiKey) })

  it('answers every question kind, typed by its question, with usage', async () => {
    fake.answer(GOOD, { input: 140, output: 36 })
    const agent = agentOn()
    const outcome = await agent.decide({ input: INPUT, questions: QUESTIONS })

    expect(outcome.ok).toBe(true)
    if (!outcome.ok)
      return
    expectTypeOf(outcome.answers.area).toMatchTypeOf<{ kind: 'choice', value: 'source' | 'tests' | 'docs' } | { kind: 'refusal' }>()
    expect(outcome.answers).toEqual({
      destructive: { kind: 'predicate', value: true, reason: 'rm -rf removes the folder.' },
      area: { kind: 'choice', value: 'tests', reason: 'The path is under test/.' },
      risk: { kind: 'score', value: 7.5, reason: 'Recursive delete.' },
    })
    expect(outcome.provider).toBe(wire.providerName)
    expect(outcome.usage).toMatchObject({ input: 140, output: 36 })
    if (wire.name === 'openrouter')
      expect(outcome.usage.cost).toBe(0.000_42)

    expect(fake.requests).toHaveLength(1)
    const request = fake.requests[0]
    expect(request.path.split('?')[0]).toBe(wire.path)
    const schema = wire.structured(request.body)
    expect(schema).toMatchObject({ type: 'object', required: ['destructive', 'area', 'risk'], additionalProperties: false })
    expect((schema as any).properties.area.properties.value.enum).toEqual(['source', 'tests', 'docs'])
    // The evidence and the questions are in the one user message.
    expect(JSON.stringify(request.body)).toContain('rm -rf test/fixtures')
  })

  it('sends a JSON object input as pretty JSON evidence', async () => {
    fake.answer({ destructive: GOOD.destructive })
    const outcome = await agentOn().decide({ input: { command: 'rm -rf build', cwd: '/repo' }, questions: { destructive: QUESTIONS.destructive } })
    expect(outcome.ok).toBe(true)
    expect(JSON.stringify(fake.requests[0].body)).toContain('\\"command\\": \\"rm -rf build\\"')
  })

  it('keeps a per-question refusal as a refusal answer', async () => {
    fake.answer({ ...GOOD, risk: { value: 0, refused: true, reason: 'Nothing says what the folder holds.' } })
    const outcome = await agentOn().decide({ input: INPUT, questions: QUESTIONS })
    expect(outcome.ok && outcome.answers.risk).toEqual({ kind: 'refusal', reason: 'Nothing says what the folder holds.' })
  })

  it('turns the API\'s refusal of the whole request into a refusal of every question', async () => {
    fake.refuse()
    const outcome = await agentOn().decide({ input: INPUT, questions: QUESTIONS })
    expect(outcome.ok).toBe(true)
    if (outcome.ok)
      expect(Object.values(outcome.answers).map(answer => answer.kind)).toEqual(['refusal', 'refusal', 'refusal'])
  })

  it.each([
    ['a score outside its range', { ...GOOD, risk: { value: 11, refused: false, reason: 'x' } }, /outside \[0, 10\]/],
    ['an option that does not exist', { ...GOOD, area: { value: 'infra', refused: false, reason: 'x' } }, /not one of the options/],
    ['a predicate that is not a boolean', { ...GOOD, destructive: { value: 'yes', refused: false, reason: 'x' } }, /not true or false/],
    ['a missing question', { destructive: GOOD.destructive, area: GOOD.area }, /"risk" was not answered/],
    // Anthropic's SDK path reads a non-object tool input as broken arguments; either way it is `invalid`.
    ['an array instead of an object', [1, 2, 3], /not an object keyed by question name|not valid JSON/],
  ])('classifies %s as invalid, never a throw', async (_label, answers, message) => {
    fake.answer(answers)
    const outcome = await agentOn().decide({ input: INPUT, questions: QUESTIONS })
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid', provider: wire.providerName })
    expect(!outcome.ok && outcome.message).toMatch(message)
  })

  it('classifies an answer cut off at the token limit as invalid', async () => {
    fake.truncate(GOOD)
    const outcome = await agentOn().decide({ input: INPUT, questions: QUESTIONS })
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid' })
    expect(!outcome.ok && outcome.message).toMatch(/cut off/)
  })

  it.each([
    [429, 'rate_limited'],
    [402, 'quota'],
    [401, 'auth'],
    [500, 'error'],
    [404, 'unavailable'],
  ] as const)('maps a %i from the API to %s', async (status, reason) => {
    fake.error(status)
    const agent = agentOn()
    const outcome = await agent.decide({ input: INPUT, questions: QUESTIONS })
    expect(outcome).toMatchObject({ ok: false, reason, provider: wire.providerName })
    expect(!outcome.ok && outcome.error).toBeInstanceOf(Error)
    // A model the API does not serve is remembered: `available` stops claiming it, and the next call fails without a request.
    if (status === 404) {
      expect(agent.decide.available).toBe(false)
      const again = await agent.decide({ input: INPUT, questions: QUESTIONS })
      expect(again).toMatchObject({ ok: false, reason: 'unavailable' })
      expect(fake.requests).toHaveLength(1)
    }
  })

  it('times out at `timeoutMs` against an API that never answers', async () => {
    fake.stall()
    const outcome = await agentOn().decide({ input: INPUT, questions: QUESTIONS, timeoutMs: 150 })
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' })
    expect(!outcome.ok && outcome.message).toMatch(/150 ms/)
  })

  it('stops at once when the caller aborts', async () => {
    fake.stall()
    const controller = new AbortController()
    const pending = createAgent({ provider: wire.provider(fake.url) }).decide({ input: INPUT, questions: QUESTIONS, signal: controller.signal })
    setTimeout(() => controller.abort(new Error('user cancelled')), 50)
    expect(await pending).toMatchObject({ ok: false, reason: 'aborted' })
  })
})
