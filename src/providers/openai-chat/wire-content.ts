/**
 * Session blocks → Chat Completions content parts, one block at a time, and a
 * tool result → its `tool` message plus the attachments that cannot ride in
 * it. Pure and field-order stable: the same block always gives the same bytes.
 */

import type { SessionContentBlock, ToolResultBlock, ToolResultContent } from '../../core/content'
import type { DocumentSource } from '../shared/content-rules'
import type { ToolResultImageMode } from './dialect'
import type { ContentPart, FilePart, ImagePart, TextPart, ToolMessage } from './wire-types'
import { inlineDocumentText } from '../documents'
import { compactSummaryText, isAcceptedImageType, markToolError, OMITTED_IMAGE_NO_VISION, omittedUnresolved, omittedUnsupported, pdfFileName, TOOL_ERROR_MARKER } from '../shared/content-rules'
import { dataUrl } from '../shared/data-url'
import { unsupportedContentError } from './errors'

/** What the target API takes; a subset of its `ChatDialect`. */
export interface ContentRules {
  providerName: string
  images: boolean
  pdfFiles: boolean
  toolResultImages: ToolResultImageMode
}

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
      if (!isAcceptedImageType(block.mediaType))
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

/** Text documents are inlined under a header naming them; PDFs become `file` parts where the API takes them. */
function documentPart(part: DocumentSource, rules: ContentRules): TextPart | FilePart {
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

function pdfPart(part: DocumentSource, data: string): FilePart {
  return { type: 'file', file: { filename: pdfFileName(part), file_data: dataUrl(part.mediaType, data) } }
}

function imagePart(mediaType: string, data: string): ImagePart {
  return { type: 'image_url', image_url: { url: dataUrl(mediaType, data) } }
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
 * would fail every later request of the session. A failed tool's output starts
 * with the shared error marker: tool messages have no error flag.
 */
export function toolResultWire(block: ToolResultBlock, wireId: string, rules: ContentRules): ToolResultWire {
  const failed = block.isError === true
  if (typeof block.output === 'string')
    return { message: { role: 'tool', tool_call_id: wireId, content: failed ? markToolError(block.output) : block.output }, attachments: [] }

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
    return { message: { role: 'tool', tool_call_id: wireId, content: failed ? [textPart(TOOL_ERROR_MARKER), ...ordered] : ordered }, attachments: [] }
  if (media.length > 0) {
    const noun = media.length === 1 ? 'attachment follows' : 'attachments follow'
    texts.push(`[${media.length} ${noun} in the next user message]`)
  }
  const content = texts.join('\n')
  return { message: { role: 'tool', tool_call_id: wireId, content: failed ? markToolError(content) : content }, attachments: media }
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
        return OMITTED_IMAGE_NO_VISION
      if (part.data === undefined)
        return omittedUnresolved('image', part)
      if (!isAcceptedImageType(part.mediaType))
        return omittedUnsupported('image', part.mediaType)
      return imagePart(part.mediaType, part.data)
    case 'document': {
      if (part.data === undefined)
        return omittedUnresolved('document', part)
      const inlined = inlineDocumentText(part, part.data)
      if (inlined !== undefined)
        return inlined
      if (part.mediaType === 'application/pdf' && rules.pdfFiles)
        return pdfPart(part, part.data)
      return omittedUnsupported('document', part.mediaType)
    }
    case 'audio':
    case 'video':
      return omittedUnsupported(part.type, part.mediaType)
  }
}
