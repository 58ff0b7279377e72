import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { openaiCompat } from '../../src/providers/openai-compat'
import { createSession } from '../../src/session'
import { startFakeOpenAI } from '../support/fake-openai'

// Gemini's OpenAI-compatible endpoint signs each tool call
// (`extra_content.google.thought_signature`) and wants the signature back with
// the call; Gemini 3 refuses the next request without it.

const lookup = tool({ name: 'lookup', description: 'Look up', input: z.object({ q: z.string() }), execute: ({ q }) => `found ${q}` })

/** A streamed turn whose only tool call carries a signature. */
function signedCall(signature: string) {
  return {
    type: 'chunks' as const,
    chunks: [
      { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' }, extra_content: { google: { thought_signature: signature } } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":"x"}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 5, completion_tokens: 2 } },
    ],
  }
}

describe('gemini thought signatures on tool calls', () => {
  let fake: FakeOpenAI
  beforeEach(async () => {
    fake = await startFakeOpenAI()
  })
  afterEach(async () => {
    await fake.close()
  })

  async function run(model: string) {
    fake.enqueue(signedCall('c2lnbmF0dXJl'), { type: 'turn', turn: { text: 'done' } })
    const session = await createSession()
    const provider = openaiCompat({ baseURL: fake.url, defaultModel: model, name: 'gemini' })
    await createAgent({ provider, session, tools: { lookup } }).run({ prompt: 'go' })
    const assistant = (fake.requests[1].body as { messages: { role: string, tool_calls?: unknown[] }[] }).messages.find(message => message.role === 'assistant')!
    const recorded = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_call')
    return { sent: assistant.tool_calls![0] as Record<string, unknown>, recorded }
  }

  it('are recorded on the call and sent back to the Gemini model with it', async () => {
    const { sent, recorded } = await run('gemini-3-pro-preview')
    expect(recorded).toMatchObject({ id: 'call_1', name: 'lookup', input: { q: 'x' }, signature: 'c2lnbmF0dXJl', signatureProducer: 'gemini' })
    expect(sent).toMatchObject({ id: 'call_1', function: { name: 'lookup' }, extra_content: { google: { thought_signature: 'c2lnbmF0dXJl' } } })
  })

  it('are not sent to a model that is not Gemini', async () => {
    const { sent, recorded } = await run('some-other-model')
    expect(recorded).toMatchObject({ signatureProducer: 'gemini' })
    expect(sent).not.toHaveProperty('extra_content')
  })
})
