/**
 * Session blocks → Messages API content blocks, one block at a time. Pure and
 * field-order stable: the same block always serializes to the same bytes.
 */

import type {
  Base64ImageSource,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages'
import type { SessionContentBlock, ToolResultContent } from '../../core/content'
import type { DocumentSource } from '../shared/content-rules'
import { inlineDocumentText, isTextualMediaType } from '../documents'
import { compactSummaryText, isAcceptedImageType, isBase64Pdf, omittedUnresolved, omittedUnsupported } from '../shared/content-rules'
import { fitToolCallId } from '../tool-call-ids'
import { unsupportedContentError } from './errors'

type ImageMediaType = Base64ImageSource['media_type']

type ToolResultBlockContent = Exclude<ToolResultBlockParam['content'], string | undefined>[number]

/** The Messages API's limit on `tool_use.id` (which must match `^[a-zA-Z0-9_-]+$`). */
const MAX_TOOL_USE_ID_LENGTH = 64

/**
 * The id a session tool call (and the result answering it) travels under:
 * itself when the API accepts it, else a readable prefix and a hash of it, so
 * a conversation begun on another provider (`call.odd:id/1`) still pairs and
 * serializes to the same bytes every turn (see `../tool-call-ids`).
 */
export function anthropicToolUseId(id: string): string {
  return fitToolCallId(id, MAX_TOOL_USE_ID_LENGTH)
}

/**
 * One session block → zero or one wire block. Returns `undefined` for blocks
 * this API never sees (other providers' reasoning, thinking without an
 * Anthropic signature, empty text) and throws `unsupported` for content it
 * cannot carry, before any request is made.
 */
export function toWireBlock(block: SessionContentBlock): ContentBlockParam | undefined {
  switch (block.type) {
    case 'text':
      return block.text ? textBlock(block.text) : undefined
    case 'image':
      return imageBlock(block)
    case 'document':
      return documentBlock(block)
    case 'audio':
    case 'video':
      throw unsupportedContentError(`${block.type} content (${block.mediaType})`)
    case 'tool_call':
      return { type: 'tool_use', id: anthropicToolUseId(block.id), name: block.name, input: block.input }
    case 'tool_result':
      return toolResultBlock(block.callId, block.output, block.isError)
    case 'thinking':
      // Only Anthropic can verify its own signature; unsigned or foreign reasoning is not replayable.
      if (!block.signature || (block.signatureProducer !== undefined && block.signatureProducer !== 'anthropic'))
        return undefined
      return { type: 'thinking', thinking: block.text, signature: block.signature }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data }
    case 'server_tool_use':
      return { type: 'server_tool_use', id: block.id, name: block.name, input: block.input } as ContentBlockParam
    case 'server_tool_result':
      // `content` holds the result block exactly as the API streamed it, so it is sent back unchanged.
      return isWireBlock(block.content) ? block.content : undefined
    case 'compact-summary':
      return textBlock(compactSummaryText(block.summary))
    case 'provider_reasoning':
      return undefined
  }
}

function textBlock(text: string): TextBlockParam {
  return { type: 'text', text }
}

function imageBlock(part: { data?: string, ref?: string, mediaType: string }): ImageBlockParam {
  if (part.data === undefined)
    throw unsupportedContentError(`an unresolved image reference (${part.ref})`)
  if (!isAcceptedImageType(part.mediaType))
    throw unsupportedContentError(`images of type ${part.mediaType}`)
  return { type: 'image', source: { type: 'base64', media_type: part.mediaType as ImageMediaType, data: part.data } }
}

/** PDFs become native document blocks; text documents are inlined as text under a header naming them. */
function documentBlock(part: DocumentSource): DocumentBlockParam | TextBlockParam {
  if (part.data === undefined)
    throw unsupportedContentError(`an unresolved document reference (${part.ref})`)
  if (isBase64Pdf(part)) {
    const block: DocumentBlockParam = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } }
    if (part.name)
      block.title = part.name
    return block
  }
  const inlined = inlineDocumentText(part, part.data)
  if (inlined === undefined)
    throw unsupportedContentError(`documents of type ${part.mediaType}`)
  return textBlock(inlined)
}

function toolResultBlock(callId: string, output: string | ToolResultContent[], isError: boolean | undefined): ToolResultBlockParam {
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: anthropicToolUseId(callId) }
  if (typeof output === 'string') {
    block.content = output
  }
  else {
    const parts = output.map(toolResultPart).filter(part => part !== undefined)
    if (parts.length > 0)
      block.content = parts
  }
  if (isError)
    block.is_error = true
  return block
}

/**
 * Tool results come from tools and MCP servers the model chose to call, so
 * content this API cannot carry becomes a short note rather than an error
 * that would fail every later request of the session.
 */
function toolResultPart(part: ToolResultContent): ToolResultBlockContent | undefined {
  switch (part.type) {
    case 'text':
      return part.text ? textBlock(part.text) : undefined
    case 'image':
      if (part.data === undefined)
        return textBlock(omittedUnresolved('image', part))
      if (!isAcceptedImageType(part.mediaType))
        return textBlock(omittedUnsupported('image', part.mediaType))
      return imageBlock(part)
    case 'document':
      if (part.data === undefined)
        return textBlock(omittedUnresolved('document', part))
      if (part.encoding === 'base64' && !isBase64Pdf(part) && !isTextualMediaType(part.mediaType))
        return textBlock(omittedUnsupported('document', part.mediaType))
      return documentBlock(part)
    case 'audio':
    case 'video':
      return textBlock(omittedUnsupported(part.type, part.mediaType))
  }
}

function isWireBlock(value: unknown): value is ContentBlockParam {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

/** Thinking blocks cannot carry `cache_control`; breakpoints go on the nearest block before them. */
export function acceptsCacheControl(block: ContentBlockParam): boolean {
  return block.type !== 'thinking' && block.type !== 'redacted_thinking'
}
