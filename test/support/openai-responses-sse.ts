/**
 * OpenAI Responses SSE, written by hand: a scripted turn → the exact event
 * sequence `POST /v1/responses` streams. Free of test-runner imports so a
 * child process (a benchmark, a fake server) can use it too.
 */

import type { SseEvent } from './sse'
import { splitIntoPieces } from './sse'

export type { SseEvent } from './sse'

/** One output item, in the order the API emits them. */
export type ScriptedResponsesItem
  = | { type: 'reasoning', id?: string, summary?: string[], encryptedContent?: string, reasoningText?: string }
  /** One string streams as one delta; an array streams one delta per element. */
    | { type: 'message', text: string | string[], id?: string, refusal?: boolean }
  /** `rawJson` replaces the serialized `input` (e.g. truncated JSON); it streams in three fragments. */
    | { type: 'function_call', name: string, input?: unknown, rawJson?: string, callId?: string, id?: string }

export interface ScriptedResponsesTurn {
  /** Shorthand, emitted in this order: reasoning, text, tool calls. Ignored when `output` is given. */
  reasoning?: Omit<Extract<ScriptedResponsesItem, { type: 'reasoning' }>, 'type'>
  text?: string | string[]
  toolCalls?: Omit<Extract<ScriptedResponsesItem, { type: 'function_call' }>, 'type'>[]
  /** Output items in exact order, for interleavings the shorthand cannot express. */
  output?: ScriptedResponsesItem[]
  usage?: { input_tokens?: number, cached_tokens?: number, cache_write_tokens?: number, output_tokens?: number, reasoning_tokens?: number }
  /** Ends with `response.incomplete` for this reason instead of `response.completed`. */
  incomplete?: 'max_output_tokens' | 'content_filter'
  /** The model the response names. Default `gpt-test`. */
  model?: string
}

/** The output items of a turn: `output` as given, or the shorthand fields in their usual order. */
export function scriptedItems(turn: ScriptedResponsesTurn): ScriptedResponsesItem[] {
  if (turn.output)
    return turn.output
  const items: ScriptedResponsesItem[] = []
  if (turn.reasoning)
    items.push({ type: 'reasoning', ...turn.reasoning })
  if (turn.text !== undefined)
    items.push({ type: 'message', text: turn.text })
  for (const call of turn.toolCalls ?? [])
    items.push({ type: 'function_call', ...call })
  return items
}

/**
 * Every event of one scripted turn: `response.created`, `response.in_progress`,
 * each item (`output_item.added`, its parts and deltas, `output_item.done`),
 * then `response.completed` (or `response.incomplete`) with the usage.
 */
export function responsesEvents(turn: ScriptedResponsesTurn, responseId = 'resp_fake_01'): SseEvent[] {
  const events: SseEvent[] = []
  let sequence = 0
  const push = (type: string, body: Record<string, unknown>) => {
    events.push({ event: type, data: { type, sequence_number: sequence++, ...body } })
  }
  const model = turn.model ?? 'gpt-test'
  const shell = { id: responseId, object: 'response', created_at: 1_700_000_000, model, output: [] as unknown[], error: null, incomplete_details: null }

  push('response.created', { response: { ...shell, status: 'in_progress' } })
  push('response.in_progress', { response: { ...shell, status: 'in_progress' } })
  const finished = scriptedItems(turn).map((item, index) => emitItem(item, index, push))

  const usage = turn.usage ?? {}
  const inputTokens = usage.input_tokens ?? 10
  const outputTokens = usage.output_tokens ?? 20
  const final = {
    ...shell,
    status: turn.incomplete ? 'incomplete' : 'completed',
    incomplete_details: turn.incomplete ? { reason: turn.incomplete } : null,
    output: finished,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, cache_write_tokens: usage.cache_write_tokens ?? 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
      total_tokens: inputTokens + outputTokens,
    },
  }
  push(turn.incomplete ? 'response.incomplete' : 'response.completed', { response: final })
  return events
}

type Push = (type: string, body: Record<string, unknown>) => void

/** Emit one item's events and return the finished item, as `output_item.done` and the final response carry it. */
function emitItem(item: ScriptedResponsesItem, index: number, push: Push): Record<string, unknown> {
  const at = { output_index: index }
  switch (item.type) {
    case 'reasoning': {
      const id = item.id ?? `rs_fake_${index}`
      const summary = item.summary ?? []
      push('response.output_item.added', { ...at, item: { id, type: 'reasoning', summary: [] } })
      summary.forEach((text, summaryIndex) => {
        const where = { ...at, item_id: id, summary_index: summaryIndex }
        push('response.reasoning_summary_part.added', { ...where, part: { type: 'summary_text', text: '' } })
        for (const piece of splitIntoPieces(text, 2))
          push('response.reasoning_summary_text.delta', { ...where, delta: piece })
        push('response.reasoning_summary_text.done', { ...where, text })
        push('response.reasoning_summary_part.done', { ...where, part: { type: 'summary_text', text } })
      })
      if (item.reasoningText) {
        for (const piece of splitIntoPieces(item.reasoningText, 2))
          push('response.reasoning_text.delta', { ...at, item_id: id, content_index: 0, delta: piece })
      }
      const done: Record<string, unknown> = { id, type: 'reasoning', summary: summary.map(text => ({ type: 'summary_text', text })) }
      if (item.reasoningText)
        done.content = [{ type: 'reasoning_text', text: item.reasoningText }]
      if (item.encryptedContent !== undefined)
        done.encrypted_content = item.encryptedContent
      push('response.output_item.done', { ...at, item: done })
      return done
    }
    case 'message': {
      const id = item.id ?? `msg_fake_${index}`
      const pieces = typeof item.text === 'string' ? [item.text] : item.text
      const text = pieces.join('')
      const part = item.refusal ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations: [] }
      const where = { ...at, item_id: id, content_index: 0 }
      push('response.output_item.added', { ...at, item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } })
      push('response.content_part.added', { ...where, part: item.refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [] } })
      for (const piece of pieces)
        push(item.refusal ? 'response.refusal.delta' : 'response.output_text.delta', { ...where, delta: piece, ...(item.refusal ? {} : { logprobs: [] }) })
      push(item.refusal ? 'response.refusal.done' : 'response.output_text.done', { ...where, ...(item.refusal ? { refusal: text } : { text, logprobs: [] }) })
      push('response.content_part.done', { ...where, part })
      const done = { id, type: 'message', role: 'assistant', status: 'completed', content: [part] }
      push('response.output_item.done', { ...at, item: done })
      return done
    }
    case 'function_call': {
      const id = item.id ?? `fc_fake_${index}`
      const callId = item.callId ?? `call_fake_${index}`
      const json = item.rawJson ?? JSON.stringify(item.input ?? {})
      push('response.output_item.added', { ...at, item: { id, type: 'function_call', status: 'in_progress', call_id: callId, name: item.name, arguments: '' } })
      for (const piece of splitIntoPieces(json, 3))
        push('response.function_call_arguments.delta', { ...at, item_id: id, delta: piece })
      push('response.function_call_arguments.done', { ...at, item_id: id, arguments: json })
      const done = { id, type: 'function_call', status: 'completed', call_id: callId, name: item.name, arguments: json }
      push('response.output_item.done', { ...at, item: done })
      return done
    }
  }
}

/** A mid-stream `error` event, as the API sends it. */
export function responsesErrorEvent(code: string | null, message: string): SseEvent {
  return { event: 'error', data: { type: 'error', code, message, param: null, sequence_number: 999 } }
}

/** A `response.failed` event whose response carries `error`. */
export function responsesFailedEvent(code: string | null, message: string, model = 'gpt-test'): SseEvent {
  const response = { id: 'resp_fake_01', object: 'response', model, status: 'failed', output: [], error: { code, message }, incomplete_details: null }
  return { event: 'response.failed', data: { type: 'response.failed', sequence_number: 999, response } }
}

/**
 * The events of a turn up to (not including) the terminal event: what a
 * stream looks like when it breaks off after the output.
 */
export function responsesEventsWithoutEnd(turn: ScriptedResponsesTurn): SseEvent[] {
  return responsesEvents(turn).slice(0, -1)
}
