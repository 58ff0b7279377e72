import type { FakeOpenAI, RawSseEvent } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOpenAI } from '../support/fake-openai'
import { recordCallbacks, responsesEvent, responsesOptions, streamAgainst } from './openai-responses-fixtures'

// Gateways that re-emit the Responses API leave fields out or set them to
// null where OpenAI never would; none of that may fail the turn.

let fake: FakeOpenAI

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

/** A reasoning summary, a message and a tool call, with a gateway's gaps in every lifecycle event and finished item. */
function sparseGatewayStream(): RawSseEvent[] {
  return [
    responsesEvent('response.created'),
    responsesEvent('response.in_progress', { response: null }),
    { data: null },
    responsesEvent('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
    responsesEvent('response.reasoning_summary_text.delta', { output_index: 0, item_id: 'rs_1', delta: 'Weighing ' }),
    responsesEvent('response.reasoning_summary_text.delta', { output_index: 0, item_id: 'rs_1', delta: 'options.', summary_index: null }),
    responsesEvent('response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: null } }),
    responsesEvent('response.output_item.added', { output_index: 1, item: null }),
    responsesEvent('response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: null } }),
    responsesEvent('response.output_text.delta', { output_index: 1, item_id: 'msg_1', content_index: 0, delta: 'Calling ' }),
    responsesEvent('response.output_text.delta', { output_index: 1, item_id: 'msg_1', content_index: 0, delta: null }),
    responsesEvent('response.output_text.delta', { output_index: 1, item_id: 'msg_1', content_index: 0, delta: 'the tool.' }),
    responsesEvent('response.output_text.annotation.added', { output_index: 1, annotation: { type: 'url_citation' } }),
    responsesEvent('response.output_item.done', { output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: null } }),
    responsesEvent('response.output_item.added', { output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '' } }),
    responsesEvent('response.function_call_arguments.delta', { output_index: 2, item_id: 'fc_1', delta: '{"word":' }),
    responsesEvent('response.function_call_arguments.delta', { output_index: 2, item_id: 'fc_1', delta: null }),
    responsesEvent('response.function_call_arguments.delta', { output_index: 2, item_id: 'fc_1', delta: '"alpha"}' }),
    responsesEvent('response.output_item.done', { output_index: 2, item: null }),
    responsesEvent('response.completed', {
      response: {
        id: 'resp_1',
        status: 'completed',
        model: 'gpt-5.2',
        output: null,
        usage: { input_tokens: 40, input_tokens_details: null, output_tokens: 12, output_tokens_details: { reasoning_tokens: null } },
      },
    }),
  ]
}

describe('a Responses stream with gaps', () => {
  it('keeps the summary, the text and the tool call, and reports the usage it has', async () => {
    fake.enqueue({ type: 'sse', events: sparseGatewayStream() })
    const rec = recordCallbacks()
    const result = await streamAgainst(fake, responsesOptions(), rec.callbacks)

    expect(rec.thinking.join('')).toBe('Weighing options.')
    expect(rec.texts).toEqual(['Calling ', 'the tool.'])
    expect(result.content).toEqual([
      { type: 'thinking', text: 'Weighing options.' },
      { type: 'text', text: 'Calling the tool.' },
      { type: 'tool_call', id: 'call_1', name: 'lookup', input: { word: 'alpha' } },
    ])
    expect(result.finishReason).toBe('tool-calls')
    expect(result.usage).toMatchObject({ input: 40, output: 12, cacheRead: 0 })
    expect(result.usage.thinking).toBeUndefined()
  })

  it('a completed event without its response still completes the turn', async () => {
    fake.enqueue({
      type: 'sse',
      events: [
        responsesEvent('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }),
        responsesEvent('response.output_text.delta', { output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Done.' }),
        responsesEvent('response.completed'),
      ],
    })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'Done.' }])
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ input: 0, output: 0, modelId: 'gpt-5.2' })
  })
})
