import type { SessionContentBlock, SessionMessage } from '../core/content'
import type { ToolSpec } from '../providers/types'
import type { TelemetryContentInfo } from './options'

/**
 * Content recorded on spans, in the shapes of the GenAI conventions
 * (`gen_ai.input.messages`: `[{ role, parts: [{ type, content }] }]`), cut
 * to a byte cap before any of it is serialized whole: a part's text is
 * sliced first, and messages are kept from the newest back until the cap is
 * reached. Binary payloads (images, audio, documents) are never recorded,
 * only their kind and media type.
 */

/** How content is recorded: the cap and the host's redaction hook. */
export interface ContentPolicy {
  readonly maxBytes: number
  readonly redact?: (text: string, info: TelemetryContentInfo) => string | undefined
}

/** A recorded attribute value, and whether the cap cut it. */
export interface RecordedContent {
  readonly value: string
  readonly truncated: boolean
}

const TRUNCATION_MARK = '…'

/** `text` cut to at most `maxBytes` UTF-8 bytes (by characters: a cut never splits one). */
export function capText(text: string, maxBytes: number): { text: string, truncated: boolean } {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: short texts need no counting.
  if (text.length * 3 <= maxBytes)
    return { text, truncated: false }
  if (Buffer.byteLength(text, 'utf8') <= maxBytes)
    return { text, truncated: false }
  let end = Math.min(text.length, maxBytes)
  while (end > 0 && Buffer.byteLength(text.slice(0, end), 'utf8') > maxBytes - 3)
    end = Math.floor(end * 0.9)
  // Never end on the first half of a surrogate pair.
  const code = text.charCodeAt(end - 1)
  if (code >= 0xD800 && code <= 0xDBFF)
    end -= 1
  return { text: text.slice(0, end) + TRUNCATION_MARK, truncated: true }
}

/** One part of a message as the conventions shape it. */
type Part = Record<string, unknown>

function partOf(block: SessionContentBlock, maxBytes: number): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: capText(block.text, maxBytes).text }
    case 'thinking':
      return { type: 'reasoning', content: capText(block.text, maxBytes).text }
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: cappedJson(block.input, maxBytes) }
    case 'tool_result':
      return { type: 'tool_call_response', id: block.callId, response: typeof block.output === 'string' ? capText(block.output, maxBytes).text : block.output.map(item => item.type === 'text' ? capText(item.text, maxBytes).text : `[${item.type}]`).join('\n') }
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
      return { type: 'blob', modality: block.type, mime_type: block.mediaType }
    case 'compact-summary':
      return { type: 'text', content: capText(block.summary, maxBytes).text }
    default:
      return { type: block.type }
  }
}

/** JSON of `value`, or its capped text when the JSON is over the cap. */
function cappedJson(value: unknown, maxBytes: number): unknown {
  const text = safeJson(value)
  const capped = capText(text, maxBytes)
  return capped.truncated ? capped.text : value
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  }
  catch {
    return '"[unserializable]"'
  }
}

/**
 * Messages as the conventions shape them, newest kept first when over the
 * cap (the newest are what a call answered).
 */
export function messagesJson(messages: readonly SessionMessage[], maxBytes: number, finishReason?: string): RecordedContent {
  const kept: string[] = []
  let bytes = 2
  let truncated = false
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    const shaped: Record<string, unknown> = { role: message.role, parts: message.content.map(block => partOf(block, maxBytes)) }
    if (finishReason !== undefined)
      shaped.finish_reason = finishReason
    const json = safeJson(shaped)
    const size = Buffer.byteLength(json, 'utf8') + 1
    if (bytes + size > maxBytes) {
      truncated = true
      break
    }
    kept.push(json)
    bytes += size
  }
  return { value: `[${kept.reverse().join(',')}]`, truncated }
}

/** System instructions as one text part. */
export function systemJson(system: string, maxBytes: number): RecordedContent {
  const capped = capText(system, Math.max(0, maxBytes - 32))
  return { value: safeJson([{ type: 'text', content: capped.text }]), truncated: capped.truncated }
}

/** Tool definitions (`{ type: 'function', name, description, parameters }`), as many as fit. */
export function toolDefinitionsJson(tools: readonly ToolSpec[], maxBytes: number): RecordedContent {
  const kept: string[] = []
  let bytes = 2
  for (const tool of tools) {
    const json = safeJson({ type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema })
    const size = Buffer.byteLength(json, 'utf8') + 1
    if (bytes + size > maxBytes)
      return { value: `[${kept.join(',')}]`, truncated: true }
    kept.push(json)
    bytes += size
  }
  return { value: `[${kept.join(',')}]`, truncated: false }
}

/** Any value as JSON text (a tool's arguments or result), capped. */
export function valueJson(value: unknown, maxBytes: number): RecordedContent {
  const text = typeof value === 'string' ? value : Array.isArray(value) ? safeJson(value.map(contentItemOf)) : safeJson(value)
  const capped = capText(text, maxBytes)
  return { value: capped.text, truncated: capped.truncated }
}

/**
 * The text to record after the host's redaction hook: `undefined` when the
 * hook drops it or throws (a broken hook must not leak what it meant to hide).
 */
export function redacted(content: RecordedContent, policy: ContentPolicy, info: TelemetryContentInfo): string | undefined {
  if (!policy.redact)
    return content.value
  try {
    const text = policy.redact(content.value, info)
    return typeof text === 'string' ? capText(text, policy.maxBytes).text : undefined
  }
  catch {
    return undefined
  }
}

/** An item of a structured tool result: text as it is, anything binary by its kind only. */
function contentItemOf(item: unknown): unknown {
  if (typeof item !== 'object' || item === null)
    return item
  const { type, text } = item as { type?: unknown, text?: unknown }
  if (type === 'text')
    return { type, text }
  return typeof type === 'string' ? { type } : item
}
