import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildAnthropicRequest, THINKING_BINDING_BETA, wireMessages } from '../../src/providers/anthropic/wire'
import { requestBodyBytes } from '../../src/providers/shared/body-json'
import { streamOptions } from './anthropic-fixtures'

/**
 * `wireMessages` keeps what it built for a conversation and rebuilds only the
 * messages after the unchanged part. Whatever happens between two requests
 * (turns appended, a message replaced, the view cut short, blocks edited in
 * place, a side call that shares the first message), the result must be what a
 * build from scratch gives: here, a build of a deep copy, which shares no
 * object with anything built before.
 */

const CACHE = { type: 'ephemeral' as const }

function fresh(messages: readonly SessionMessage[]): SessionMessage[] {
  return structuredClone(messages) as SessionMessage[]
}

let ids = 0
function blockArb(): fc.Arbitrary<SessionContentBlock> {
  return fc.oneof(
    fc.string({ maxLength: 6 }).map(text => ({ type: 'text', text }) as SessionContentBlock),
    fc.constant(null).map(() => ({ type: 'tool_call', id: `toolu_${++ids}`, name: 'read_note', input: { path: `p${ids}` } }) as SessionContentBlock),
    fc.nat(4).map(back => ({ type: 'tool_result', callId: `toolu_${Math.max(1, ids - back)}`, output: `out ${back}` }) as SessionContentBlock),
  )
}

const messageArb: fc.Arbitrary<SessionMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(blockArb(), { maxLength: 3 }),
}).map(({ role, content }) => ({
  role,
  // Tool calls only in assistant messages, results only in user ones, as the loop records them.
  content: content.filter(block => role === 'assistant' ? block.type !== 'tool_result' : block.type !== 'tool_call'),
}))

type Step
  = | { kind: 'append', messages: SessionMessage[] }
    | { kind: 'replace', at: number, message: SessionMessage }
    | { kind: 'cut', keep: number }
    | { kind: 'edit-in-place', at: number, block: SessionContentBlock }
    | { kind: 'side-call', extra: SessionMessage }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.array(messageArb, { minLength: 1, maxLength: 3 }).map(messages => ({ kind: 'append' as const, messages })),
  fc.record({ at: fc.nat(40), message: messageArb }).map(step => ({ kind: 'replace' as const, ...step })),
  fc.nat(40).map(keep => ({ kind: 'cut' as const, keep })),
  fc.record({ at: fc.nat(40), block: blockArb() }).map(step => ({ kind: 'edit-in-place' as const, ...step })),
  messageArb.map(extra => ({ kind: 'side-call' as const, extra })),
)

describe('wireMessages across the requests of one conversation', () => {
  it('builds what a build from scratch builds, whatever changed since the last request', () => {
    fc.assert(fc.property(messageArb, fc.array(stepArb, { minLength: 1, maxLength: 25 }), (first, steps) => {
      // The first message stays the same object, as in a run: it is what the kept build is found by.
      let view: SessionMessage[] = [first.content.length > 0 ? first : { role: 'user', content: [{ type: 'text', text: 'go' }] }]
      for (const step of steps) {
        if (step.kind === 'append') {
          view = [...view, ...step.messages]
        }
        else if (step.kind === 'replace' && view.length > 1) {
          const at = 1 + step.at % (view.length - 1)
          view = view.map((message, index) => index === at ? step.message : message)
        }
        else if (step.kind === 'cut') {
          view = view.slice(0, 1 + step.keep % view.length)
        }
        else if (step.kind === 'edit-in-place') {
          // A host that edits a recorded message's blocks in place: the edit must reach the next request.
          const target = view[step.at % view.length]
          if (target.content.length > 0)
            (target.content as SessionContentBlock[])[0] = step.block
          else
            (target.content as SessionContentBlock[]).push(step.block)
        }
        else if (step.kind === 'side-call') {
          // Another request over the same first message (a summary call): the next turn must not see its message.
          expect(wireMessages([...view, step.extra], CACHE)).toEqual(wireMessages(fresh([...view, step.extra]), CACHE))
        }
        const sent = wireMessages(view, CACHE)
        expect(sent).toEqual(wireMessages(fresh(view), CACHE))
        // The bytes too: each wire message's JSON is remembered by its object, so a stale one would show here.
        expect(new TextDecoder('utf-8', { fatal: true }).decode(requestBodyBytes({ model: 'm', messages: sent }, ['messages'], { stream: true }))).toBe(JSON.stringify({ model: 'm', messages: wireMessages(fresh(view), CACHE), stream: true }))
      }
    }), { numRuns: 300 })
  })

  it('asks for the thinking-binding beta exactly when a request sends thinking back, across edits and cuts', () => {
    const thinking = fc.record({
      signed: fc.boolean(),
      redacted: fc.boolean(),
    }).map(({ signed, redacted }): SessionContentBlock => redacted
      ? { type: 'redacted_thinking', data: 'opaque' }
      : { type: 'thinking', text: 'hmm', ...(signed ? { signature: 'sig' } : {}) })
    const turn = fc.record({ think: fc.option(thinking, { nil: undefined }), text: fc.string({ minLength: 1, maxLength: 4 }) })
      .map(({ think, text }): SessionMessage => ({ role: 'assistant', content: think ? [think, { type: 'text', text }] : [{ type: 'text', text }] }))
    const step = fc.oneof(
      turn.map(message => ({ kind: 'append' as const, message })),
      fc.nat(20).map(keep => ({ kind: 'cut' as const, keep })),
      fc.record({ at: fc.nat(20), message: turn }).map(replace => ({ kind: 'replace' as const, ...replace })),
    )
    const sendsThinking = (messages: readonly SessionMessage[]): boolean =>
      buildAnthropicRequest(streamOptions({ messages: fresh(messages) })).body.messages.some(message =>
        typeof message.content !== 'string' && message.content.some(block => block.type === 'thinking' || block.type === 'redacted_thinking'))
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 20 }), (steps) => {
      let view: SessionMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }]
      for (const next of steps) {
        if (next.kind === 'append')
          view = [...view, next.message, { role: 'user', content: [{ type: 'text', text: 'more' }] }]
        else if (next.kind === 'cut')
          view = view.slice(0, 1 + next.keep % view.length)
        else if (view.length > 1)
          view = view.map((message, index) => index === 1 + next.at % (view.length - 1) && message.role === 'assistant' ? next.message : message)
        const { betas } = buildAnthropicRequest(streamOptions({ messages: view }))
        expect(betas.includes(THINKING_BINDING_BETA)).toBe(sendsThinking(view))
      }
    }), { numRuns: 200 })
  })

  it('never edits what an earlier request was sent', () => {
    const user = (text: string): SessionMessage => ({ role: 'user', content: [{ type: 'text', text }] })
    const assistant = (text: string): SessionMessage => ({ role: 'assistant', content: [{ type: 'text', text }] })
    const view: SessionMessage[] = [user('a'), assistant('b')]
    const sent = wireMessages(view, CACHE)
    const bytes = JSON.stringify(sent)
    // Two user messages in a row merge into one wire message, and the breakpoint moves: neither may touch `sent`.
    wireMessages([...view, user('c'), user('d')], CACHE)
    wireMessages([...view, assistant('e')], CACHE)
    expect(JSON.stringify(sent)).toBe(bytes)
  })

  it('reuses the wire messages of the unchanged part instead of building them again', () => {
    const view: SessionMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }]
    for (let i = 0; i < 5; i++) {
      view.push({ role: 'assistant', content: [{ type: 'tool_call', id: `toolu_${i}`, name: 'read_note', input: {} }] })
      view.push({ role: 'user', content: [{ type: 'tool_result', callId: `toolu_${i}`, output: 'ok' }] })
    }
    const before = wireMessages(view, CACHE)
    const after = wireMessages([...view, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }], CACHE)
    // Every message but the last one sent before (which lost its breakpoint) is the very same object.
    for (let i = 0; i < before.length - 1; i++)
      expect(after[i]).toBe(before[i])
    expect(after[before.length - 1]).not.toBe(before.at(-1))
  })
})
