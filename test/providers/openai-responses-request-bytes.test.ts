import type { SessionMessage } from '../../src/core/content'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { openai } from '../../src/providers/openai'
import { responsesInput } from '../../src/providers/openai/responses'
import { startFakeOpenAI } from '../support/fake-openai'
import { lookupTool } from '../support/lookup-tool'
import { responsesEvents } from '../support/openai-responses-sse'

/**
 * The Responses provider writes each request's JSON itself, each input
 * item's and tool's piece remembered from turn to turn
 * (`src/providers/shared/body-json.ts`), and hands the `openai` client the
 * finished bytes. What reaches the server must be what the client would
 * have sent for the body object, with its credentials; each request must
 * repeat the previous one's items byte for byte; and a message is converted
 * again whenever what it was built from changed.
 */

let fake: FakeOpenAI
beforeEach(async () => {
  fake = await startFakeOpenAI()
})
afterEach(async () => {
  await fake.close()
})

const lookup = lookupTool

describe('the bytes of a Responses request', () => {
  it('are JSON.stringify output of the body, sent as JSON with the client\'s credentials, and grow by what each turn added', async () => {
    fake.enqueue(
      { type: 'sse', events: responsesEvents({ text: 'Looking.', toolCalls: [{ name: 'lookup', input: { word: 'caf\u00E9' }, callId: 'call_1' }], model: 'gpt-5.2' }) },
      { type: 'sse', events: responsesEvents({ toolCalls: [{ name: 'lookup', input: { word: 'line\nbreak' }, callId: 'call_2' }, { name: 'lookup', input: { word: '\u2028' }, callId: 'call_3' }], model: 'gpt-5.2' }) },
      { type: 'sse', events: responsesEvents({ text: 'Done.', model: 'gpt-5.2' }) },
    )
    const agent = createAgent({ provider: openai({ baseURL: fake.url, apiKey: 'test-key', api: 'responses', defaultModel: 'gpt-5.2' }), tools: { lookup }, system: 'Be brief.' })
    const stats = await agent.run({ prompt: 'Look up three words.' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Done.')

    expect(fake.requests).toHaveLength(3)
    for (const request of fake.requests) {
      expect(request.path).toBe('/v1/responses')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers.authorization).toBe('Bearer test-key')
      expect(JSON.stringify(JSON.parse(request.raw))).toBe(request.raw)
      expect(request.body).toMatchObject({ model: 'gpt-5.2', instructions: 'Be brief.', store: false, stream: true })
      expect(request.body.tools).toEqual([{ type: 'function', name: 'lookup', description: 'Look a word up', parameters: lookup.spec.inputSchema, strict: false }])
    }
    for (let i = 1; i < fake.requests.length; i++) {
      const before = fake.requests[i - 1].body.input as unknown[]
      const after = fake.requests[i].body.input as unknown[]
      expect(after.slice(0, before.length).map(item => JSON.stringify(item))).toEqual(before.map(item => JSON.stringify(item)))
      expect(after.length).toBeGreaterThan(before.length)
    }
    // A lone surrogate in a tool's output is made well-formed before the wire: never broken UTF-8 in the body.
    expect(fake.requests[1].raw).toContain('back \uFFFD')
    expect(fake.requests[2].body.input).toContainEqual({ type: 'function_call', call_id: 'call_3', name: 'lookup', arguments: JSON.stringify({ word: '\u2028' }) })
  })
})

describe('a message\'s input items', () => {
  const conversation = (): SessionMessage[] => [
    { role: 'user', content: [{ type: 'text', text: 'Look it up.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_call', id: 'call_1', name: 'lookup', input: { word: 'tea' } }] },
    { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', output: 'a drink' }] },
  ]

  it('are the same objects on the next request while the message is unchanged, so their JSON is reused', () => {
    const messages = conversation()
    const first = responsesInput(messages, 'openai')
    const second = responsesInput(messages, 'openai')
    expect(second).toEqual(first)
    second.forEach((item, i) => expect(item).toBe(first[i]))
  })

  it('are built again when a message\'s content array was changed in place, or answers other calls', () => {
    const messages = conversation()
    const first = responsesInput(messages, 'openai')
    messages[0].content.push({ type: 'text', text: 'Quickly.' })
    const second = responsesInput(messages, 'openai')
    expect(second[0]).not.toBe(first[0])
    expect(second[0]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look it up.' }, { type: 'input_text', text: 'Quickly.' }] })
  })

  it('are built again when the results answer a different assistant message', () => {
    const results: SessionMessage = { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', output: 'a drink' }, { type: 'tool_result', callId: 'call_2', output: 'white' }] }
    const asked = (...ids: string[]): SessionMessage => ({ role: 'assistant', content: ids.map(id => ({ type: 'tool_call' as const, id, name: 'lookup', input: {} })) })
    const outputs = (messages: SessionMessage[]) => responsesInput(messages, 'openai').filter(item => item.type === 'function_call_output').map(item => item.call_id)
    // Results go out in the order of the calls they answer; the unchanged results message follows that order.
    expect(outputs([asked('call_1', 'call_2'), results])).toEqual(['call_1', 'call_2'])
    expect(outputs([asked('call_2', 'call_1'), results])).toEqual(['call_2', 'call_1'])
  })

  it('are not kept when they carry an image, so no second copy of its data stays alive', () => {
    const messages: SessionMessage[] = [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'text', text: 'What is this?' }] }]
    const first = responsesInput(messages, 'openai')
    const second = responsesInput(messages, 'openai')
    expect(second).toEqual(first)
    expect(second[0]).not.toBe(first[0])
  })
})
