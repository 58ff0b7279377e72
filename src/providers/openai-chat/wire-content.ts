/**
 * Session blocks → Chat Completions content parts, one block at a time, and a
 * tool result → its `tool` message plus the attachments that cannot ride in
 * it. Pure and field-order stable: the same block always gives the same bytes.
 */

import type { SessionContentBlock, ToolResultBlock, ToolResultContent } from '../../core/content'
import type { ToolResultImageMode } from './dialect'
import type { ContentPart, FilePart, ImagePart, TextPart, ToolMessage } from './wire-types'
import { inlineDocumentText } from '../documents'
import { unsupportedContentError } from './errors'

/** What the target API takes; a subset of its `ChatDialect`. */
export interface ContentRules {
  providerName: string
  images: boolean
  pdfFiles: boolean
  toolResultImages: ToolResultImageMode
}

/** The image formats every vision model of the family accepts. */
const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/** Non-`text/*` media types whose base64 documents are decoded and inlined as text. */

export function textPart(text: string): TextPart {
  return { type: 'text', text }
}

/**
 * One block of a user message → at most one content part. Throws
 * `unsupported` for content the API cannot take, before any request is made.
 * Tool results are converted by `toolResultWire`; reasoning and other
 * providers' blocks have no place in a user message and are dropped.
 */
export function userContentPart(block: SessionContentBlock, rules: ContentRules): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return block.text ? textPart(block.text) : undefined
    case 'compact-summary':
      return textPart(compactSummaryText(block.summary))
    case 'image':
      if (!rules.images)
        throw unsupportedContentError(rules.providerName, 'images with this model')
      if (block.data === undefined)
        throw unsupportedContentError(rules.providerName, `an unresolved image reference (${block.ref})`)
      if (!IMAGE_MEDIA_TYPES.has(block.mediaType))
        throw unsupportedContentError(rules.providerName, `images of type ${block.mediaType}`)
      return imagePart(block.mediaType, block.data)
    case 'document':
      return documentPart(block, rules)
    case 'audio':
    case 'video':
      throw unsupportedContentError(rules.providerName, `${block.type} content (${block.mediaType})`)
    default:
      return undefined
  }
}

export function compactSummaryText(summary: string): string {
  return `Summary of the earlier conversation:\n${summary}`
}

interface DocumentInput {
  data?: string
  ref?: string
  encoding: 'base64' | 'text'
  mediaType: string
  name?: string
}

/** Text documents are inlined under a header naming them; PDFs become `file` parts where the API takes them. */
function documentPart(part: DocumentInput, rules: ContentRules): TextPart | FilePart {
  if (part.data === undefined)
    throw unsupportedContentError(rules.providerName, `an unresolved document reference (${part.ref})`)
  const inlined = inlineDocumentText(part, part.data)
  if (inlined !== undefined)
    return textPart(inlined)
  if (part.mediaType !== 'application/pdf')
    throw unsupportedContentError(rules.providerName, `documents of type ${part.mediaType}`)
  if (!rules.pdfFiles)
    throw unsupportedContentError(rules.providerName, 'PDF documents')
  return pdfPart(part, part.data)
}

function pdfPart(part: DocumentInput, data: string): FilePart {
  return { type: 'file', file: { filename: part.name ?? 'document.pdf', file_data: dataUrl(part.mediaType, data) } }
}

function imagePart(mediaType: string, data: string): ImagePart {
  return { type: 'image_url', image_url: { url: dataUrl(mediaType, data) } }
}

function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`
}

export interface ToolResultWire {
  message: ToolMessage
  /** Media for the companion user message that follows the tool messages (companion mode). */
  attachments: ContentPart[]
}

/**
 * A tool result → one `tool` message. Text stays in the tool message. Media go
 * inside it in `inline` mode; in `companion` mode (for APIs whose tool messages
 * take text only) they are handed back as attachments for a user message, and
 * the tool message says so, so the model knows where to look.
 *
 * Tool results come from tools and MCP servers the model chose to call, so
 * content this API cannot carry becomes a short note rather than an error that
 * would fail every later request of the session.
 */
export function toolResultWire(block: ToolResultBlock, wireId: string, rules: ContentRules): ToolResultWire {
  if (typeof block.output === 'string')
    return { message: { role: 'tool', tool_call_id: wireId, content: block.output }, attachments: [] }

  const texts: string[] = []
  const ordered: ContentPart[] = []
  const media: ContentPart[] = []
  for (const part of block.output) {
    const converted = toolResultPart(part, rules)
    if (converted === undefined)
      continue
    if (typeof converted === 'string') {
      texts.push(converted)
      ordered.push(textPart(converted))
    }
    else {
      media.push(converted)
      ordered.push(converted)
    }
  }

  if (media.length > 0 && rules.toolResultImages === 'inline')
    return { message: { role: 'tool', tool_call_id: wireId, content: ordered }, attachments: [] }
  if (media.length > 0) {
    const noun = media.length === 1 ? 'attachment follows' : 'attachments follow'
    texts.push(`[${media.length} ${noun} in the next user message]`)
  }
  return { message: { role: 'tool', tool_call_id: wireId, content: texts.join('\n') }, attachments: media }
}

/** The text that introduces a tool result's attachments in the companion user message. */
export function companionIntro(wireId: string): TextPart {
  return textPart(`Attachments of the tool result ${wireId}:`)
}

/** A tool-result part → text, a media part, or nothing. */
function toolResultPart(part: ToolResultContent, rules: ContentRules): string | ContentPart | undefined {
  switch (part.type) {
    case 'text':
      return part.text || undefined
    case 'image':
      if (!rules.images)
        return '[image omitted: this model does not take images]'
      if (part.data === undefined)
        return `[image omitted: ${part.name ?? part.ref} was not resolved]`
      if (!IMAGE_MEDIA_TYPES.has(part.mediaType))
        return `[image omitted: ${part.mediaType} is not supported here]`
      return imagePart(part.mediaType, part.data)
    case 'document': {
      if (part.data === undefined)
        return `[document omitted: ${part.name ?? part.ref} was not resolved]`
      const inlined = inlineDocumentText(part, part.data)
      if (inlined !== undefined)
        return inlined
      if (part.mediaType === 'application/pdf' && rules.pdfFiles)
        return pdfPart(part, part.data)
      return `[document omitted: ${part.mediaType} is not supported here]`
    }
    case 'audio':
    case 'video':
      return `[${part.type} omitted: ${part.mediaType} is not supported here]`
  }
}
