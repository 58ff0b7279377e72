/**
 * Content rules every wire builder applies the same way, so a conversation
 * reads the same to whichever model it moves to: which images are accepted,
 * what a compaction summary says, the shape of a document part, and the notes
 * that stand in for tool-result content an API cannot carry. Depends on
 * nothing, so it loads no SDK.
 */

/** The image formats all three wire APIs (Messages, Chat Completions, Responses) accept. */
export const ACCEPTED_IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/** Whether an image of `mediaType` can be sent as an image rather than refused or noted. */
export function isAcceptedImageType(mediaType: string): boolean {
  return ACCEPTED_IMAGE_MEDIA_TYPES.has(mediaType)
}

/** The text a compaction summary travels as, in user and assistant turns alike. */
export function compactSummaryText(summary: string): string {
  return `Summary of the earlier conversation:\n${summary}`
}

/**
 * What the builders read of a document block or document tool-result part:
 * one shape for both, so a rule about documents is written once.
 */
export interface DocumentSource {
  data?: string
  ref?: string
  encoding: 'base64' | 'text'
  mediaType: string
  name?: string
}

/** A PDF carried as bytes: the one binary document every API takes as its own file or document part. */
export function isBase64Pdf(document: DocumentSource): boolean {
  return document.encoding === 'base64' && document.mediaType === 'application/pdf'
}

/** The file name a PDF travels under when the session gave it none. */
export function pdfFileName(document: DocumentSource): string {
  return document.name ?? 'document.pdf'
}

/**
 * Tool results come from tools and MCP servers the model chose to call, so
 * content an API cannot carry becomes one of these notes instead of an error
 * that would fail every later request of the session.
 */
export type OmittedKind = 'image' | 'document' | 'audio' | 'video'

/** The note for media of a type the API does not take. */
export function omittedUnsupported(kind: OmittedKind, mediaType: string): string {
  return `[${kind} omitted: ${mediaType} is not supported here]`
}

/** The note for a reference the host never resolved to bytes. */
export function omittedUnresolved(kind: OmittedKind, part: { name?: string, ref?: string }): string {
  return `[${kind} omitted: ${part.name ?? part.ref} was not resolved]`
}

/** The note for an image sent to a model that takes no images at all. */
export const OMITTED_IMAGE_NO_VISION = '[image omitted: this model does not take images]'

/**
 * What starts the output of a failed tool on APIs whose tool results have no
 * error flag (both OpenAI APIs; Anthropic's has `is_error`), so the model can
 * tell a failure from a result that merely mentions one.
 */
export const TOOL_ERROR_MARKER = '[tool error]'

/** A failed tool's output text, marked. */
export function markToolError(text: string): string {
  return `${TOOL_ERROR_MARKER} ${text}`
}
