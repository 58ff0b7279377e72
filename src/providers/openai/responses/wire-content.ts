/**
 * Session content → Responses input parts, one block at a time. Pure and
 * field-order stable: the same block always serializes to the same bytes.
 */

import type { SessionContentBlock, ToolResultBlock, ToolResultContent } from '../../../core/content'
import type { DocumentSource } from '../../shared/content-rules'
import type { FunctionCallOutputItem, UserContentPart } from './wire-types'
import { inlineDocumentText } from '../../documents'
import { compactSummaryText, isAcceptedImageType, isBase64Pdf, markToolError, omittedUnresolved, omittedUnsupported, pdfFileName } from '../../shared/content-rules'
import { dataUrl } from '../../shared/data-url'
import { fitToolCallId } from '../../tool-call-ids'
import { unsupportedContentError } from './errors'

/** The Responses API's limit on `call_id`. */
const MAX_CALL_ID_LENGTH = 64

/**
 * The `call_id` a session tool-call id travels under: itself when it is made
 * of `[A-Za-z0-9_-]` and at most 64 long, else a readable prefix and a hash of
 * it (see `../../tool-call-ids`), so the call and its output always agree and
 * the same session gives the same bytes.
 */
export function responsesCallId(id: string): string {
  return fitToolCallId(id, MAX_CALL_ID_LENGTH)
}

/**
 * One block of a user message → one input part. Returns `undefined` for blocks
 * that carry nothing for this API and throws `unsupported` (before any request)
 * for media it cannot take.
 */
export function userContentPart(block: SessionContentBlock, provider: string): UserContentPart | undefined {
  switch (block.type) {
    case 'text':
      return block.text ? { type: 'input_text', text: block.text } : undefined
    case 'image':
      if (block.data === undefined)
        throw unsupportedContentError(`an unresolved image reference (${block.ref})`, provider)
      if (!isAcceptedImageType(block.mediaType))
        throw unsupportedContentError(`images of type ${block.mediaType}`, provider)
      return imagePart(block.mediaType, block.data)
    case 'document':
      return documentPart(block, provider)
    case 'audio':
    case 'video':
      throw unsupportedContentError(`${block.type} content (${block.mediaType})`, provider)
    case 'compact-summary':
      return { type: 'input_text', text: compactSummaryText(block.summary) }
    default:
      return undefined
  }
}

function imagePart(mediaType: string, data: string): UserContentPart {
  return { type: 'input_image', image_url: dataUrl(mediaType, data), detail: 'auto' }
}

/** PDFs travel as files; text documents are inlined under a header naming them. */
function documentPart(part: DocumentSource, provider: string): UserContentPart {
  if (part.data === undefined)
    throw unsupportedContentError(`an unresolved document reference (${part.ref})`, provider)
  if (isBase64Pdf(part))
    return pdfPart(part, part.data)
  const text = inlineDocumentText(part, part.data)
  if (text === undefined)
    throw unsupportedContentError(`documents of type ${part.mediaType}`, provider)
  return { type: 'input_text', text }
}

/** One tool result: its output item and the media that must follow it in a user message. */
export interface ToolResultWire {
  output: FunctionCallOutputItem
  companions: UserContentPart[]
}

/**
 * A tool result → a `function_call_output` whose output is a string, plus its
 * images and PDFs as "companion" parts for a user message after the outputs.
 * The string names each attachment so the model can tell which call it came
 * from. Tool results come from tools the model chose to call, so content this
 * API cannot carry becomes a short note instead of failing every later request.
 */
export function toolResultWire(block: ToolResultBlock): ToolResultWire {
  const callId = responsesCallId(block.callId)
  const companions: UserContentPart[] = []
  let text: string
  if (typeof block.output === 'string') {
    text = block.output
  }
  else {
    const lines: string[] = []
    let attachments = 0
    for (const part of block.output) {
      const media = companionPart(part)
      if (media) {
        attachments += 1
        const label = `attachment ${attachments} (${part.type}${'name' in part && part.name ? ` "${part.name}"` : ''})`
        lines.push(`[${label} follows in the next user message]`)
        companions.push({ type: 'input_text', text: `Tool call ${callId}, ${label}:` }, media)
      }
      else {
        lines.push(outputLine(part))
      }
    }
    text = lines.filter(Boolean).join('\n')
  }
  const output = block.isError ? markToolError(text) : text
  return { output: { type: 'function_call_output', call_id: callId, output }, companions }
}

/** Images and PDFs cannot sit in a string output; they ride in the companion message. */
function companionPart(part: ToolResultContent): UserContentPart | undefined {
  if (part.type === 'image' && part.data !== undefined && isAcceptedImageType(part.mediaType))
    return imagePart(part.mediaType, part.data)
  if (part.type === 'document' && part.data !== undefined && isBase64Pdf(part))
    return pdfPart(part, part.data)
  return undefined
}

function pdfPart(part: DocumentSource, data: string): UserContentPart {
  return { type: 'input_file', filename: pdfFileName(part), file_data: dataUrl(part.mediaType, data) }
}

function outputLine(part: ToolResultContent): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'image':
      return part.data === undefined ? omittedUnresolved('image', part) : omittedUnsupported('image', part.mediaType)
    case 'document':
      if (part.data === undefined)
        return omittedUnresolved('document', part)
      return inlineDocumentText(part, part.data) ?? omittedUnsupported('document', part.mediaType)
    case 'audio':
    case 'video':
      return omittedUnsupported(part.type, part.mediaType)
  }
}
