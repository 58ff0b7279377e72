import type { DecisionRequest, DecisionStartHookContext, Provider, ProviderDecisions } from '../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'

/** A provider whose decisions answer every question with `true`, recording what it was sent. */
function deciding(sent: Parameters<ProviderDecisions['decide']>[0][] = []): Provider {
  return {
    ...scriptedProvider([]),
    decisions: {
      defaultModel: 'judge-1',
      canAnswer: () => true,
      decide: async (request) => {
        sent.push(request)
        const names = Object.keys((request.schema as { properties: Record<string, unknown> }).properties)
        const value = Object.fromEntries(names.map(name => [name, { value: true, refused: false, reason: 'so' }]))
        return { body: { type: 'answers' as const, value }, model: 'judge-1', usage: { input: 1, output: 1 } }
      },
    },
  }
}

describe('agent.decide with a hostile request', () => {
  it('refuses a question named __proto__, and Object.prototype stays untouched', async () => {
    const agent = createAgent({ provider: deciding() })
    const questions = JSON.parse('{"__proto__": {"kind": "predicate", "question": "Is it?"}}') as DecisionRequest['questions']
    const outcome = await agent.decide({ input: 'x', questions })
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid' })
    expect(!outcome.ok && outcome.message).toMatch(/"__proto__" has a reserved name/)
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('kind')
    expect(({} as Record<string, unknown>).value).toBeUndefined()
  })

  it('answers questions named after other prototype members as ordinary names', async () => {
    const agent = createAgent({ provider: deciding() })
    const outcome = await agent.decide({ input: 'x', questions: { constructor: { kind: 'predicate' as const, question: 'a?' }, toString: { kind: 'predicate' as const, question: 'b?' } } })
    expect(outcome.ok).toBe(true)
    expect(outcome.ok && Object.keys(outcome.answers)).toEqual(['constructor', 'toString'])
    expect(outcome.ok && outcome.answers.constructor).toEqual({ kind: 'predicate', value: true, reason: 'so' })
  })

  it('turns a getter that throws into an `invalid` outcome, and still fires both hooks', async () => {
    const agent = createAgent({ provider: deciding() })
    const starts: DecisionStartHookContext[] = []
    let ends = 0
    agent.hooks.hook('decision:start', ctx => void starts.push(ctx))
    agent.hooks.hook('decision:end', () => void ends++)
    for (const field of ['input', 'questions', 'model', 'timeoutMs', 'signal'] as const) {
      const request = { input: 'x', questions: { ok: { kind: 'predicate', question: 'fine?' } } } as Record<string, unknown>
      Object.defineProperty(request, field, { enumerable: true, get: () => {
        throw new Error(`no ${field} for you`)
      } })
      const outcome = await agent.decide(request as unknown as DecisionRequest)
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid', message: `Invalid decision request: the request could not be read (no ${field} for you)` })
    }
    const question = { kind: 'predicate' } as Record<string, unknown>
    Object.defineProperty(question, 'question', { enumerable: true, get: () => {
      throw new Error('gone')
    } })
    const outcome = await agent.decide({ input: 'x', questions: { q: question } } as unknown as DecisionRequest)
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid' })
    expect(starts).toHaveLength(6)
    expect(ends).toBe(6)
  })

  it('turns a proxy whose traps throw, and JSON evidence that cannot be serialised, into `invalid`', async () => {
    const agent = createAgent({ provider: deciding() })
    const hostile = new Proxy({}, { ownKeys: () => {
      throw new Error('no keys')
    } })
    expect(await agent.decide({ input: 'x', questions: hostile } as unknown as DecisionRequest)).toMatchObject({ ok: false, reason: 'invalid' })
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(await agent.decide({ input: cyclic, questions: { q: { kind: 'predicate', question: 'a?' } } })).toMatchObject({ ok: false, reason: 'invalid' })
  })

  it('reads the request once: a getter that changes its answer cannot make the checked and the sent question differ', async () => {
    const sent: Parameters<ProviderDecisions['decide']>[0][] = []
    const agent = createAgent({ provider: deciding(sent) })
    let reads = 0
    const question = { question: 'Safe?' } as Record<string, unknown>
    Object.defineProperty(question, 'kind', { enumerable: true, get: () => (reads++ === 0 ? 'predicate' : 'nonsense') })
    const outcome = await agent.decide({ input: 'x', questions: { safe: question } } as unknown as DecisionRequest)
    expect(outcome.ok).toBe(true)
    expect(reads).toBe(1)
    expect(JSON.stringify(sent[0]!.schema)).toContain('"type":"boolean"')
  })

  it('never rejects with { throw: false }, whatever the request is', async () => {
    const agent = createAgent({ provider: deciding() })
    for (const request of [null, undefined, 42, 'text', [], { input: 'x' }, { questions: {} }]) {
      const outcome = await agent.decide(request as unknown as DecisionRequest)
      expect(outcome.ok).toBe(false)
    }
  })
})
