import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { repairToolPairing, SYNTHETIC_TOOL_RESULT_PLACEHOLDER } from '../../src/wire/pairing'
import { assistant, call, freezeMessages, isToolBlock, pairingViolations, result, text, user } from './pairing-support'

// A well-paired conversation: a prompt, then steps of assistant message (maybe
// with calls) answered by a user message, sometimes followed by a steer.
const stepArb = fc.record({
  calls: fc.integer({ min: 0, max: 3 }),
  reverseResults: fc.boolean(),
  trailingText: fc.boolean(),
  thinking: fc.boolean(),
  steer: fc.boolean(),
})

const conversationArb = fc.array(stepArb, { minLength: 1, maxLength: 6 }).map((steps) => {
  const messages: SessionMessage[] = [user(text('prompt'))]
  steps.forEach((step, i) => {
    const ids = Array.from({ length: step.calls }, (_, k) => `c${i}-${k}`)
    const reasoning: SessionContentBlock[] = step.thinking ? [{ type: 'thinking', text: `think ${i}`, signature: `sig${i}` }] : []
    messages.push(assistant(...reasoning, text(`assistant ${i}`), ...ids.map(id => call(id))))
    const results = ids.map(id => result(id))
    if (step.reverseResults)
      results.reverse()
    if (ids.length > 0)
      messages.push(user(...results, ...(step.trailingText ? [text(`after ${i}`)] : [])))
    else if (i < steps.length - 1)
      messages.push(user(text(`reply ${i}`)))
    if (step.steer && messages.at(-1)!.role === 'user')
      messages.push(user(text(`steer ${i}`)))
  })
  return messages
})

const n = fc.nat({ max: 50 })
const corruptionArb = fc.oneof(
  fc.record({ kind: fc.constant('drop-result' as const), at: n }),
  fc.record({ kind: fc.constant('drop-call' as const), at: n }),
  fc.record({ kind: fc.constant('reuse-id' as const), at: n, into: n, withResult: fc.boolean() }),
  fc.record({ kind: fc.constant('move-result-later' as const), at: n, into: n, pos: n }),
  fc.record({ kind: fc.constant('stray-result' as const), into: n, pos: n, known: fc.boolean(), at: n }),
  fc.record({ kind: fc.constant('duplicate-result' as const), at: n }),
  fc.record({ kind: fc.constant('drop-message' as const), at: n }),
  fc.record({ kind: fc.constant('call-in-user' as const), into: n, at: n }),
)
type Corruption = typeof corruptionArb extends fc.Arbitrary<infer T> ? T : never

interface Site { m: number, b: number }

function sites(messages: SessionMessage[], type: 'tool_call' | 'tool_result'): Site[] {
  return messages.flatMap((message, m) => message.content.flatMap((block, b) => block.type === type ? [{ m, b }] : []))
}

function pick<T>(list: T[], at: number): T | undefined {
  return list.length === 0 ? undefined : list[at % list.length]
}

/** Apply corruptions to a copy (new messages and content arrays, same blocks). */
function corrupt(input: readonly SessionMessage[], corruptions: readonly Corruption[]): SessionMessage[] {
  const messages = input.map(message => ({ role: message.role, content: [...message.content] }))
  let stray = 0
  for (const c of corruptions) {
    const indexes = (role?: 'user' | 'assistant') => messages.flatMap((message, i) => !role || message.role === role ? [i] : [])
    switch (c.kind) {
      case 'drop-result':
      case 'drop-call':
      case 'duplicate-result': {
        const site = pick(sites(messages, c.kind === 'drop-call' ? 'tool_call' : 'tool_result'), c.at)
        if (!site)
          break
        const content = messages[site.m].content
        if (c.kind === 'duplicate-result')
          content.splice(site.b + 1, 0, content[site.b])
        else
          content.splice(site.b, 1)
        break
      }
      case 'reuse-id': {
        const site = pick(sites(messages, 'tool_call'), c.at)
        const target = pick(indexes('assistant'), c.into)
        if (!site || target === undefined)
          break
        const id = (messages[site.m].content[site.b] as { id: string }).id
        messages[target].content.push(call(id, 'reused'))
        if (c.withResult && messages[target + 1]?.role === 'user')
          messages[target + 1].content.unshift(result(id, 'reused result'))
        break
      }
      case 'move-result-later': {
        const site = pick(sites(messages, 'tool_result'), c.at)
        if (!site)
          break
        const [block] = messages[site.m].content.splice(site.b, 1)
        const later = messages.length - site.m
        const target = site.m + 1 + (c.into % later)
        if (target >= messages.length)
          messages.push(user(block))
        else
          messages[target].content.splice(c.pos % (messages[target].content.length + 1), 0, block)
        break
      }
      case 'stray-result': {
        const target = pick(indexes(), c.into)
        const known = pick(sites(messages, 'tool_call'), c.at)
        if (target === undefined)
          break
        const id = c.known && known ? (messages[known.m].content[known.b] as { id: string }).id : `stray-${stray++}`
        messages[target].content.splice(c.pos % (messages[target].content.length + 1), 0, result(id, 'stray'))
        break
      }
      case 'drop-message': {
        if (messages.length > 0)
          messages.splice(c.at % messages.length, 1)
        break
      }
      case 'call-in-user': {
        const target = pick(indexes('user'), c.into)
        const known = pick(sites(messages, 'tool_call'), c.at)
        if (target !== undefined)
          messages[target].content.push(call(known ? (messages[known.m].content[known.b] as { id: string }).id : 'user-call'))
        break
      }
    }
  }
  return messages
}

const nonTool = (messages: readonly SessionMessage[]) => messages.flatMap(message => message.content.filter(block => !isToolBlock(block)))

describe('repairToolPairing properties', () => {
  it('leaves valid conversations alone: zero repairs, the same message objects', () => {
    fc.assert(fc.property(conversationArb, (messages) => {
      expect(pairingViolations(messages)).toEqual([])
      const out = repairToolPairing(freezeMessages(messages))
      expect(out.repairs).toEqual([])
      expect(out.messages).toHaveLength(messages.length)
      out.messages.forEach((message, i) => expect(message).toBe(messages[i]))
    }), { numRuns: 200 })
  })

  it('restores the invariant after random corruption, idempotently, without losing non-tool content', () => {
    fc.assert(fc.property(conversationArb, fc.array(corruptionArb, { minLength: 1, maxLength: 6 }), (valid, corruptions) => {
      const input = freezeMessages(corrupt(valid, corruptions))
      const out = repairToolPairing(input)

      expect(pairingViolations(out.messages)).toEqual([])
      // Repairs are reported exactly when the input was broken.
      expect(out.repairs.length === 0).toBe(pairingViolations(input).length === 0)
      for (const repair of out.repairs)
        expect(repair.messageIndex).toBeLessThan(input.length)

      // Idempotent: the output needs nothing more and comes back as the same objects.
      const again = repairToolPairing(out.messages)
      expect(again.repairs).toEqual([])
      again.messages.forEach((message, i) => expect(message).toBe(out.messages[i]))

      // Non-tool content survives, in order, as the same blocks.
      const before = nonTool(input)
      const after = nonTool(out.messages)
      expect(after).toHaveLength(before.length)
      after.forEach((block, i) => expect(block).toBe(before[i]))

      // Tool blocks come from the input, apart from synthetic results; the first
      // assistant-side call of each id is the one kept.
      const inputBlocks = new Set(input.flatMap(message => message.content))
      for (const block of out.messages.flatMap(message => message.content)) {
        if (block.type === 'tool_result' && !inputBlocks.has(block))
          expect(block).toEqual({ type: 'tool_result', callId: block.callId, output: SYNTHETIC_TOOL_RESULT_PLACEHOLDER, isError: true })
        else
          expect(inputBlocks.has(block)).toBe(true)
      }
      const firstCalls = new Map<string, SessionContentBlock>()
      for (const message of input) {
        for (const block of message.content) {
          if (message.role === 'assistant' && block.type === 'tool_call' && !firstCalls.has(block.id))
            firstCalls.set(block.id, block)
        }
      }
      const keptCalls = out.messages.flatMap(message => message.content.filter(block => block.type === 'tool_call'))
      expect(new Set(keptCalls)).toEqual(new Set(firstCalls.values()))

      // Pure: the same input gives the same output.
      expect(repairToolPairing(input)).toEqual(out)
    }), { numRuns: 500 })
  })

  it('reports one synthesized result per dropped result when only results are lost', () => {
    fc.assert(fc.property(conversationArb, fc.array(n, { minLength: 1, maxLength: 4 }), (valid, picks) => {
      const input = corrupt(valid, picks.map(at => ({ kind: 'drop-result' as const, at })))
      const lost = sites(valid, 'tool_result').length - sites(input, 'tool_result').length
      const out = repairToolPairing(input)
      expect(out.repairs).toHaveLength(lost)
      expect(out.repairs.every(r => r.kind === 'orphan-tool-call' && r.action === 'synthesized')).toBe(true)
    }), { numRuns: 200 })
  })
})
