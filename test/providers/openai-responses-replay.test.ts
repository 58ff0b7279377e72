import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeReasoningSignature, responsesInput } from '../../src/providers/openai/responses'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { assistant, recordCallbacks, responsesOptions, streamAgainst, text, user } from './openai-responses-fixtures'

function thinking(id: string, next: Parameters<typeof encodeReasoningSignature>[0]['next'], summary = ''): SessionContentBlock {
  return { type: 'thinking', text: summary, signature: encodeReasoningSignature({ id, encryptedContent: `enc-${id}`, next }), signatureProducer: 'openai' }
}

function call(id: string): SessionContentBlock {
  return { type: 'tool_call', id, name: 'ls', input: {} }
}

/** Item types with their ids, e.g. `reasoning:rs_1`, `function_call:call_1`, `message:assistant`. */
function shape(messages: SessionMessage[]): string[] {
  return responsesInput(messages, 'openai').map((item) => {
    if (item.type === 'reasoning')
      return `reasoning:${item.id}`
    return item.type === 'message' ? `message:${item.role}` : `${item.type}:${item.call_id}`
  })
}

describe('encrypted reasoning across turns', () => {
  let fake: FakeOpenAI
  beforeEach(async () => {
    fake = await startFakeOpenAI()
  })
  afterEach(async () => {
    await fake.close()
  })

  it('sends each reasoning item back directly before the item that followed it', async () => {
    fake.enqueue(
      { type: 'sse', events: responsesEvents({
        reasoning: { id: 'rs_turn1', summary: ['Need the listing.'], encryptedContent: 'enc-turn1' },
        toolCalls: [{ name: 'ls', input: { path: '.' }, callId: 'call_ls' }],
      }) },
      { type: 'sse', events: responsesEvents({
        reasoning: { id: 'rs_turn2', summary: ['Two files.'], encryptedContent: 'enc-turn2' },
        text: 'There are two files.',
      }) },
      { type: 'sse', events: responsesEvents({ text: 'You are welcome.' }) },
    )
    const messages: SessionMessage[] = [user(text('What is here?'))]
    const first = await streamAgainst(fake, responsesOptions({ messages: [...messages], thinking: 'medium' }), recordCallbacks().callbacks)
    messages.push({ role: 'assistant', content: first.content }, user({ type: 'tool_result', callId: 'call_ls', output: 'a.ts\nb.ts' }))
    const second = await streamAgainst(fake, responsesOptions({ messages: [...messages], thinking: 'medium' }), recordCallbacks().callbacks)
    messages.push({ role: 'assistant', content: second.content }, user(text('Thanks')))
    await streamAgainst(fake, responsesOptions({ messages: [...messages], thinking: 'medium' }), recordCallbacks().callbacks)

    const secondInput = fake.requests[1].body.input
    expect(secondInput).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is here?' }] },
      { type: 'reasoning', id: 'rs_turn1', encrypted_content: 'enc-turn1', summary: [{ type: 'summary_text', text: 'Need the listing.' }] },
      { type: 'function_call', call_id: 'call_ls', name: 'ls', arguments: '{"path":"."}' },
      { type: 'function_call_output', call_id: 'call_ls', output: 'a.ts\nb.ts' },
    ])

    const thirdInput = fake.requests[2].body.input
    // The earlier turn's items are sent again unchanged, and the new reasoning precedes its message.
    expect(thirdInput.slice(0, 4)).toEqual(secondInput)
    expect(thirdInput.slice(4)).toEqual([
      { type: 'reasoning', id: 'rs_turn2', encrypted_content: 'enc-turn2', summary: [{ type: 'summary_text', text: 'Two files.' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'There are two files.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
    ])
  })
})

describe('follower pairing', () => {
  it('drops a reasoning item whose function call is gone', () => {
    const messages = [user(text('hi')), assistant(thinking('rs_1', { type: 'function_call', callId: 'call_gone' }), text('Anyway.'))]
    expect(shape(messages)).toEqual(['message:user', 'message:assistant'])
  })

  it('drops a reasoning item whose message is gone, even when a later message exists', () => {
    const messages = [assistant(thinking('rs_1', { type: 'message' }), call('call_1'), text('After the call.'))]
    expect(shape(messages)).toEqual(['function_call:call_1', 'message:assistant'])
  })

  it('drops reasoning with no recorded follower (the turn ended inside it)', () => {
    expect(shape([assistant(text('Before.'), thinking('rs_end', undefined))])).toEqual(['message:assistant'])
  })

  it('finds a function-call follower by its id when other items were placed in between', () => {
    const messages = [assistant(thinking('rs_b', { type: 'function_call', callId: 'call_b' }), call('call_a'), call('call_b'))]
    expect(shape(messages)).toEqual(['function_call:call_a', 'reasoning:rs_b', 'function_call:call_b'])
  })

  it('pairs each of several reasoning items with its own follower', () => {
    const messages = [assistant(
      thinking('rs_1', { type: 'message' }),
      text('Let me check.'),
      thinking('rs_2', { type: 'function_call', callId: 'call_1' }),
      call('call_1'),
    )]
    expect(shape(messages)).toEqual(['reasoning:rs_1', 'message:assistant', 'reasoning:rs_2', 'function_call:call_1'])
  })

  it('never sends two reasoning items in a row: only the nearer one keeps the shared follower', () => {
    const messages = [assistant(thinking('rs_far', { type: 'message' }), thinking('rs_near', { type: 'message' }), text('Answer.'))]
    expect(shape(messages)).toEqual(['reasoning:rs_near', 'message:assistant'])
  })

  it('does not look for followers across messages', () => {
    const messages = [
      assistant(thinking('rs_1', { type: 'function_call', callId: 'call_1' })),
      user(text('interrupt')),
      assistant(call('call_1')),
    ]
    expect(shape(messages)).toEqual(['message:user', 'function_call:call_1'])
  })
})
