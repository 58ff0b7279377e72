import type { PromptPart } from '../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { textOf } from '../support/helpers'

// A blank prompt is no prompt: it continues a session that has something to
// continue, and is refused up front otherwise (never sent as an empty request).

const blanks: [string, string | PromptPart[]][] = [
  ['an empty string', ''],
  ['whitespace', '  \n\t'],
  ['an empty part list', []],
  ['blank text parts', [{ type: 'text', text: '' }, { type: 'text', text: ' ' }]],
]

describe('a blank prompt', () => {
  it.each(blanks)('%s with nothing to continue is refused before any request', async (_label, prompt) => {
    const provider = scriptedProvider([{ text: 'never' }])
    const error = await createAgent({ provider }).run({ prompt }).catch(e => e)
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toMatch(/needs a prompt .*empty or whitespace-only prompt counts as none/)
    expect(provider.requests).toHaveLength(0)
  })

  it.each(blanks)('%s continues a session whose last prompt was never answered, adding no empty message', async (_label, prompt) => {
    const session = await createSession()
    const provider = scriptedProvider([{ error: { kind: 'invalid_request', retryable: false } }, { text: 'answered now' }])
    const agent = createAgent({ provider, session })
    await expect(agent.run({ prompt: 'hello' })).rejects.toThrow()

    const stats = await agent.run({ prompt })
    expect(stats.text).toBe('answered now')
    expect(provider.requests[1].messages.map(m => [m.role, textOf(m)])).toEqual([['user', 'hello']])
    expect(session.turns.map(t => t.role)).toEqual(['user', 'assistant'])
  })

  it('on a session that ends with an answer, returns at once without calling the model', async () => {
    const session = await createSession()
    const provider = scriptedProvider([{ text: 'first answer' }])
    const agent = createAgent({ provider, session })
    await agent.run({ prompt: 'hello' })
    const stats = await agent.run({ prompt: '' })
    expect(stats.stopReason).toBe('completed')
    expect(provider.requests).toHaveLength(1)
    expect(session.turns).toHaveLength(2)
  })

  it('with resumeRunId is refused: resuming needs an instruction', async () => {
    const session = await createSession()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'a' }]), session })
    await agent.run({ prompt: 'hello' })
    const runId = session.runs[0].id
    await expect(agent.run({ prompt: ' ', resumeRunId: runId })).rejects.toThrow(/resumeRunId needs a prompt/)
  })
})
