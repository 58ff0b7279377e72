import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { openai } from '../../src/providers/openai'
import { openaiCompat, VENDOR_USAGE_FIELDS, wireToolCallId } from '../../src/providers/openai-compat'
import { createSession } from '../../src/session'
import { startFakeOpenAI } from '../support/fake-openai'
import { assistant, chatOptions, recordCallbacks, text, user } from './openai-chat-fixtures'
import { gatewayExtensionUsageStream, groqCompoundStream, mistralStream } from './openai-chat-vendor-fixtures'

// `openaiCompat()` options that change what is read from or sent to the
// server, through the public factory, the official `openai` client and a
// local server speaking the Chat Completions SSE format.

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

describe('usageFields', () => {
  it('reads usage from the fields it names, beside the known vendor ones', async () => {
    const gateway = openaiCompat({ baseURL: fake.url, defaultModel: 'llama-3.3-70b', name: 'gateway', usageFields: [...VENDOR_USAGE_FIELDS, 'x_gateway.usage'] })
    fake.enqueue({ type: 'chunks', chunks: gatewayExtensionUsageStream() }, { type: 'chunks', chunks: groqCompoundStream() })

    const own = await gateway.stream(chatOptions({ model: 'llama-3.3-70b' }), recordCallbacks().callbacks)
    expect(own.content).toEqual([{ type: 'text', text: 'Forty-two.' }])
    expect(own.usage).toMatchObject({ input: 412, output: 5, provider: 'gateway', finishReason: 'stop' })
    // Groq's field is still read, since the list kept it.
    const groq = await gateway.stream(chatOptions({ model: 'groq/compound' }), recordCallbacks().callbacks)
    expect(groq.usage).toMatchObject({ input: 1834, output: 57 })
  })

  it('replaces the default list: Groq\'s field is not read when the list leaves it out', async () => {
    fake.enqueue({ type: 'chunks', chunks: groqCompoundStream() }, { type: 'chunks', chunks: gatewayExtensionUsageStream() })
    const strict = openaiCompat({ baseURL: fake.url, defaultModel: 'groq/compound', usageFields: [] })
    const groq = await strict.stream(chatOptions({ model: 'groq/compound' }), recordCallbacks().callbacks)
    expect(groq.content).toEqual([{ type: 'text', text: 'Paris is the capital.' }])
    expect(groq.usage).toMatchObject({ input: 0, output: 0 })

    // And without the option, a field only a custom list names is not read either.
    const plain = await openaiCompat({ baseURL: fake.url, defaultModel: 'llama-3.3-70b' }).stream(chatOptions({ model: 'llama-3.3-70b' }), recordCallbacks().callbacks)
    expect(plain.usage).toMatchObject({ input: 0, output: 0 })
  })
})

describe('toolCallIds: \'mistral\'', () => {
  const NINE_ALPHANUMERIC = /^[A-Z0-9]{9}$/i
  // What OpenAI mints: `call_` and 24 letters and digits, valid on every other API.
  const OPENAI_ID = 'call_Qm3kVd8sLrT2xWb9nEa4Yh1Z'
  // What Mistral mints.
  const MISTRAL_ID = 'D681PevKs'

  function lookup(log: string[]) {
    return tool({
      name: 'lookup',
      description: 'Look up a word',
      input: z.object({ word: z.string() }),
      execute: ({ word }) => {
        log.push(word)
        return `definition of ${word}`
      },
    })
  }

  it('a conversation started on OpenAI continues on Mistral with nine-character ids on the wire, the same for a call and its result; the session keeps the originals', async () => {
    const looked: string[] = []
    const session = await createSession()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: OPENAI_ID, name: 'lookup', input: { word: 'alpha' } }] } },
      { type: 'turn', turn: { text: 'Alpha is defined.' } },
      { type: 'chunks', chunks: mistralStream({ callId: MISTRAL_ID, name: 'lookup', args: '{"word": "beta"}' }) },
      { type: 'chunks', chunks: mistralStream({ text: ['Beta is ', 'defined too.'] }) },
    )
    const onOpenAI = createAgent({ provider: openai({ apiKey: 'k', baseURL: fake.url, api: 'chat', defaultModel: 'gpt-5.2' }), session, tools: { lookup: lookup(looked) } })
    expect((await onOpenAI.run({ prompt: 'Define alpha.' })).text).toBe('Alpha is defined.')

    const mistral = openaiCompat({ baseURL: fake.url, apiKey: 'k', name: 'mistral', defaultModel: 'mistral-large-latest', toolCallIds: 'mistral' })
    const onMistral = createAgent({ provider: mistral, session, tools: { lookup: lookup(looked) } })
    const stats = await onMistral.run({ prompt: 'Now beta.' })
    expect(stats.text).toBe('Beta is defined too.')
    expect(looked).toEqual(['alpha', 'beta'])
    expect(stats.turnUsage?.[0]).toMatchObject({ provider: 'mistral', finishReason: 'tool-calls', input: 91, output: 28 })

    const [, , firstOnMistral, secondOnMistral] = fake.requests.map(request => request.body)
    const rewritten = wireToolCallId(OPENAI_ID, 'mistral')
    expect(rewritten).toMatch(NINE_ALPHANUMERIC)
    expect(firstOnMistral.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user'])
    expect(firstOnMistral.messages[2].tool_calls.map((c: any) => c.id)).toEqual([rewritten])
    expect(firstOnMistral.messages[3].tool_call_id).toBe(rewritten)

    // Mistral's own id goes back as it came; the earlier one is rewritten the same way again.
    const calls = secondOnMistral.messages.filter((m: any) => m.role === 'assistant' && m.tool_calls).map((m: any) => m.tool_calls[0].id)
    const results = secondOnMistral.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)
    expect(calls).toEqual([rewritten, MISTRAL_ID])
    expect(results).toEqual([rewritten, MISTRAL_ID])
    for (const id of [...calls, ...results])
      expect(id).toMatch(NINE_ALPHANUMERIC)

    const sessionCallIds = session.turns.flatMap(turn => turn.content.flatMap(block => block.type === 'tool_call' ? [block.id] : block.type === 'tool_result' ? [block.callId] : []))
    expect(sessionCallIds).toEqual([OPENAI_ID, OPENAI_ID, MISTRAL_ID, MISTRAL_ID])

    // Without the option, the same history goes out with the OpenAI id as it is.
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const history = [
      user(text('Define alpha.')),
      assistant({ type: 'tool_call', id: OPENAI_ID, name: 'lookup', input: { word: 'alpha' } }),
      user({ type: 'tool_result', callId: OPENAI_ID, output: 'definition of alpha' }),
    ]
    await openaiCompat({ baseURL: fake.url, defaultModel: 'm' }).stream(chatOptions({ model: 'm', messages: history }), recordCallbacks().callbacks)
    const { messages } = fake.requests[4].body
    expect(messages[2].tool_calls[0].id).toBe(OPENAI_ID)
    expect(messages[3].tool_call_id).toBe(OPENAI_ID)
  })
})
