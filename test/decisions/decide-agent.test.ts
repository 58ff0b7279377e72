import type { DecisionEndHookContext, DecisionQuestions, DecisionStartHookContext, Provider } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { DecisionError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { cerebras } from '../../src/providers/cerebras'
import { openai } from '../../src/providers/openai'
import { createMemoryStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'

const QUESTIONS = { safe: { kind: 'predicate', question: 'Is the command safe to run?' } } as const satisfies DecisionQuestions

function answerTurn(value: boolean) {
  return { type: 'turn' as const, turn: { toolCalls: [{ name: 'record_answers', input: { safe: { value, refused: false, reason: value ? 'read-only' : 'deletes files' } } }], usage: { input_tokens: 90, output_tokens: 20 } } }
}

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const decider = (apiKey: string | undefined = 'test-key'): Provider => anthropic({ baseURL: fake.url, apiKey, defaultModel: 'claude-haiku-4-5' })

describe('decision hooks', () => {
  it('fire around every decision with their fields, and carry no ctx.decide', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: decider() })
    const starts: DecisionStartHookContext[] = []
    const ends: DecisionEndHookContext[] = []
    const decideOnHooks: unknown[] = []
    agent.hooks.hook('decision:start', (ctx) => {
      starts.push({ ...ctx })
      decideOnHooks.push((ctx as { decide?: unknown }).decide)
    })
    agent.hooks.hook('decision:end', (ctx) => {
      ends.push({ ...ctx })
      decideOnHooks.push((ctx as { decide?: unknown }).decide)
    })

    const outcome = await agent.decide({ input: 'ls -la', questions: QUESTIONS })
    expect(outcome.ok).toBe(true)
    expect(starts).toEqual([{ decisionId: outcome.decisionId, questionNames: ['safe'], inputKind: 'text', provider: 'anthropic', model: 'claude-haiku-4-5', startedAt: expect.any(Number) }])
    expect(ends).toEqual([{
      ...starts[0],
      ok: true,
      durationMs: expect.any(Number),
      answers: { safe: { kind: 'predicate', value: true, reason: 'read-only' } },
      usage: { input: 90, output: 20, cost: expect.any(Number) },
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    }])
    expect(decideOnHooks).toEqual([undefined, undefined])
  })

  it('report a failure with its reason and message, and no answers or usage', async () => {
    fake.enqueue({ type: 'error', status: 429 })
    const agent = createAgent({ provider: decider() })
    const ends: DecisionEndHookContext[] = []
    agent.hooks.hook('decision:end', ctx => void ends.push(ctx))
    await agent.decide({ input: 'ls', questions: QUESTIONS })
    expect(ends).toHaveLength(1)
    expect(ends[0]).toMatchObject({ ok: false, reason: 'rate_limited', message: expect.any(String) })
    expect(ends[0].answers).toBeUndefined()
    expect(ends[0].usage).toBeUndefined()
  })

  it('a throwing decision observer does not change the outcome', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: decider() })
    agent.hooks.hook('decision:end', () => {
      throw new Error('observer bug')
    })
    expect(await agent.decide({ input: 'ls', questions: QUESTIONS })).toMatchObject({ ok: true })
  })
})

describe('ctx.decide on streamed deltas', () => {
  it('is on every stream:text context without a property defined per delta, and never enumerated', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: scriptedProvider([{ text: 'one two three' }]), decisions: { provider: decider() } })
    const seen: { keys: string[], spread: boolean, json: string, type: string }[] = []
    let verdict: Promise<unknown> | undefined
    agent.hooks.hook('stream:text', (ctx) => {
      seen.push({ keys: Object.keys(ctx), spread: 'decide' in { ...ctx }, json: JSON.stringify(ctx), type: typeof ctx.decide })
      // Streamed deltas are not awaited by the loop: the decision is awaited below.
      verdict ??= ctx.decide({ input: ctx.delta, questions: QUESTIONS })
    })
    const defined: PropertyKey[] = []
    const define = Object.defineProperty
    Object.defineProperty = ((target: object, key: PropertyKey, descriptor: PropertyDescriptor) => {
      defined.push(key)
      return define(target, key, descriptor)
    }) as typeof Object.defineProperty
    try {
      expect((await agent.run({ prompt: 'count' })).stopReason).toBe('completed')
    }
    finally {
      Object.defineProperty = define
    }
    expect(seen.length).toBeGreaterThan(0)
    for (const context of seen) {
      expect(context.type).toBe('function')
      expect(context.keys).not.toContain('decide')
      expect(context.spread).toBe(false)
      expect(context.json).not.toContain('decide')
    }
    expect(await verdict).toMatchObject({ ok: true })
    // The deltas' contexts find `decide` on their prototype: the bus defines nothing on them.
    expect(defined).not.toContain('decide')
  })
})

describe('ctx.decide inside a run', () => {
  const shell = tool({
    name: 'shell',
    description: 'Run a command.',
    input: z.object({ command: z.string() }),
    execute: () => 'ran',
  })

  it('gates a tool call on a decision bound to the run, recorded on the session run', async () => {
    fake.enqueue(answerTurn(false))
    const store = createMemoryStore()
    const session = await createSession({ store })
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'shell', input: { command: 'rm -rf /' } }] }, { text: 'done' }]),
      decisions: { provider: decider() },
      tools: { shell },
      session,
    })
    const starts: DecisionStartHookContext[] = []
    agent.hooks.hook('decision:start', ctx => void starts.push(ctx))
    let enumerable: boolean | undefined
    agent.hooks.hook('tool:gate', async (ctx) => {
      enumerable = Object.keys(ctx).includes('decide')
      const verdict = await ctx.decide({ input: { tool: ctx.name, input: ctx.input }, questions: QUESTIONS })
      if (verdict.ok && verdict.answers.safe.kind === 'predicate' && !verdict.answers.safe.value) {
        ctx.block = true
        ctx.reason = verdict.answers.safe.reason
      }
    })

    const stats = await agent.run({ prompt: 'clean up' })
    expect(stats.stopReason).toBe('completed')
    expect(enumerable).toBe(false)
    const result = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result')
    expect(JSON.stringify(result)).toContain('Blocked: deletes files')

    const [record] = session.runs
    expect(starts[0].runId).toBe(record.id)
    expect(record.decisions).toEqual([{
      decisionId: starts[0].decisionId,
      questionNames: ['safe'],
      inputKind: 'json',
      startedAt: expect.any(Number),
      durationMs: expect.any(Number),
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      outcome: { ok: true, answers: { safe: { kind: 'predicate', value: false, reason: 'deletes files' } }, usage: { input: 90, output: 20, cost: expect.any(Number) }, id: 'msg_fake_01' },
    }])
    // Stored as plain JSON: a reloaded session reads the same record.
    const reloaded = await loadSession(session.id, { store })
    expect(reloaded.runs[0].decisions).toEqual(record.decisions)
  })

  it('is cancelled when the run is aborted', async () => {
    fake.enqueue({ type: 'stall-before-headers' })
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'shell', input: { command: 'ls' } }] }, { text: 'done' }]),
      decisions: { provider: decider(), timeoutMs: 10_000 },
      tools: { shell },
    })
    const reasons: unknown[] = []
    agent.hooks.hook('tool:gate', async (ctx) => {
      setTimeout(() => agent.abort(), 30)
      const verdict = await ctx.decide({ input: 'ls', questions: QUESTIONS })
      reasons.push(verdict.ok ? 'ok' : verdict.reason)
    })
    const stats = await agent.run({ prompt: 'look' })
    expect(reasons).toEqual(['aborted'])
    expect(stats.stopReason).toBe('aborted')
  })

  it('outside a run, hook contexts get the agent\'s decide, with no run id', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: decider() })
    const runIds: (string | undefined)[] = []
    agent.hooks.hook('decision:start', ctx => void runIds.push(ctx.runId))
    let outcome: unknown
    agent.hooks.hook('background:stall', async (ctx) => {
      outcome = await ctx.decide({ input: ctx.command, questions: QUESTIONS })
    })
    await agent.hooks.callHook('background:stall', { taskId: 't1', command: 'sleep 100', silentMs: 60_000, logPath: '/tmp/t1.log' } as never)
    expect(outcome).toMatchObject({ ok: true })
    expect(runIds).toEqual([undefined])
  })
})

describe('provider selection', () => {
  it('uses AgentOptions.decisions.provider and model over the run providers', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: scriptedProvider([]), decisions: { provider: decider(), model: 'claude-sonnet-5-5' } })
    const outcome = await agent.decide({ input: 'ls', questions: QUESTIONS })
    expect(outcome).toMatchObject({ ok: true, provider: 'anthropic' })
    expect(fake.requests[0].body.model).toBe('claude-sonnet-5-5')
  })

  it('a request model wins over the agent default', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: decider(), decisions: { model: 'claude-sonnet-5-5' } })
    await agent.decide({ input: 'ls', questions: QUESTIONS, model: 'claude-opus-5-5' })
    expect(fake.requests[0].body.model).toBe('claude-opus-5-5')
  })

  it('picks the first provider that can answer now, skipping one without credentials', async () => {
    const openaiFake = await startFakeOpenAI()
    try {
      openaiFake.enqueue({ type: 'turn', turn: { text: JSON.stringify({ safe: { value: true, refused: false, reason: 'ok' } }), usage: { prompt_tokens: 10, completion_tokens: 5 } } })
      const previous = process.env.ANTHROPIC_API_KEY
      delete process.env.ANTHROPIC_API_KEY
      try {
        const agent = createAgent({ provider: [scriptedProvider([]), decider(''), openai({ baseURL: openaiFake.url, apiKey: 'k' })] })
        expect(agent.decide.available).toBe(true)
        const outcome = await agent.decide({ input: 'ls', questions: QUESTIONS })
        expect(outcome).toMatchObject({ ok: true, provider: 'openai' })
        expect(fake.requests).toHaveLength(0)
      }
      finally {
        if (previous !== undefined)
          process.env.ANTHROPIC_API_KEY = previous
      }
    }
    finally {
      await openaiFake.close()
    }
  })

  it('is unavailable without a capable provider, and when the only one has no credentials', async () => {
    const none = createAgent({ provider: scriptedProvider([]) })
    expect(none.decide.available).toBe(false)
    expect(await none.decide({ input: 'ls', questions: QUESTIONS })).toMatchObject({ ok: false, reason: 'unavailable' })

    const previous = process.env.ANTHROPIC_API_KEY
    delete process.env.ANTHROPIC_API_KEY
    try {
      const keyless = createAgent({ provider: decider('') })
      expect(keyless.decide.available).toBe(false)
      expect(await keyless.decide({ input: 'ls', questions: QUESTIONS })).toMatchObject({ ok: false, reason: 'unavailable', provider: 'anthropic' })
      expect(fake.requests).toHaveLength(0)
    }
    finally {
      if (previous !== undefined)
        process.env.ANTHROPIC_API_KEY = previous
    }
  })
})

describe('input the wire cannot carry', () => {
  it('is `unsupported` before anything is sent (an image to a text-only Cerebras model)', async () => {
    const openaiFake = await startFakeOpenAI()
    try {
      const agent = createAgent({ provider: cerebras({ baseURL: openaiFake.url, apiKey: 'k' }) })
      const outcome = await agent.decide({
        input: [{ type: 'text', text: 'Is this a cat?' }, { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }],
        questions: { cat: { kind: 'predicate', question: 'Does the picture show a cat?' } },
      })
      expect(outcome).toMatchObject({ ok: false, reason: 'unsupported', provider: 'cerebras' })
      expect(openaiFake.requests).toHaveLength(0)
    }
    finally {
      await openaiFake.close()
    }
  })
})

describe('bad requests and { throw: true }', () => {
  it.each([
    ['no questions', { input: 'x', questions: {} }, /at least one question/],
    ['a bad name', { input: 'x', questions: { 'no spaces': QUESTIONS.safe } }, /not a valid name/],
    ['a choice without options', { input: 'x', questions: { pick: { kind: 'choice', question: 'which?', options: [] } } }, /non-empty `options`/],
    ['a score with min above max', { input: 'x', questions: { s: { kind: 'score', question: 'how much?', min: 5, max: 1 } } }, /`min` below `max`/],
    ['an unknown kind', { input: 'x', questions: { q: { kind: 'rank', question: 'hm?' } } }, /`kind`/],
    ['an empty input', { input: '', questions: QUESTIONS }, /`input`/],
    ['a negative timeout', { input: 'x', questions: QUESTIONS, timeoutMs: -1 }, /`timeoutMs`/],
  ])('refuses %s as invalid before anything is sent', async (_label, request, message) => {
    const agent = createAgent({ provider: decider() })
    const outcome = await agent.decide(request as never)
    expect(outcome).toMatchObject({ ok: false, reason: 'invalid' })
    expect(!outcome.ok && outcome.message).toMatch(message)
    expect(fake.requests).toHaveLength(0)
  })

  it('throws a DecisionError with the failure\'s facts only when asked', async () => {
    fake.enqueue({ type: 'error', status: 401 }, { type: 'error', status: 401 })
    const agent = createAgent({ provider: decider() })
    expect(await agent.decide({ input: 'ls', questions: QUESTIONS })).toMatchObject({ ok: false, reason: 'auth' })
    const error = await agent.decide({ input: 'ls', questions: QUESTIONS }, { throw: true }).then(() => undefined, (caught: unknown) => caught)
    expect(error).toBeInstanceOf(DecisionError)
    expect(error).toMatchObject({ name: 'DecisionError', reason: 'auth', provider: 'anthropic', model: 'claude-haiku-4-5' })
  })

  it('with { throw: true } a success comes back as usual', async () => {
    fake.enqueue(answerTurn(true))
    const agent = createAgent({ provider: decider() })
    const outcome = await agent.decide({ input: 'ls', questions: QUESTIONS }, { throw: true })
    expect(outcome.answers.safe).toMatchObject({ kind: 'predicate', value: true })
  })
})
