import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import type { SseEvent } from '../support/openai-responses-sse'
import { describe, expect, it } from 'vitest'
import { consumeResponsesStream } from '../../src/providers/openai/responses'
import { responsesEvents } from '../support/openai-responses-sse'
import { sseFrame } from '../support/sse'
import { recordCallbacks } from './openai-responses-fixtures'

const TURN = {
  reasoning: { id: 'rs_1', summary: ['Think first.'], encryptedContent: 'enc-1' },
  text: ['Hi', ' there'],
  toolCalls: [{ name: 'grep', input: { pattern: 'TODO', path: 'src' }, callId: 'call_g' }],
  usage: { input_tokens: 50, cached_tokens: 20, output_tokens: 30, reasoning_tokens: 12 },
  model: 'gpt-sse',
}

function data(event: SseEvent): any {
  return event.data
}

async function* replay(events: SseEvent[]): AsyncIterable<ResponseStreamEvent> {
  for (const event of events)
    yield event.data as ResponseStreamEvent
}

describe('scripted turn → Responses SSE', () => {
  const events = responsesEvents(TURN)

  it('frames every event with its type as the SSE event name and numbers them in order', () => {
    for (const event of events)
      expect(data(event).type).toBe(event.event)
    expect(events.map(event => data(event).sequence_number)).toEqual(events.map((_, index) => index))
    expect(sseFrame(events[0])).toMatch(/^event: response\.created\ndata: \{.*\}\n\n$/)
  })

  it('opens with created/in_progress and emits items in output order, each added before done', () => {
    expect(events.slice(0, 2).map(event => event.event)).toEqual(['response.created', 'response.in_progress'])
    const lifecycle = events
      .filter(event => event.event === 'response.output_item.added' || event.event === 'response.output_item.done')
      .map(event => `${event.event.split('.').pop()}:${data(event).item.type}@${data(event).output_index}`)
    expect(lifecycle).toEqual([
      'added:reasoning@0',
      'done:reasoning@0',
      'added:message@1',
      'done:message@1',
      'added:function_call@2',
      'done:function_call@2',
    ])
  })

  it('carries the encrypted reasoning only on the finished reasoning item', () => {
    const reasoning = events.filter(event => data(event).item?.type === 'reasoning').map(event => data(event).item)
    expect(reasoning[0].encrypted_content).toBeUndefined()
    expect(reasoning[1]).toEqual({ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think first.' }], encrypted_content: 'enc-1' })
  })

  it('splits function arguments into several deltas that join to the JSON', () => {
    const deltas = events.filter(event => event.event === 'response.function_call_arguments.delta').map(event => data(event).delta)
    expect(deltas.length).toBeGreaterThan(1)
    expect(JSON.parse(deltas.join(''))).toEqual({ pattern: 'TODO', path: 'src' })
  })

  it('ends with response.completed holding the output and the usage', () => {
    const last = data(events.at(-1)!)
    expect(last.type).toBe('response.completed')
    expect(last.response.output.map((item: { type: string }) => item.type)).toEqual(['reasoning', 'message', 'function_call'])
    expect(last.response.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 20, cache_write_tokens: 0 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 80,
    })
  })

  it('ends with response.incomplete and its reason when the turn is cut off', () => {
    const last = data(responsesEvents({ text: 'cut', incomplete: 'max_output_tokens' }).at(-1)!)
    expect(last).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } })
  })

  it('is understood by the stream consumer as the turn it scripts', async () => {
    const recorded = recordCallbacks()
    const result = await consumeResponsesStream(replay(events), recorded.callbacks, { model: 'fallback', provider: 'openai' })
    expect(recorded.texts).toEqual(['Hi', ' there'])
    expect(result.content.map(block => block.type)).toEqual(['thinking', 'text', 'tool_call'])
    expect(result.toolCalls).toEqual([{ id: 'call_g', name: 'grep', input: { pattern: 'TODO', path: 'src' } }])
    expect(result.usage).toMatchObject({ input: 30, cacheRead: 20, output: 30, thinking: 12, modelId: 'gpt-sse' })
  })
})
