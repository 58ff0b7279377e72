import type { AgentBehavior } from '../../src/knobs/behavior'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentLengthResumeExhaustedError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { injectedTexts, runCapturingTurns, textOf } from '../support/helpers'

async function play(script: ScriptedTurn[], behavior: AgentBehavior = {}) {
  const provider = scriptedProvider(script)
  const captured = await runCapturingTurns({ provider, behavior }, { prompt: 'write it' })
  return { ...captured, provider, injected: captured.turns.filter(t => t.injected).map(t => t.injected) }
}

const emptyPause: ScriptedTurn = { finishReason: 'pause' }
const textPause: ScriptedTurn = { text: 'still going', finishReason: 'pause' }

describe('pause continuation', () => {
  it('continues a paused turn with an injected Please continue.', async () => {
    const { stats, provider, injected, turns } = await play([{ text: 'half', finishReason: 'pause' }, { text: 'whole' }])
    expect(stats?.stopReason).toBe('completed')
    expect(stats?.text).toBe('whole')
    expect(provider.requests).toHaveLength(2)
    expect(textOf(provider.requests[1].messages.at(-1))).toBe('Please continue.')
    expect(injectedTexts(provider.requests[1].messages)).toEqual(['Please continue.'])
    expect(injected).toEqual(['continue-pause'])
    expect(turns.map(t => t.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  })

  it('is unlimited by default', async () => {
    const { stats, provider } = await play([emptyPause, emptyPause, emptyPause, emptyPause, emptyPause, { text: 'finally' }])
    expect(stats?.stopReason).toBe('completed')
    expect(provider.requests).toHaveLength(6)
  })

  it('stops with pause-exhausted after maxConsecutivePauseTurns empty pauses', async () => {
    const { stats, provider } = await play([emptyPause, emptyPause, emptyPause, { text: 'x' }], { maxConsecutivePauseTurns: 2 })
    expect(stats?.stopReason).toBe('pause-exhausted')
    expect(provider.requests).toHaveLength(2)
    expect(stats?.turnUsage?.at(-1)?.finishReason).toBe('pause')
  })

  it('resets the count on a pause that produced text', async () => {
    const { stats, provider } = await play([emptyPause, textPause, emptyPause, { text: 'done' }], { maxConsecutivePauseTurns: 2 })
    expect(stats?.stopReason).toBe('completed')
    expect(provider.requests).toHaveLength(4)
  })

  it('counts a pause with only thinking as productive', async () => {
    const { stats } = await play([emptyPause, { thinking: 'deep', finishReason: 'pause' }, emptyPause, { text: 'done' }], { maxConsecutivePauseTurns: 2 })
    expect(stats?.stopReason).toBe('completed')
  })
})

describe('output-cap resume', () => {
  const cut = (text: string): ScriptedTurn => ({ text, finishReason: 'length' })

  it('stops with length when resumeOnMaxTokens is off', async () => {
    const { stats, provider } = await play([cut('trunc'), { text: 'never' }])
    expect(stats?.stopReason).toBe('length')
    expect(stats?.text).toBe('trunc')
    expect(provider.requests).toHaveLength(1)
  })

  it('continues a cut-off turn when resumeOnMaxTokens is on', async () => {
    const { stats, provider, injected } = await play([cut('part one, '), { text: 'part two' }], { resumeOnMaxTokens: true })
    expect(stats?.stopReason).toBe('completed')
    expect(provider.requests).toHaveLength(2)
    expect(injectedTexts(provider.requests[1].messages)).toEqual(['Please continue.'])
    expect(injected).toEqual(['continue-length'])
  })

  it('stops with length-exhausted after maxConsecutiveLengthResumes resumes', async () => {
    const { stats, provider, injected } = await play([cut('a'), cut('b'), cut('c'), cut('d'), { text: 'x' }], { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 2 })
    expect(stats?.stopReason).toBe('length-exhausted')
    expect(provider.requests).toHaveLength(3)
    expect(injected).toEqual(['continue-length', 'continue-length'])
    expect(stats?.turnUsage?.at(-1)?.finishReason).toBe('length')
  })

  it('allows 8 resumes by default', async () => {
    const script = [...Array.from({ length: 10 }, (_, i) => cut(`p${i}`)), { text: 'x' }]
    const { stats, provider } = await play(script, { resumeOnMaxTokens: true })
    expect(stats?.stopReason).toBe('length-exhausted')
    expect(provider.requests).toHaveLength(9)
  })

  it('is off with maxConsecutiveLengthResumes: 0', async () => {
    const { stats, provider } = await play([cut('a'), { text: 'x' }], { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 0 })
    expect(stats?.stopReason).toBe('length')
    expect(provider.requests).toHaveLength(1)
  })

  it('fails with AgentLengthResumeExhaustedError after two empty cut-off turns', async () => {
    const { error, provider } = await play([{ thinking: 'hmm', finishReason: 'length' }, { finishReason: 'length' }, { text: 'x' }], { resumeOnMaxTokens: true })
    expect(error).toBeInstanceOf(AgentLengthResumeExhaustedError)
    expect((error as AgentLengthResumeExhaustedError).resumes).toBe(2)
    expect(provider.requests).toHaveLength(2)
  })

  it('resets the empty count when a cut-off turn produced text', async () => {
    const { stats } = await play([{ finishReason: 'length' }, cut('text'), { finishReason: 'length' }, { text: 'done' }], { resumeOnMaxTokens: true })
    expect(stats?.stopReason).toBe('completed')
  })
})

describe('refusal resume', () => {
  const refusal: ScriptedTurn = { finishReason: 'content-filter' }

  it('resumes up to 3 refusals by default, then stops with refusal-exhausted', async () => {
    const { stats, provider, injected } = await play([refusal, refusal, refusal, refusal, { text: 'x' }])
    expect(stats?.stopReason).toBe('refusal-exhausted')
    expect(provider.requests).toHaveLength(4)
    expect(injected).toEqual(['continue-refusal', 'continue-refusal', 'continue-refusal'])
    expect(injectedTexts(provider.requests[1].messages)).toEqual(['Please continue with the task.'])
    expect(stats?.turnUsage?.at(-1)?.finishReason).toBe('content-filter')
  })

  it('completes when a resumed turn answers', async () => {
    const { stats } = await play([refusal, { text: 'fine, here it is' }])
    expect(stats?.stopReason).toBe('completed')
    expect(stats?.text).toBe('fine, here it is')
  })

  it('stops with content-filter when maxConsecutiveRefusalResumes is 0', async () => {
    const { stats, provider } = await play([refusal, { text: 'x' }], { maxConsecutiveRefusalResumes: 0 })
    expect(stats?.stopReason).toBe('content-filter')
    expect(provider.requests).toHaveLength(1)
  })

  it('honours a custom cap', async () => {
    const { stats, provider } = await play([refusal, refusal, refusal], { maxConsecutiveRefusalResumes: 1 })
    expect(stats?.stopReason).toBe('refusal-exhausted')
    expect(provider.requests).toHaveLength(2)
  })
})

describe('injected turns through the public surface', () => {
  it('are visible to turn:before as text blocks marked injected', async () => {
    const provider = scriptedProvider([{ finishReason: 'pause' }, { text: 'ok' }])
    const agent = createAgent({ provider })
    const seen: unknown[] = []
    agent.hooks.hook('turn:before', ctx => void seen.push(ctx.messages.at(-1)))
    await agent.run({ prompt: 'p' })
    expect(seen[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Please continue.', origin: 'injected' }] })
  })
})
