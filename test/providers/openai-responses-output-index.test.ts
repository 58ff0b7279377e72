/**
 * Responses items are keyed by `output_index`. A server or gateway that uses
 * an index twice, or leaves it out of every event, still sends several items:
 * each one is kept, in the order it began. Before, a later item at the same
 * index replaced the earlier one, so a call announced to the caller was never
 * run, and the text before a call vanished from the turn. The same item
 * finished twice is still one item.
 */

import type { RawSseEvent } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOpenAI } from '../support/fake-openai'
import { recordCallbacks, responsesEvent, responsesOptions, runLookupAgent, streamAgainst } from './openai-responses-fixtures'

let fake: Awaited<ReturnType<typeof startFakeOpenAI>>

beforeEach(async () => {
  fake = await startFakeOpenAI()
})

afterEach(async () => {
  await fake.close()
})

const COMPLETED = responsesEvent('response.completed', { response: { id: 'resp_1', status: 'completed', model: 'gpt-5.2', output: [], usage: { input_tokens: 5, output_tokens: 3 } } })

/** A function call's events; `index` is left out of them when `undefined`. */
function call(index: number | undefined, callId: string, word: string, withAdded = true): RawSseEvent[] {
  const at = index === undefined ? {} : { output_index: index }
  const item = { type: 'function_call', call_id: callId, name: 'lookup', arguments: `{"word":"${word}"}` }
  return [
    ...(withAdded ? [responsesEvent('response.output_item.added', { ...at, item: { ...item, arguments: '' } })] : []),
    responsesEvent('response.output_item.done', { ...at, item }),
  ]
}

function message(index: number | undefined, text: string): RawSseEvent[] {
  const at = index === undefined ? {} : { output_index: index }
  return [
    responsesEvent('response.output_item.added', { ...at, item: { type: 'message', content: [] } }),
    responsesEvent('response.output_text.delta', { ...at, delta: text }),
    responsesEvent('response.output_item.done', { ...at, item: { type: 'message', content: [{ type: 'output_text', text }] } }),
  ]
}

describe('output items that share an output_index', () => {
  it('two calls at index 0: both run, each paired with its result', async () => {
    const { stats, session } = await runLookupAgent(fake, [...call(0, 'call_a', 'alpha'), ...call(0, 'call_b', 'beta'), COMPLETED], 'Look them up.')
    expect(stats.stopReason).toBe('completed')
    const [callTurn, resultTurn] = session.turns.slice(1, 3)
    expect(callTurn.content.map(block => block.type === 'tool_call' && [block.id, block.input])).toEqual([['call_a', { word: 'alpha' }], ['call_b', { word: 'beta' }]])
    expect(resultTurn.content.map(block => block.type === 'tool_result' && [block.callId, block.isError ?? false])).toEqual([['call_a', false], ['call_b', false]])
  })

  it('items without any output_index: the text and the call are both kept, in the order they came', async () => {
    fake.enqueue({ type: 'sse', events: [...message(undefined, 'Let me look.'), ...call(undefined, 'call_a', 'alpha'), COMPLETED] })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'call_a', name: 'lookup', input: { word: 'alpha' } },
    ])
    expect(result.finishReason).toBe('tool-calls')
  })

  it('finished items with no added event, all at one index: each is its own item', async () => {
    fake.enqueue({ type: 'sse', events: [...call(3, 'call_a', 'alpha', false), ...call(3, 'call_b', 'beta', false), ...message(1, 'First.'), COMPLETED] })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([
      { type: 'text', text: 'First.' },
      { type: 'tool_call', id: 'call_a', name: 'lookup', input: { word: 'alpha' } },
      { type: 'tool_call', id: 'call_b', name: 'lookup', input: { word: 'beta' } },
    ])
  })

  it('a finished item of another kind than the open one at its index does not replace it', async () => {
    fake.enqueue({ type: 'sse', events: [
      responsesEvent('response.output_item.added', { output_index: 0, item: { type: 'message', content: [] } }),
      responsesEvent('response.output_text.delta', { output_index: 0, delta: 'Text.' }),
      ...call(0, 'call_a', 'alpha', false),
      COMPLETED,
    ] })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([
      { type: 'text', text: 'Text.' },
      { type: 'tool_call', id: 'call_a', name: 'lookup', input: { word: 'alpha' } },
    ])
  })

  it('the same item finished twice (a repeated output_item.done) is one item, its call run once', async () => {
    const done = call(0, 'call_a', 'alpha').slice(1)
    const messageDone = responsesEvent('response.output_item.done', { output_index: 1, item: { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'After.' }] } })
    fake.enqueue({ type: 'sse', events: [...call(0, 'call_a', 'alpha'), ...done, ...message(1, 'After.').slice(0, 2), messageDone, messageDone, COMPLETED] })
    const result = await streamAgainst(fake, responsesOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'lookup', input: { word: 'alpha' } },
      { type: 'text', text: 'After.' },
    ])
  })
})
