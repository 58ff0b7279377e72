import { describe, expect, it } from 'vitest'
import { catalogChangeNotes, composeSystemPrompt, createAgent, latestSystemSnapshot, systemSnapshotTurn } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

describe('system prompt freezing', () => {
  it('captures the fresh prompt once, then sends the frozen one with change notes', async () => {
    const session = await createSession()
    let captured = ''
    const first = scriptedProvider([{ text: 'a' }])
    await createAgent({ provider: first, session, system: 'v1 prompt' }).run({
      prompt: 'one',
      systemFreeze: { onCapture: (fresh) => {
        captured = fresh
      } },
    })
    expect(captured).toBe('v1 prompt')
    await session.appendTurns([await systemSnapshotTurn(captured)])

    const frozen = latestSystemSnapshot(session.turns)!
    const second = scriptedProvider([{ text: 'b' }])
    await createAgent({ provider: second, session, system: 'v2 prompt, edited' }).run({
      prompt: 'two',
      systemFreeze: { system: frozen.prompt, notes: fresh => [{ kind: 'prompt-change', text: `Now: ${fresh}` }] },
      systemNotes: [{ kind: 'env', text: 'cwd=/repo' }],
    })
    expect(second.requests[0].system).toBe('v1 prompt')
    const prompt = second.requests[0].messages.at(-1)!.content
    expect(prompt.map(block => (block as { text: string }).text)).toEqual(['two', 'Now: v2 prompt, edited', 'cwd=/repo'])
    // The snapshot turn is stored but never sent as a message.
    expect(second.requests[0].messages.every(m => m.role !== ('system' as string))).toBe(true)
  })

  it('latestSystemSnapshot picks the last snapshot for a key', async () => {
    const turns = [await systemSnapshotTurn('old'), await systemSnapshotTurn('other', { key: 'reviewer' }), await systemSnapshotTurn('new')]
    expect(latestSystemSnapshot(turns)?.prompt).toBe('new')
    expect(latestSystemSnapshot(turns, 'reviewer')?.prompt).toBe('other')
    expect(latestSystemSnapshot(turns, 'missing')).toBeUndefined()
  })

  it('catalogChangeNotes reports added, changed and removed sections', () => {
    const notes = catalogChangeNotes({ tools: 'a, b', mcp: 'use db' }, { tools: 'a, b, c', skills: 'deploy' })
    expect(notes.map(note => [note.id, note.text.split(' ')[0]])).toEqual([['tools', 'The'], ['skills', 'A'], ['mcp', 'The']])
    expect(notes[0].text).toContain('a, b, c')
    expect(catalogChangeNotes({ tools: 'x' }, { tools: 'x' })).toEqual([])
  })

  it('composeSystemPrompt appends non-empty sections in order', () => {
    expect(composeSystemPrompt('base', { a: 'one', b: '  ', c: 'three' })).toBe('base\n\none\n\nthree')
  })
})
