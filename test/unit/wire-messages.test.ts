import type { SessionTurn } from '../../src/core/content'
import type { WireStageContext } from '../../src/wire/stage'
import { describe, expect, it } from 'vitest'
import { buildWireMessages } from '../../src/wire/messages'
import { createWireMemo, runWireStages } from '../../src/wire/pipeline'
import { toolNamesStage } from '../../src/wire/stages/tool-names'

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

describe('the tool-names stage', () => {
  const ctx = (toolWireName: (name: string) => string): WireStageContext => ({ turn: 1, providerName: 'p', model: 'm', toolWireName })

  it('renames aliased tool calls and passes untouched messages through as the same objects', () => {
    const untouched = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '1', name: 'other', input: {} }] }
    const renamed = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '2', name: 'read_file', input: {} }] }
    const out = toolNamesStage.apply([untouched, renamed], ctx(name => name === 'read_file' ? 'Read' : name))
    expect(out[0]).toBe(untouched)
    expect(out[1].content[0]).toMatchObject({ name: 'Read', id: '2' })
    expect(renamed.content[0].name).toBe('read_file')
    const plain = [untouched]
    expect(toolNamesStage.apply(plain, ctx(name => name))).toBe(plain)
  })

  it('through the memo, gives a renamed message the same copy on every turn, and a new one for a new message or naming', () => {
    const memo = createWireMemo()
    const toWire = (name: string) => name === 'read_file' ? 'Read' : name
    const message = { role: 'assistant' as const, content: [{ type: 'tool_call' as const, id: '1', name: 'read_file', input: {} }] }
    const first = runWireStages([toolNamesStage], [message], ctx(toWire), memo)[0]
    const next = { role: 'user' as const, content: [{ type: 'text' as const, text: 'go on' }] }
    const second = runWireStages([toolNamesStage], [message, next], { ...ctx(toWire), turn: 2 }, memo)
    expect(second[0]).toBe(first)
    expect(second[1]).toBe(next)
    const grown = { role: 'assistant' as const, content: [...message.content, { type: 'tool_call' as const, id: '2', name: 'read_file', input: {} }] }
    const third = runWireStages([toolNamesStage], [grown], ctx(toWire), memo)[0]
    expect(third).not.toBe(first)
    expect(third.content.map(block => block.type === 'tool_call' && block.name)).toEqual(['Read', 'Read'])
    expect(runWireStages([toolNamesStage], [message], ctx(name => name === 'read_file' ? 'ReadFile' : name), memo)[0].content[0]).toMatchObject({ name: 'ReadFile' })
  })
})
