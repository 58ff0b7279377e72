import type { SessionContentBlock, SessionMessage, SessionTurn } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { filterUnresolvedToolUses, repairToolPairing, SYNTHETIC_TOOL_RESULT_PLACEHOLDER } from '../../src/wire/pairing'
import { pairingProblems } from '../support/helpers'
import { assistant, call, freezeMessages, pairingViolations, result, text, user } from './pairing-support'

const synthetic = (callId: string): SessionContentBlock => ({ type: 'tool_result', callId, output: SYNTHETIC_TOOL_RESULT_PLACEHOLDER, isError: true })

function repair(messages: SessionMessage[]) {
  const out = repairToolPairing(freezeMessages(messages))
  expect(pairingViolations(out.messages)).toEqual([])
  expect(pairingProblems(out.messages)).toEqual([])
  expect(repairToolPairing(out.messages).repairs).toEqual([])
  return out
}

describe('repairToolPairing', () => {
  it('returns a well-paired conversation as the same objects with no repairs', () => {
    const input = [
      user(text('go')),
      assistant(text('reading'), call('a'), call('b')),
      user(result('b'), result('a'), text('also this')),
      user(text('steer')),
      assistant(text('done')),
    ]
    const out = repair(input)
    expect(out.repairs).toEqual([])
    expect(out.messages).not.toBe(input)
    out.messages.forEach((message, i) => expect(message).toBe(input[i]))
  })

  it('answers an orphan call with a synthetic error result in the existing follow-up, after its results', () => {
    const input = [user(text('go')), assistant(call('a'), call('b')), user(result('b'), text('note'))]
    const out = repair(input)
    expect(out.repairs).toEqual([{ kind: 'orphan-tool-call', action: 'synthesized', callId: 'a', messageIndex: 1 }])
    expect(out.messages[0]).toBe(input[0])
    expect(out.messages[1]).toBe(input[1])
    expect(out.messages[2].content).toEqual([result('b'), synthetic('a'), text('note')])
  })

  it('creates the follow-up user message when the call is last or followed by an assistant message', () => {
    const out = repair([user(text('go')), assistant(call('a')), assistant(text('x'), call('b'), call('c'))])
    expect(out.messages).toEqual([
      user(text('go')),
      assistant(call('a')),
      user(synthetic('a')),
      assistant(text('x'), call('b'), call('c')),
      user(synthetic('b'), synthetic('c')),
    ])
    expect(out.repairs.map(r => [r.kind, r.callId, r.messageIndex])).toEqual([
      ['orphan-tool-call', 'a', 1],
      ['orphan-tool-call', 'b', 2],
      ['orphan-tool-call', 'c', 2],
    ])
  })

  it('drops an orphan result, and the message when nothing else is left', () => {
    const input = [user(result('ghost'), text('hi')), assistant(text('hello')), user(result('nope'))]
    const out = repair(input)
    expect(out.messages).toEqual([user(text('hi')), assistant(text('hello'))])
    expect(out.repairs).toEqual([
      { kind: 'orphan-tool-result', action: 'dropped', callId: 'ghost', messageIndex: 0 },
      { kind: 'orphan-tool-result', action: 'dropped', callId: 'nope', messageIndex: 2 },
    ])
  })

  it('treats a result placed before its call, or in the call\'s own message, as an orphan', () => {
    const out = repair([user(result('a')), assistant(call('a'), result('a')), user(result('a'))])
    expect(out.messages).toEqual([assistant(call('a')), user(result('a'))])
    expect(out.repairs.map(r => [r.kind, r.messageIndex])).toEqual([['orphan-tool-result', 0], ['orphan-tool-result', 1]])
  })

  it('drops a later call reusing an id together with its result, and keeps the first pair', () => {
    const input = [
      user(text('go')),
      assistant(call('a')),
      user(result('a', 'first')),
      assistant(text('again'), call('a')),
      user(result('a', 'second'), text('keep me')),
      assistant(call('a')),
      user(result('a', 'third')),
    ]
    const out = repair(input)
    expect(out.messages).toEqual([
      user(text('go')),
      assistant(call('a')),
      user(result('a', 'first')),
      assistant(text('again')),
      user(text('keep me')),
    ])
    expect(out.messages[2]).toBe(input[2])
    expect(out.repairs).toEqual([
      { kind: 'duplicate-tool-call', action: 'dropped', callId: 'a', messageIndex: 3 },
      { kind: 'duplicate-tool-call', action: 'dropped', callId: 'a', messageIndex: 5 },
    ])
  })

  it('does not pair the first call with a duplicate call\'s result: the first gets a synthetic result', () => {
    const out = repair([assistant(call('a')), user(text('lost')), assistant(call('a')), user(result('a', 'for the second'))])
    expect(out.messages).toEqual([assistant(call('a')), user(synthetic('a'), text('lost'))])
    expect(out.repairs.map(r => r.kind)).toEqual(['orphan-tool-call', 'duplicate-tool-call'])
  })

  it('handles a duplicate id inside one message: the second call and the second result go', () => {
    const out = repair([assistant(call('a', 'x'), call('a', 'y')), user(result('a', '1'), result('a', '2'))])
    expect(out.messages).toEqual([assistant(call('a', 'x')), user(result('a', '1'))])
    expect(out.repairs).toEqual([{ kind: 'duplicate-tool-call', action: 'dropped', callId: 'a', messageIndex: 0 }])
  })

  it('keeps the first of two results for one call', () => {
    const out = repair([assistant(call('a')), user(result('a', '1'), text('t'), result('a', '2'))])
    expect(out.messages).toEqual([assistant(call('a')), user(result('a', '1'), text('t'))])
    expect(out.repairs).toEqual([{ kind: 'duplicate-tool-result', action: 'dropped', callId: 'a', messageIndex: 1 }])
  })

  it('moves a stranded result next to its call when the follow-up lacks it', () => {
    const input = [
      user(text('go')),
      assistant(call('a'), call('b')),
      user(result('b'), text('after b')),
      assistant(text('mid')),
      user(text('q'), result('a')),
    ]
    const out = repair(input)
    expect(out.messages).toEqual([
      user(text('go')),
      assistant(call('a'), call('b')),
      user(result('b'), result('a'), text('after b')),
      assistant(text('mid')),
      user(text('q')),
    ])
    expect(out.repairs).toEqual([{ kind: 'stranded', action: 'moved', callId: 'a', messageIndex: 4 }])
  })

  it('moves a stranded result into a created follow-up when the call is followed by an assistant message', () => {
    const out = repair([assistant(call('a')), assistant(text('x')), user(result('a'))])
    expect(out.messages).toEqual([assistant(call('a')), user(result('a')), assistant(text('x'))])
    expect(out.repairs).toEqual([{ kind: 'stranded', action: 'moved', callId: 'a', messageIndex: 2 }])
  })

  it('drops a stranded result when the call is already answered', () => {
    const out = repair([assistant(call('a')), user(result('a', '1')), assistant(text('x')), user(result('a', '2'))])
    expect(out.messages).toEqual([assistant(call('a')), user(result('a', '1')), assistant(text('x'))])
    expect(out.repairs).toEqual([{ kind: 'stranded', action: 'dropped', callId: 'a', messageIndex: 3 }])
  })

  it('moves a result found in an assistant message, and drops a call found in a user message', () => {
    const out = repair([assistant(call('a')), assistant(result('a'), text('x')), user(call('u'), text('y'))])
    expect(out.messages).toEqual([assistant(call('a')), user(result('a')), assistant(text('x')), user(text('y'))])
    expect(out.repairs).toEqual([
      { kind: 'stranded', action: 'moved', callId: 'a', messageIndex: 1 },
      { kind: 'orphan-tool-call', action: 'dropped', callId: 'u', messageIndex: 2 },
    ])
  })

  it('orders inserted results by their calls and leaves messages it did not touch as the same objects', () => {
    const input = [
      user(text('go')),
      assistant(call('a'), call('b'), call('c')),
      user(result('b')),
      assistant(text('t')),
      user(result('c')),
      assistant(text('end')),
    ]
    const out = repair(input)
    expect(out.messages[2].content).toEqual([result('b'), synthetic('a'), result('c')])
    expect(out.messages[0]).toBe(input[0])
    expect(out.messages[1]).toBe(input[1])
    expect(out.messages[3]).toBe(input[3])
    expect(out.messages.at(-1)).toBe(input[5])
  })

  it('keeps a message that was empty to begin with', () => {
    const input = [user(), assistant(text('x'))]
    const out = repair(input)
    expect(out.repairs).toEqual([])
    expect(out.messages[0]).toBe(input[0])
  })
})

function turn(id: string, role: SessionTurn['role'], content: SessionTurn['content']): SessionTurn {
  return { id, role, content, createdAt: 0 }
}

describe('filterUnresolvedToolUses', () => {
  it('removes the last assistant turn\'s calls that no later turn answered, keeping the answered ones', () => {
    const turns = [
      turn('1', 'user', [text('go')]),
      turn('2', 'assistant', [text('running'), call('a'), call('b')]),
      turn('3', 'user', [result('a')]),
      turn('4', 'system', [text('note')]),
    ]
    const out = filterUnresolvedToolUses(Object.freeze(turns))
    expect(out).toHaveLength(4)
    expect(out[1]).toEqual({ ...turns[1], content: [text('running'), call('a')] })
    expect(turns[1].content).toHaveLength(3)
    expect(out[0]).toBe(turns[0])
    expect(out[2]).toBe(turns[2])
    expect(out[3]).toBe(turns[3])
  })

  it('drops the whole turn when only reasoning would be left, and invents no result', () => {
    const turns = [
      turn('1', 'user', [text('go')]),
      turn('2', 'assistant', [{ type: 'thinking', text: 'hmm', signature: 's' }, call('a')]),
      turn('3', 'command', [text('/status')]),
    ]
    const out = filterUnresolvedToolUses(turns)
    expect(out.map(t => t.id)).toEqual(['1', '3'])
    expect(out.flatMap(t => t.content).some(block => block.type === 'tool_result')).toBe(false)
  })

  it('leaves turns alone when the last assistant turn is resolved or has no calls', () => {
    const resolved = [turn('1', 'assistant', [call('a')]), turn('2', 'user', [result('a')])]
    const finished = [turn('1', 'assistant', [call('a')]), turn('2', 'assistant', [text('bye')])]
    for (const turns of [resolved, finished, [], [turn('1', 'user', [text('x')])]]) {
      const out = filterUnresolvedToolUses(turns)
      expect(out).toEqual(turns)
      out.forEach((t, i) => expect(t).toBe(turns[i]))
    }
  })

  it('looks only at the last assistant turn; earlier gaps are the wire pass\'s job', () => {
    const turns = [turn('1', 'assistant', [call('a')]), turn('2', 'user', [text('?')]), turn('3', 'assistant', [text('ok')])]
    expect(filterUnresolvedToolUses(turns)).toEqual(turns)
  })

  it('does not count a result from a non-user turn as an answer', () => {
    const turns = [turn('1', 'assistant', [text('t'), call('a')]), turn('2', 'system', [result('a')])]
    expect(filterUnresolvedToolUses(turns)[0].content).toEqual([text('t')])
  })
})
