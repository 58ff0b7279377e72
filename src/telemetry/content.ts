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

/** Caps texts to a budget, and remembers whether it cut any. */
class Cutter {
  truncated = false
  constructor(public budget: number) {}
  text(text: string): string {
    const capped = capText(text, this.budget)
    this.truncated ||= capped.truncated
    return capped.text
  }

  json(value: unknown): unknown {
    const text = safeJson(value)
    const capped = capText(text, this.budget)
    this.truncated ||= capped.truncated
    return capped.truncated ? capped.text : value
  }
}

function partOf(block: SessionContentBlock, cut: Cutter): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: cut.text(block.text) }
    case 'thinking':
      return { type: 'reasoning', content: cut.text(block.text) }
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: cut.json(block.input) }
    case 'tool_result':
      return { type: 'tool_call_response', id: block.callId, response: cut.text(typeof block.output === 'string' ? block.output : block.output.map(item => item.type === 'text' ? item.text : `[${item.type}]`).join('\n')) }
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
      return { type: 'blob', modality: block.type, mime_type: block.mediaType }
    case 'compact-summary':
      return { type: 'text', content: cut.text(block.summary) }
    default:
      return { type: block.type }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  }
  catch {
    return '"[unserializable]"'
  }
}

/** Room a message's envelope (role, part types, ids, escapes) may take besides its texts. */
const ENVELOPE_BYTES = 256

/**
 * One message as JSON within `room` bytes: its texts cut to an equal share of
 * the room, and cut again (halved) while escapes make the JSON too long;
 * `undefined` when even that does not fit.
 */
function shapeWithin(message: SessionMessage, room: number, finishReason: string | undefined): { json: string, truncated: boolean } | undefined {
  let budget = Math.floor((room - ENVELOPE_BYTES) / Math.max(1, message.content.length))
  for (let tries = 0; tries < 4 && budget > 0; tries++) {
    const cut = new Cutter(budget)
    const shaped: Record<string, unknown> = { role: message.role, parts: message.content.map(block => partOf(block, cut)) }
    if (finishReason !== undefined)
      shaped.finish_reason = finishReason
    const json = safeJson(shaped)
    if (Buffer.byteLength(json, 'utf8') <= room)
      return { json, truncated: cut.truncated }
    budget = Math.floor(budget / 2)
  }
  return undefined
}

/**
 * Messages as the conventions shape them, within `maxBytes`: the newest kept
 * first (the newest are what a call answered), each part's text cut to what
 * room is left, older messages left out once there is none.
 */
export function messagesJson(messages: readonly SessionMessage[], maxBytes: number, finishReason?: string): RecordedContent {
  const kept: string[] = []
  let bytes = 2
  let truncated = false
  for (let i = messages.length - 1; i >= 0; i--) {
    const room = maxBytes - bytes - 1
    const shaped = room > ENVELOPE_BYTES ? shapeWithin(messages[i], room, finishReason) : undefined
    if (!shaped) {
      truncated = true
      break
    }
    truncated ||= shaped.truncated
    kept.push(shaped.json)
    bytes += Buffer.byteLength(shaped.json, 'utf8') + 1
  }
  return { value: `[${kept.reverse().join(',')}]`, truncated }
}

/** System instructions as one text part. */
export function systemJson(system: string, maxBytes: number): RecordedContent {
  const shaped = shapeWithin({ role: 'user', content: [{ type: 'text', text: system }] }, maxBytes, undefined)
  const parts = shaped ? (JSON.parse(shaped.json) as { parts: unknown[] }).parts : []
  return { value: safeJson(parts), truncated: shaped?.truncated ?? true }
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
