/**
 * Provider-neutral options → one Responses API request body. Pure and
 * deterministic: the same input always gives the same bytes, and appending a
 * message leaves every earlier input item untouched, which keeps OpenAI's
 * prefix cache warm. Requests are stateless (`store: false`): the whole
 * conversation is sent every turn, reasoning included, as encrypted items.
 */

import type { SessionContentBlock, SessionMessage } from '../../../core/content'
import type { ChatReasoningEffort } from '../../shared/reasoning-effort'
import type { ThinkingLevel } from '../../thinking'
import type { StreamOptions, ToolSpec } from '../../types'
import type { ReasoningFollower, ReasoningSignature } from './reasoning'
import type { ResponsesFunctionTool, ResponsesInputItem, UserContentPart } from './wire-types'
import { pushAll } from '../../../core/push-all'
import { wellFormedText } from '../../../text/well-formed-text'
import { compactSummaryText } from '../../shared/content-rules'
import { openaiReasoningEfforts } from '../../shared/openai-models'
import { fitEffort } from '../../shared/reasoning-effort'
import { orderToolResults } from '../../shared/result-order'
import { WireFormMemo } from '../../shared/wire-form-memo'
import { invalidToolInput } from '../../tool-json'
import { wellFormedBlock, wellFormedTool } from '../../well-formed'
import { decodeReasoningSignature, OPENAI_SIGNATURE_PRODUCER } from './reasoning'
import { responsesCallId, toolResultWire, userContentPart } from './wire-content'

/** The request body minus `stream`, which the caller adds. Field order is fixed. */
export interface ResponsesRequestBody {
  model: string
  instructions?: string
  input: ResponsesInputItem[]
  tools?: ResponsesFunctionTool[]
  reasoning?: { effort: ChatReasoningEffort, summary: 'auto' }
  max_output_tokens?: number
  include?: ['reasoning.encrypted_content']
  store: false
}

/** Everything one request needs; the same fields as `StreamOptions` minus the signal. */
export type ResponsesRequestInput = Omit<StreamOptions, 'signal'>

/**
 * Thinking level → the `reasoning.effort` asked for, before it is fitted to
 * the model. `adaptive` asks for the usual default, `medium`. The API has no
 * per-turn reasoning token budget, so `thinkingBudget` has no effect here.
 */
export const RESPONSES_EFFORT: Readonly<Record<Exclude<ThinkingLevel, 'off'>, ChatReasoningEffort>> = Object.freeze({
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
  adaptive: 'medium',
})

/** Efforts assumed for a model the host's catalog says reasons but the table does not know. */
const ASSUMED_EFFORTS: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']

/**
 * The `reasoning` field for a level, or `undefined`. The effort is fitted to
 * what the model accepts (the same table the Chat Completions dialect uses:
 * an effort a model does not know is a 400), so `max` becomes `xhigh` or
 * `high`, and a model without reasoning gets no field at all. `reasoning` is
 * the host catalog's word (`StreamOptions.reasoning`): `false` sends nothing,
 * `true` assumes `low`…`high` for a model the table does not know.
 */
export function responsesReasoning(model: string, level: ThinkingLevel, reasoning?: boolean): ResponsesRequestBody['reasoning'] {
  if (level === 'off' || reasoning === false)
    return undefined
  const known = openaiReasoningEfforts(model)
  const effort = fitEffort(RESPONSES_EFFORT[level], known.length === 0 && reasoning === true ? ASSUMED_EFFORTS : known)
  return effort ? { effort, summary: 'auto' } : undefined
}

/**
 * Build the request for one turn. Throws a `ClassifiedError` of kind
 * `unsupported` (before anything is sent) for content the API cannot take.
 */
export function buildResponsesRequest(input: ResponsesRequestInput, settings: { providerName: string }): ResponsesRequestBody {
  const body: ResponsesRequestBody = {
    model: input.model,
    ...(input.system ? { instructions: wellFormedText(input.system) } : {}),
    input: responsesInput(input.messages, settings.providerName),
    ...(input.tools.length > 0 ? { tools: input.tools.map(functionTool) } : {}),
    ...(producesEncryptedReasoning(input.model, input.reasoning) ? { include: ['reasoning.encrypted_content'] } : {}),
    store: false,
  }
  const reasoning = responsesReasoning(input.model, input.thinking, input.reasoning)
  if (reasoning)
    body.reasoning = reasoning
  if (input.maxTokens !== undefined && input.maxTokens > 0)
    body.max_output_tokens = input.maxTokens
  return body
}

/** Model families known not to reason: they answer 400 ("Encrypted content is not supported") to the include. */
const NON_REASONING_MODEL = /^(?:gpt-4|gpt-3\.5|chatgpt-|gpt-\d+(?:\.\d+)?-chat)/

/**
 * Whether to ask for encrypted reasoning. Every model is asked except the
 * families known not to reason, so a reasoning model this table has never
 * heard of still returns reasoning that can be replayed. A host catalog entry
 * (`reasoning`) decides over the table, both ways.
 */
export function producesEncryptedReasoning(model: string, reasoning?: boolean): boolean {
  return reasoning ?? !NON_REASONING_MODEL.test(model.toLowerCase())
}

/**
 * One wire object per tool spec, kept for the spec's life: the same object
 * every turn lets the request writer reuse its encoded JSON
 * (`../../shared/body-json.ts`).
 */
const wireTools = new WeakMap<ToolSpec, ResponsesFunctionTool>()

function functionTool(spec: ToolSpec): ResponsesFunctionTool {
  let wire = wireTools.get(spec)
  if (!wire) {
    const tool = wellFormedTool(spec)
    // Not strict: strict mode demands that every property be required and no other be allowed, which most tool schemas are not.
    wire = { type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: false }
    wireTools.set(spec, wire)
  }
  return wire
}

/** The conversation as a flat list of input items, message by message. */
export function responsesInput(messages: readonly SessionMessage[], provider: string): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = []
  let previous: SessionMessage | undefined
  for (const message of messages) {
    // Results are ordered by the calls of the assistant message right before (see `../../shared/result-order`).
    const answering = message.role !== 'assistant' && previous?.role === 'assistant' ? previous.content : undefined
    pushAll(items, messageItems(message, answering, provider))
    previous = message
  }
  return items
}

/**
 * Each message's input items, kept while the message and the calls its
 * results answer stay the same (`../../shared/wire-form-memo.ts`): a turn
 * converts only what it added, and the same objects every turn let the
 * request writer reuse their encoded JSON.
 */
const converted = new WireFormMemo<string, readonly ResponsesInputItem[]>((kept, now) => kept === now)

function messageItems(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined, provider: string): readonly ResponsesInputItem[] {
  const known = converted.get(message, answering, provider)
  if (known)
    return known
  const items = message.role === 'assistant' ? assistantItems(message.content) : userItems(message.content, answering, provider)
  // Media stay out: a remembered data URL would keep a second copy of the image alive for the whole session.
  if (!items.some(carriesMedia))
    converted.set(message, answering, provider, items)
  return items
}

function carriesMedia(item: ResponsesInputItem): boolean {
  return item.type === 'message' && item.role === 'user' && item.content.some(part => part.type !== 'input_text')
}

/**
 * An assistant message in output order. A replayable reasoning item waits
 * for the item that followed it when it was produced and is sent directly
 * before it: a function call is found by its call id anywhere later in the
 * message; a message, having no id, only if it comes next. A reasoning item
 * whose follower never comes is dropped, because the API rejects reasoning
 * without its follower (and dropping is safe: calls and messages are sent
 * without item ids, so none of them demands its reasoning back). When two
 * wait for the same item, only the nearer one goes, so reasoning is never
 * followed by reasoning.
 *
 * Thinking from other producers, or unsigned, is never sent: no other API's
 * reasoning can be decrypted here, and replaying it as text would put words
 * in the model's mouth.
 */
function assistantItems(blocks: readonly SessionContentBlock[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = []
  let waiting: { signature: ReasoningSignature, text: string }[] = []
  const emit = (item: ResponsesInputItem, follower: ReasoningFollower | undefined) => {
    const matched = follower ? waiting.filter(entry => sameFollower(entry.signature.next, follower)) : []
    const nearest = matched.at(-1)
    if (nearest)
      items.push(reasoningItem(nearest.signature, nearest.text))
    // Matched entries are spent; a message follower had to come next, so those still waiting are too.
    waiting = waiting.filter(entry => !matched.includes(entry) && entry.signature.next?.type === 'function_call')
    items.push(item)
  }

  for (const raw of blocks) {
    // Text made well-formed (see `../../well-formed`); ids stay as they are for `responsesCallId`.
    const block = wellFormedBlock(raw)
    switch (block.type) {
      case 'thinking': {
        const signature = block.signatureProducer === OPENAI_SIGNATURE_PRODUCER ? decodeReasoningSignature(block.signature) : undefined
        if (signature?.next)
          waiting.push({ signature, text: block.text })
        break
      }
      case 'text':
        if (block.text)
          emit(assistantMessage(block.text), { type: 'message' })
        break
      case 'compact-summary':
        emit(assistantMessage(compactSummaryText(block.summary)), undefined)
        break
      case 'tool_call':
        emit({ type: 'function_call', call_id: responsesCallId(block.id), name: block.name, arguments: callArguments(block.input) }, { type: 'function_call', callId: block.id })
        break
    }
  }
  return items
}

function sameFollower(expected: ReasoningFollower | undefined, actual: ReasoningFollower): boolean {
  if (!expected || expected.type !== actual.type)
    return false
  return expected.type === 'message' || (actual.type === 'function_call' && expected.callId === actual.callId)
}

/** Summary text goes back as one part: the model reads the encrypted reasoning, the summary is only for people. */
function reasoningItem(signature: ReasoningSignature, text: string): ResponsesInputItem {
  return {
    type: 'reasoning',
    id: signature.id,
    encrypted_content: signature.encryptedContent,
    summary: text ? [{ type: 'summary_text', text }] : [],
  }
}

function assistantMessage(text: string): ResponsesInputItem {
  return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }
}

/** Arguments the model streamed but that did not parse go back exactly as it wrote them. */
function callArguments(input: Record<string, unknown>): string {
  return invalidToolInput(input)?.raw ?? JSON.stringify(input)
}

/**
 * A user message: its tool results first, as `function_call_output` items in
 * the order of the calls they answer, then one user message holding the
 * results' images and PDFs (a string output cannot carry them) followed by the
 * message's own content.
 */
function userItems(raw: readonly SessionContentBlock[], answering: readonly SessionContentBlock[] | undefined, provider: string): ResponsesInputItem[] {
  const blocks = raw.map(wellFormedBlock)
  const own: UserContentPart[] = []
  for (const block of blocks) {
    const part = block.type === 'tool_result' ? undefined : userContentPart(block, provider)
    if (part)
      own.push(part)
  }

  const items: ResponsesInputItem[] = []
  const companions: UserContentPart[] = []
  for (const block of orderToolResults(blocks, answering)) {
    const wire = toolResultWire(block)
    items.push(wire.output)
    pushAll(companions, wire.companions)
  }
  const content = [...companions, ...own]
  if (content.length > 0)
    items.push({ type: 'message', role: 'user', content })
  return items
}
