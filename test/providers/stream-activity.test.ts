/**
 * What counts as a sign of life for the idle watchdog (`onActivity`). A
 * stalled server, or a proxy keeping a dead connection open, can send small
 * events that carry nothing for as long as it likes; each one counted as
 * activity held off `providerStreamIdleTimeoutMs` until the body cap or the
 * whole-stream watchdog. Events that carry nothing are no longer counted:
 * empty signature and argument fragments, fragments for a block or item that
 * is not open, a delta or block start that is `null`, a redacted block
 * without data, an empty or untyped content part. Real progress still counts.
 */

import type { SseEvent } from '../support/sse'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { anthropicEvents } from '../support/sse'
import { recordCallbacks, streamOptions } from './anthropic-fixtures'
import { chatOptions } from './openai-chat-fixtures'
import { responsesEvent } from './openai-responses-fixtures'

describe('anthropic', () => {
  let fake: Awaited<ReturnType<typeof startFakeAnthropic>>
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })

  const delta = (index: number, body: unknown): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: body } })
  const start = (index: number, block: unknown): SseEvent => ({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } })

  it('empty fragments, fragments for no open block, null deltas and starts are no activity; real ones are', async () => {
    const [messageStart, ...rest] = anthropicEvents({ text: 'hi' })
    fake.enqueue({ type: 'sse', events: [
      messageStart,
      start(5, { type: 'thinking', thinking: '' }),
      start(6, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }),
      delta(5, { type: 'signature_delta', signature: '' }),
      delta(6, { type: 'input_json_delta', partial_json: '' }),
      delta(9, { type: 'input_json_delta', partial_json: '{"a":1}' }),
      delta(9, { type: 'signature_delta', signature: 'sig' }),
      delta(9, { type: 'citations_delta', citation: {} }),
      delta(5, null),
      start(7, null),
      start(8, { type: 'redacted_thinking' }),
      // Real progress: a signature piece, an argument fragment of a server tool, an unknown delta into an open block.
      delta(5, { type: 'signature_delta', signature: 'sig' }),
      start(10, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      delta(10, { type: 'input_json_delta', partial_json: '{"q":"x"}' }),
      delta(5, { type: 'citations_delta', citation: {} }),
      ...rest,
    ] })
    const rec = recordCallbacks()
    const turn = await anthropic({ apiKey: 'k', baseURL: fake.url }).stream(streamOptions(), rec.callbacks)
    expect(rec.timeline).toEqual(['tool:lookup', 'activity', 'activity', 'activity', 'activity', 'text:hi'])
    expect(turn.content).toContainEqual({ type: 'text', text: 'hi' })
  })
})

describe('openai', () => {
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>
  beforeEach(async () => {
    fake = await startFakeOpenAI()
  })
  afterEach(async () => {
    await fake.close()
  })

  it('responses: an empty argument fragment, or one for no call, is no activity', async () => {
    fake.enqueue({ type: 'sse', events: [
      responsesEvent('response.output_item.added', { output_index: 0, item: { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '' } }),
      responsesEvent('response.function_call_arguments.delta', { output_index: 0, delta: '' }),
      responsesEvent('response.function_call_arguments.delta', { output_index: 4, delta: '{"word":' }),
      responsesEvent('response.function_call_arguments.delta', { output_index: 0, delta: '{"word":"alpha"}' }),
      responsesEvent('response.completed', { response: { id: 'resp_1', status: 'completed', output: [] } }),
    ] })
    const rec = recordCallbacks()
    const turn = await openai({ api: 'responses', apiKey: 'k', baseURL: fake.url }).stream(chatOptions(), rec.callbacks)
    // The one real fragment reaches `onToolCallDelta` (not recorded here), so it shows as activity.
    expect(rec.timeline).toEqual(['tool:lookup', 'activity'])
    expect(turn.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', input: { word: 'alpha' } }])
  })

  it('chat: empty and untyped content parts are no activity; a part of another type is', async () => {
    fake.enqueue({ type: 'chunks', chunks: [
      { choices: [{ index: 0, delta: { content: [{ type: 'text', text: '' }, {}, null, { type: 'refusal', refusal: '' }, { type: 'thinking', thinking: [] }] } }] },
      { choices: [{ index: 0, delta: { content: [{ type: 'reference', reference_ids: [1] }, { type: 'text', text: 'hi' }] }, finish_reason: 'stop' }] },
    ] })
    const rec = recordCallbacks()
    await openai({ apiKey: 'k', baseURL: fake.url }).stream(chatOptions(), rec.callbacks)
    expect(rec.timeline).toEqual(['activity', 'text:hi'])
  })
})
