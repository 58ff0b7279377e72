import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { repairToolPairing } from '../../src/wire/pairing'
import { createPairingCheckpoint, isWellPaired } from '../../src/wire/well-paired'
import { assistant, call, result, text, user } from './pairing-support'

// Few ids, so that reused ids, stray and duplicate results come up often.
const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e')
const blockArb: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.constant(text('t')),
  idArb.map(id => call(id)),
  idArb.map(id => result(id)),
)
const messageArb: fc.Arbitrary<SessionMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(blockArb, { maxLength: 4 }),
})

// Healthy conversations: each step's calls answered (in any order) by the next user message.
const healthyArb = fc.array(fc.record({ calls: fc.nat({ max: 3 }), reverse: fc.boolean(), steer: fc.boolean() }), { maxLength: 8 })
  .map((steps) => {
    const messages: SessionMessage[] = [user(text('prompt'))]
    steps.forEach((step, i) => {
      const ids = Array.from({ length: step.calls }, (_, k) => `c${i}-${k}`)
      messages.push(assistant(text(`step ${i}`), ...ids.map(id => call(id))))
      const results = ids.map(id => result(id))
      if (step.reverse)
        results.reverse()
      messages.push(user(...results, text('next')))
      if (step.steer)
        messages.push(user(text('steer')))
    })
    return messages
  })

// One small edit to a healthy conversation: near misses are where a shortcut would go wrong.
const editArb = fc.record({
  kind: fc.constantFrom('rename-id', 'duplicate-block', 'remove-block', 'flip-role', 'move-block', 'remove-message'),
  message: fc.nat(),
  block: fc.nat(),
  target: fc.nat(),
})

function applyEdit(input: SessionMessage[], edit: typeof editArb extends fc.Arbitrary<infer T> ? T : never): SessionMessage[] {
  const messages = input.map(message => ({ role: message.role, content: [...message.content] }))
  if (messages.length === 0)
    return messages
  const message = messages[edit.message % messages.length]
  const target = messages[edit.target % messages.length]
  const at = message.content.length === 0 ? -1 : edit.block % message.content.length
  switch (edit.kind) {
    case 'rename-id': {
      const block = message.content[at]
      if (block?.type === 'tool_call')
        message.content[at] = call('c0-0')
      else if (block?.type === 'tool_result')
        message.content[at] = result('c0-0')
      break
    }
    case 'duplicate-block':
      if (at >= 0)
        target.content.push(message.content[at])
      break
    case 'remove-block':
      if (at >= 0)
        message.content.splice(at, 1)
      break
    case 'flip-role':
      message.role = message.role === 'user' ? 'assistant' : 'user'
      break
    case 'move-block':
      if (at >= 0)
        target.content.push(...message.content.splice(at, 1))
      break
    case 'remove-message':
      messages.splice(edit.message % messages.length, 1)
      break
  }
  return messages
}

describe('isWellPaired', () => {
  it('says true exactly when the repair pass would find nothing to repair', () => {
    fc.assert(fc.property(fc.array(messageArb, { maxLength: 7 }), (messages) => {
      expect(isWellPaired(messages)).toBe(repairToolPairing(messages).repairs.length === 0)
    }), { numRuns: 3000 })
  })

  it('accepts healthy conversations, whatever order their results come in', () => {
    fc.assert(fc.property(healthyArb, (messages) => {
      expect(repairToolPairing(messages).repairs).toEqual([])
      expect(isWellPaired(messages)).toBe(true)
    }))
  })

  it('agrees with the repair pass on healthy conversations with one edit', () => {
    fc.assert(fc.property(healthyArb, fc.array(editArb, { minLength: 1, maxLength: 2 }), (healthy, edits) => {
      const messages = edits.reduce(applyEdit, healthy)
      expect(isWellPaired(messages)).toBe(repairToolPairing(messages).repairs.length === 0)
    }), { numRuns: 3000 })
  })

  it('rejects the shapes the planner repairs', () => {
    expect(isWellPaired([assistant(call('a'))])).toBe(false)
    expect(isWellPaired([assistant(call('a')), user(result('a')), assistant(call('a')), user(result('a'))])).toBe(false)
    expect(isWellPaired([assistant(call('a')), user(result('a'), result('a'))])).toBe(false)
    expect(isWellPaired([assistant(call('a')), user(text('x')), user(result('a'))])).toBe(false)
    expect(isWellPaired([user(result('a'))])).toBe(false)
    expect(isWellPaired([user(call('a'))])).toBe(false)
    expect(isWellPaired([assistant(call('a'), result('a'))])).toBe(false)
  })

  it('with a checkpoint, answers as a fresh check would, turn after turn', () => {
    fc.assert(fc.property(healthyArb, fc.array(editArb, { maxLength: 2 }), fc.nat(), (healthy, edits, cut) => {
      // Grow the conversation a message or two at a time, as the loop does, then break it somewhere.
      const checkpoint = createPairingCheckpoint()
      for (let length = 1; length <= healthy.length; length += 1 + (cut % 2))
        expect(isWellPaired(healthy.slice(0, length), checkpoint)).toBe(isWellPaired(healthy.slice(0, length)))
      const edited = edits.reduce(applyEdit, healthy)
      expect(isWellPaired(edited, checkpoint)).toBe(repairToolPairing(edited).repairs.length === 0)
      expect(isWellPaired(healthy, checkpoint)).toBe(true)
    }), { numRuns: 2000 })
  })

  it('does not trust a checkpoint whose messages changed', () => {
    const checkpoint = createPairingCheckpoint()
    const messages = [user(text('go')), assistant(call('a')), user(result('a'))]
    expect(isWellPaired(messages, checkpoint)).toBe(true)
    // Same content array, one more block: a reused id the checkpoint has not seen in this position.
    messages[1].content.push(call('b'))
    expect(isWellPaired(messages, checkpoint)).toBe(false)
    messages[1].content.pop()
    expect(isWellPaired(messages, checkpoint)).toBe(true)
    // A message swapped for another with a different role.
    expect(isWellPaired([user(text('go')), user(call('a')), user(result('a'))], checkpoint)).toBe(false)
    // A shorter view than the checkpoint.
    expect(isWellPaired(messages.slice(0, 1), checkpoint)).toBe(true)
    expect(isWellPaired([...messages, assistant(call('a')), user(result('a'))], checkpoint)).toBe(false)
  })
})

describe('isWellPaired on an answer of many calls', () => {
  it('answers for 200,000 calls answered in reverse order in linear time (each result looked up in a set)', () => {
    // With the open calls in a list, each result answered last-first searched the whole list: 2 × 10^10 steps.
    const ids = Array.from({ length: 200_000 }, (_, i) => `call_${i}`)
    // Built without spreading: 200,000 arguments would not fit on the stack.
    const calls: SessionMessage = { role: 'assistant', content: ids.map(id => call(id)) }
    const answers = (list: string[]): SessionMessage => ({ role: 'user', content: list.toReversed().map(id => result(id)) })
    expect(isWellPaired([user(text('prompt')), calls, answers(ids)])).toBe(true)
    expect(isWellPaired([user(text('prompt')), calls, answers(ids.slice(1))])).toBe(false)
  })
})
