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

/** Longest name or media type the header repeats, in code points. */
const LABEL_CHARS = 200

/** Control characters (C0, DEL, C1 with NEL), line and paragraph separators, and what would end or open an attribute or tag. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const LABEL_UNSAFE = /[\0-\x1F\x7F-\x9F\u2028\u2029"<>&]/g

/** The closing tag, in any case, with or without what follows it. */
const CLOSING_TAG = /<\/(attached-document)/gi

/** A name or media type as one line that stays inside its quotes, at most `LABEL_CHARS` long. */
function label(text: string): string {
  // Cut by code points, so a cut never leaves half a surrogate pair.
  return Array.from(text.slice(0, LABEL_CHARS * 2)).slice(0, LABEL_CHARS).join('').replace(LABEL_UNSAFE, '_')
}

/**
 * The header tells the model where the attachment starts and ends and what it
 * is called. Name, type and text come from a tool, a server or a file, so
 * none may forge the header's attributes or end the attachment early: the
 * name and type are made safe labels, and a closing tag in the text is
 * escaped, so the only one is the real end.
 */
function withHeader(document: InlineDocument, text: string): string {
  const body = text.replace(CLOSING_TAG, '<\\/$1')
  return `<attached-document name="${label(document.name ?? 'untitled')}" media-type="${label(document.mediaType)}">\n${body}\n</attached-document>`
}
