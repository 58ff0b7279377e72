/**
 * Text documents in prompts and tool results: every provider sends them as
 * plain text under the same header, so a conversation reads the same to any
 * model it moves to. Depends on nothing, so it loads no SDK.
 */

/** `application/*` types that are text, besides every `text/*` type. */
const TEXTUAL_APPLICATION_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/xml', 'application/yaml', 'application/x-yaml'])

export interface InlineDocument {
  mediaType: string
  encoding: 'text' | 'base64'
  name?: string
}

export function isTextualMediaType(mediaType: string): boolean {
  return mediaType.startsWith('text/') || TEXTUAL_APPLICATION_TYPES.has(mediaType)
}

/**
 * The document as inline text under a header naming it, or `undefined` when
 * it is binary (a PDF, an image) and needs the provider's own block type.
 */
export function inlineDocumentText(document: InlineDocument, data: string): string | undefined {
  if (document.encoding === 'text')
    return withHeader(document, data)
  if (isTextualMediaType(document.mediaType))
    return withHeader(document, Buffer.from(data, 'base64').toString('utf8'))
  return undefined
}

/** The header tells the model where the attachment starts and ends and what it is called. */
function withHeader(document: InlineDocument, text: string): string {
  const name = (document.name ?? 'untitled').replaceAll('"', '\'')
  return `<attached-document name="${name}" media-type="${document.mediaType}">\n${text}\n</attached-document>`
}
