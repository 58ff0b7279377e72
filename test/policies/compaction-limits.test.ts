import type { AgentBehavior, BlockOf, CompactEndContext, SessionTurn } from '../../src'
import type { StreamOptions } from '../../src/providers/types'
import type { ScriptedTurn } from '../../src/testing'
import type { FakeAnthropic, FakeResponse } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentContextExceededError, AgentProviderError, CompactionRefusedError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'

// What a compaction summary that stalls, is cut off or is too large gets,
// through the public API: the watchdogs bound it, a bad summary is refused
// (the turns stay, compact:end says why), and recovery never sends the same
// oversized request again.

const MODEL = 'claude-sonnet-4-6'

function dumpTool() {
  return tool({
    name: 'dump',
    description: 'Print a block of text',
    input: z.object({ letter: z.string(), size: z.number() }),
    execute: ({ letter, size }) => letter.repeat(size),
  })
}

function summaries(turns: readonly SessionTurn[]): BlockOf<'compact-summary'>[] {
  return turns.flatMap(turn => turn.content.filter((block): block is BlockOf<'compact-summary'> => block.type === 'compact-summary'))
}

function isSummaryRequest(request: Pick<StreamOptions, 'messages'>): boolean {
  return JSON.stringify(request.messages.at(-1)).includes('about to be compacted')
}

describe('against the fake Anthropic server', () => {
  let fake: FakeAnthropic
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })
  const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL })
  const call = (id: string, letter: string, usage: Record<string, number> = { input_tokens: 100, output_tokens: 10 }): FakeResponse =>
    ({ type: 'turn', turn: { toolCalls: [{ id, name: 'dump', input: { letter, size: 100 } }], usage } })
  const answer = (text: string, stopReason?: string): FakeResponse => ({ type: 'turn', turn: { text, usage: { input_tokens: 100, output_tokens: 10 }, ...(stopReason ? { stopReason } : {}) } })
  const overflow: FakeResponse = { type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215034 tokens > 200000 maximum' } } }

  /** Two tool turns, the second one crossing `threshold × window`, then the summary answer. */
  function crossing(window: number, summary: FakeResponse): FakeResponse[] {
    return [call('toolu_1', 'a'), call('toolu_2', 'b', { input_tokens: 100, cache_read_input_tokens: Math.ceil(window * 0.9), output_tokens: 10 }), summary]
  }

  async function runCompacting(behavior: AgentBehavior) {
    const session = await createSession()
    const ends: CompactEndContext[] = []
    const agent = createAgent({ provider: provider(), session, tools: { dump: dumpTool() }, behavior })
    agent.hooks.hook('compact:end', ctx => void ends.push(ctx))
    const stats = await agent.run({ prompt: 'go' })
    return { session, ends, stats }
  }

  it('a summary cut off at its output ceiling is refused: the turns stay, compact:end says so, and the session goes on', async () => {
    fake.enqueue(...crossing(1000, answer('SUMMARY: dumped a', 'max_tokens')), answer('done'))
    const { session, ends, stats } = await runCompacting({ autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } })
    expect(stats.text).toBe('done')
    expect(ends).toHaveLength(1)
    expect(ends[0]).toMatchObject({ refused: 'cut-off', trigger: 'threshold', usage: { output: 10 } })
    expect(ends[0].summary).toBeUndefined()
    expect(ends[0].error).toBeInstanceOf(CompactionRefusedError)
    expect(ends[0].error).toMatchObject({ reason: 'cut-off', ceilingTokens: 100 })
    expect(summaries(session.turns)).toEqual([])
    // The turn after the refusal still carries the older turns.
    expect(JSON.stringify(fake.requests[3].body.messages)).toContain('a'.repeat(100))

    fake.enqueue(answer('continued'))
    const again = await createAgent({ provider: provider(), session, tools: { dump: dumpTool() } }).run({ prompt: 'and now?' })
    expect(again.text).toBe('continued')
    const sent = JSON.stringify(fake.requests[4].body.messages)
    expect(sent).toContain('a'.repeat(100))
    expect(sent).toContain('b'.repeat(100))
    expect(sent).not.toContain('SUMMARY')
  })

  it.each([
    ['larger than its ceiling (a server that ignores max_tokens)', 1000, 'x'.repeat(2000)],
    ['no smaller than the turns it would replace', 200_000, 'y'.repeat(600)],
  ])('a summary %s is refused as oversized', async (_name, window, text) => {
    fake.enqueue(...crossing(window, answer(text)), answer('done'))
    const { session, ends, stats } = await runCompacting({ autoCompact: { contextWindow: window, keepTurns: 2, restore: false } })
    expect(stats.text).toBe('done')
    expect(ends[0]).toMatchObject({ refused: 'oversized' })
    expect(ends[0].error).toBeInstanceOf(CompactionRefusedError)
    expect(summaries(session.turns)).toEqual([])
    expect(JSON.stringify(fake.requests[3].body.messages)).not.toContain(text)
  })

  it.each<[string, number, number | undefined, number]>([
    ['a tenth of a small window', 1000, undefined, 100],
    ['8192 tokens on a large window', 200_000, undefined, 8192],
    ['never above the run\'s own maxTokens', 1000, 60, 60],
  ])('the summary request carries its output ceiling: %s', async (_name, window, maxTokens, expected) => {
    fake.enqueue(...crossing(window, answer('SUMMARY')), answer('done'))
    const { ends } = await runCompacting({ autoCompact: { contextWindow: window, keepTurns: 2, restore: false }, ...(maxTokens ? { maxTokens } : {}) })
    expect(ends[0]).toMatchObject({ summary: 'SUMMARY' })
    expect(isSummaryRequest(fake.requests[2].body as never)).toBe(true)
    expect(fake.requests[2].body.max_tokens).toBe(expected)
  })

  it('recovery after a refused summary ends with AgentContextExceededError without resending the request, and a later run continues the session', async () => {
    fake.enqueue(call('toolu_1', 'a'), call('toolu_2', 'b'), overflow, answer('SUMMARY of a', 'max_tokens'))
    const session = await createSession()
    const ends: CompactEndContext[] = []
    const agent = createAgent({ provider: provider(), session, tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    agent.hooks.hook('compact:end', ctx => void ends.push(ctx))
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentContextExceededError)
    // The overflowing request was not sent again; the summary call had the ceiling of an unknown window.
    expect(fake.requests).toHaveLength(4)
    expect(fake.requests[3].body.max_tokens).toBe(8192)
    expect(ends).toMatchObject([{ trigger: 'context-exceeded', refused: 'cut-off' }])
    expect(summaries(session.turns)).toEqual([])

    fake.enqueue(answer('continued'))
    const again = await createAgent({ provider: provider(), session, tools: { dump: dumpTool() } }).run({ prompt: 'go on' })
    expect(again.text).toBe('continued')
    expect(JSON.stringify(fake.requests[4].body.messages)).toContain('a'.repeat(100))
  })
})

describe('the summary call goes out like a turn', () => {
  const dumpCall = (letter: string, usage?: ScriptedTurn['usage']): ScriptedTurn => ({ toolCalls: [{ name: 'dump', input: { letter, size: 100 } }], ...(usage ? { usage } : {}) })
  const crossingTurns = [dumpCall('a'), dumpCall('b', { input: 900 })]
  const autoCompact = { contextWindow: 1000, keepTurns: 2, restore: false }

  /** A scripted provider whose summary calls never settle (they ignore the abort signal too); `idle` sends one delta first. */
  function stallingSummaries(script: ScriptedTurn[], stall: 'start' | 'idle') {
    const inner = scriptedProvider(script)
    const summaryCalls: StreamOptions[] = []
    const provider = {
      ...inner,
      stream: (request: StreamOptions, callbacks: Parameters<typeof inner.stream>[1]) => {
        if (!isSummaryRequest(request))
          return inner.stream(request, callbacks)
        summaryCalls.push(request)
        if (stall === 'idle')
          callbacks.onText('SUMMARY so far')
        return new Promise<never>(() => {})
      },
    }
    return { provider, summaryCalls }
  }

  it.each(['start', 'idle'] as const)('a summary that stalls (%s) ends at the watchdog, is retried, and the run goes on without it', async (stall) => {
    const { provider, summaryCalls } = stallingSummaries([...crossingTurns, { text: 'done' }], stall)
    const ends: CompactEndContext[] = []
    const agent = createAgent({
      provider,
      tools: { dump: dumpTool() },
      behavior: { autoCompact, providerStreamStartTimeoutMs: 100, providerStreamIdleTimeoutMs: 100, retry: { maxAttempts: 2, initialDelayMs: 0 } },
    })
    agent.hooks.hook('compact:end', ctx => void ends.push(ctx))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(summaryCalls).toHaveLength(2)
    expect(ends).toHaveLength(1)
    expect(ends[0].error).toBeInstanceOf(AgentProviderError)
    expect(ends[0].error).toMatchObject({ kind: 'timeout', attempts: 2 })
    expect(stats.sideCalls ?? []).toEqual([])
  }, 30_000)

  it('a recovery whose summary stalls ends with AgentContextExceededError', async () => {
    const { provider, summaryCalls } = stallingSummaries([dumpCall('a'), dumpCall('b'), { error: { kind: 'context_exceeded', message: 'prompt is too long', retryable: false } }], 'start')
    const agent = createAgent({ provider, tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 }, providerStreamStartTimeoutMs: 100, retry: { maxAttempts: 1 } } })
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentContextExceededError)
    expect(summaryCalls).toHaveLength(1)
  }, 30_000)

  it('aborting the run during a stalled summary ends it as aborted', async () => {
    const { provider, summaryCalls } = stallingSummaries([...crossingTurns, { text: 'never' }], 'start')
    const agent = createAgent({ provider, tools: { dump: dumpTool() }, behavior: { autoCompact } })
    agent.hooks.hook('compact:start', () => void setTimeout(() => agent.abort(), 20))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('aborted')
    expect(summaryCalls).toHaveLength(1)
  }, 30_000)

  it('aborting the run during a recovery\'s stalled summary ends it as aborted, not as a context overflow', async () => {
    const { provider, summaryCalls } = stallingSummaries([dumpCall('a'), dumpCall('b'), { error: { kind: 'context_exceeded', message: 'prompt is too long', retryable: false } }], 'start')
    const agent = createAgent({ provider, tools: { dump: dumpTool() }, behavior: { autoCompact: { keepTurns: 2 } } })
    agent.hooks.hook('compact:start', () => void setTimeout(() => agent.abort(), 20))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('aborted')
    expect(summaryCalls).toHaveLength(1)
  }, 30_000)

  it('a retryable failure of the summary call is retried with backoff', async () => {
    const provider = scriptedProvider([...crossingTurns, { error: { kind: 'overloaded', retryable: true } }, { text: 'SUMMARY' }, { text: 'done' }])
    const session = await createSession()
    const agent = createAgent({ provider, session, tools: { dump: dumpTool() }, behavior: { autoCompact, retry: { maxAttempts: 2, initialDelayMs: 0 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(2)
    expect(summaries(session.turns).map(block => block.summary)).toEqual(['SUMMARY'])
  })

  it('a summary call that fails for good moves to the next fallback target, which the run then stays on', async () => {
    const primary = scriptedProvider([...crossingTurns, { error: { kind: 'auth', retryable: false } }], { name: 'primary', defaultModel: 'p-model' })
    const backup = scriptedProvider([{ text: 'SUMMARY' }, { text: 'done' }], { name: 'backup', defaultModel: 'b-model' })
    const session = await createSession()
    const fallbacks: string[] = []
    const agent = createAgent({ provider: [primary, backup], session, tools: { dump: dumpTool() }, behavior: { autoCompact } })
    agent.hooks.hook('model:fallback', ctx => void fallbacks.push(`${ctx.from.model} -> ${ctx.to.model}`))
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(fallbacks).toEqual(['p-model -> b-model'])
    expect(summaries(session.turns).map(block => [block.summary, block.model])).toEqual([['SUMMARY', 'b-model']])
  })
})
