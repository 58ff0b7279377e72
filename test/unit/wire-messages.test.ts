import type { SessionTurn } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { applyWireToolNames, buildWireMessages } from '../../src/wire/messages'

function turn(role: SessionTurn['role'], content: SessionTurn['content'], extra: Partial<SessionTurn> = {}): SessionTurn {
  return { id: `${role}-${content.length}`, role, content, createdAt: 0, ...extra }
}

describe('buildWireMessages', () => {
  it('keeps user and assistant turns in order and drops system, command, aborted and empty turns', () => {
    const messages = buildWireMessages([
      turn('system', [{ type: 'text', text: 'frozen prompt' }]),
      turn('user', [{ type: 'text', text: 'hi' }]),
      turn('assistant', []),
      turn('assistant', [{ type: 'text', text: 'cut off' }], { aborted: true }),
      turn('command', [{ type: 'text', text: '/help output' }]),
      turn('user', [{ type: 'text', text: 'Please continue.' }], { injected: 'continue-pause' }),
      turn('assistant', [{ type: 'text', text: 'done' }]),
    ])
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'user', content: [{ type: 'text', text: 'Please continue.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ])
  })

  it('is a pure function: the same turns give equal messages, and appending keeps the prefix', () => {
    const turns = [turn('user', [{ type: 'text', text: 'a' }]), turn('assistant', [{ type: 'text', text: 'b' }])]
    const before = JSON.stringify(buildWireMessages(turns))
    const after = buildWireMessages([...turns, turn('user', [{ type: 'text', text: 'c' }])])
    expect(JSON.stringify(after.slice(0, 2))).toBe(before)
  })
})

describe('applyWireToolNames', () => {
  it('renames aliased tool calls and passes untouched messages through as the same objects', () => {
    const untouched = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '1', name: 'other', input: {} }] }
    const renamed = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '2', name: 'read_file', input: {} }] }
    const out = applyWireToolNames([untouched, renamed], name => name === 'read_file' ? 'Read' : name)
    expect(out[0]).toBe(untouched)
    expect(out[1].content[0]).toMatchObject({ name: 'Read', id: '2' })
    expect(renamed.content[0].name).toBe('read_file')
  })

  it('gives a renamed message the same copy on every turn, and a new one when the original changed', () => {
    const toWire = (name: string) => name === 'read_file' ? 'Read' : name
    const message = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '1', name: 'read_file', input: {} }] }
    const first = applyWireToolNames([message], toWire)[0].content
    expect(applyWireToolNames([message], toWire)[0].content).toBe(first)
    message.content.push({ type: 'tool_call', id: '2', name: 'read_file', input: {} })
    const grown = applyWireToolNames([message], toWire)[0].content
    expect(grown).not.toBe(first)
    expect(grown.map(block => block.type === 'tool_call' && block.name)).toEqual(['Read', 'Read'])
    expect(applyWireToolNames([message], name => name === 'read_file' ? 'ReadFile' : name)[0].content[0]).toMatchObject({ name: 'ReadFile' })
  })
})
