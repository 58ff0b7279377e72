import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../core/content'
import type { WireStage } from '../stage'
import { Buffer } from 'node:buffer'
import { mergeObjects } from '../../core/merge-objects'

/**
 * A wire-only stage: every inline image goes out under the media type its
 * bytes have, or not at all. The APIs that take images check them: Anthropic
 * answers 400 when the bytes are not the declared type ("Image does not match
 * the provided media type image/png") or when the data is empty, and the
 * OpenAI APIs refuse an image they cannot read. The image stays in the
 * conversation, so every later request fails the same way and no retry cures
 * it: one screenshot saved under the wrong name, or an MCP server labelling
 * a JPEG as PNG, ended the session.
 *
 * So each image whose leading bytes are a PNG, JPEG, GIF or WebP goes out
 * under that type, whatever it was declared as; one declared as one of them
 * whose bytes are none of them (or that has none) goes out as a short note
 * instead. A base64 document declared `application/pdf` is checked the
 * same way (see `checkedPdf`). The session keeps
 * the image as it came, and hooks see it so: only the request changes, the
 * same way on every request. Images given by reference are left to the
 * providers, which check them against their own rules.
 */
export const imageBytesStage: WireStage = {
  name: 'image-bytes',
  scope: 'message',
  apply: (messages) => {
    let out: SessionMessage[] | undefined
    for (let i = 0; i < messages.length; i++) {
      const content = checkedBlocks(messages[i].content)
      if (content === messages[i].content)
        continue
      out ??= messages.slice()
      out[i] = { role: messages[i].role, content }
    }
    return out ?? messages
  },
}

/** The image types every image-taking API reads, by what their first bytes are. */
type SniffedImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/** GIF's two signatures. */
const GIF_SIGNATURE = /^GIF8[79]a$/

/** Base64 characters decoded to sniff a type: 12 bytes, enough for WebP's `RIFF....WEBP`. */
const SNIFF_CHARS = 16

/** How far into the base64 whitespace (a wrapped or indented encoding) is skipped to find those characters. */
const SNIFF_SCAN_CHARS = 1024

const WHITESPACE = /\s+/g

/** The first `count` base64 characters of `data` as bytes, whitespace in the first `SNIFF_SCAN_CHARS` skipped. */
function leadingBytes(data: string, count: number): Buffer {
  // Decoding drops whitespace but keeps counting it: without this, 16 characters
  // of a line-wrapped encoding hold less than 12 bytes, and WebP went unseen.
  return Buffer.from(data.slice(0, SNIFF_SCAN_CHARS + count).replace(WHITESPACE, '').slice(0, count), 'base64')
}

/** The image type `data` (base64) starts as, or `undefined` when it is none of them. */
export function sniffImageType(data: string): SniffedImageType | undefined {
  const b = leadingBytes(data, SNIFF_CHARS)
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4E && b[3] === 0x47 && b[4] === 0x0D && b[5] === 0x0A && b[6] === 0x1A && b[7] === 0x0A)
    return 'image/png'
  if (b.length >= 3 && b[0] === 0xFF && b[1] === 0xD8 && b[2] === 0xFF)
    return 'image/jpeg'
  if (b.length >= 6 && GIF_SIGNATURE.test(b.toString('latin1', 0, 6)))
    return 'image/gif'
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp'
  return undefined
}

/** An inline image as a block of a message or a part of a tool's output. */
interface InlineImage {
  type: 'image'
  data?: string
  mediaType: string
  name?: string
}

/** `blocks` with each inline image checked (see the stage); `blocks` itself when none changed. */
function checkedBlocks(blocks: SessionContentBlock[]): SessionContentBlock[] {
  let out: SessionContentBlock[] | undefined
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]
    let checked: SessionContentBlock = block
    if (block.type === 'image') {
      checked = checkedImage(block) as SessionContentBlock
    }
    else if (block.type === 'document') {
      checked = checkedPdf(block) as SessionContentBlock
    }
    else if (block.type === 'tool_result' && Array.isArray(block.output)) {
      const output = checkedParts(block.output)
      if (output !== block.output)
        checked = mergeObjects(block, { output })
    }
    if (checked !== block) {
      out ??= blocks.slice()
      out[i] = checked
    }
  }
  return out ?? blocks
}

function checkedParts(parts: ToolResultContent[]): ToolResultContent[] {
  let out: ToolResultContent[] | undefined
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    const checked = part.type === 'image'
      ? checkedImage(part) as ToolResultContent
      : part.type === 'document' ? checkedPdf(part) as ToolResultContent : part
    if (checked !== part) {
      out ??= parts.slice()
      out[i] = checked
    }
  }
  return out ?? parts
}

/** The types the sniffer knows: the image types every image-taking API reads. */
const SNIFFED_TYPES: ReadonlySet<string> = new Set<SniffedImageType>(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/**
 * The image under the type its bytes have; a note when it claims one of the
 * types APIs read but its bytes are none of them; itself when it is right,
 * given by reference, or of a type no API reads (the providers send their
 * own note for those).
 */
function checkedImage(image: InlineImage): InlineImage | { type: 'text', text: string } {
  if (typeof image.data !== 'string')
    return image
  const sniffed = sniffImageType(image.data)
  if (sniffed !== undefined)
    return sniffed === image.mediaType ? image : mergeObjects(image, { mediaType: sniffed })
  return SNIFFED_TYPES.has(image.mediaType) ? { type: 'text', text: unreadableNote(image) } : image
}

function unreadableNote(image: InlineImage): string {
  return leftOutNote('Image', image, 'its bytes are not a PNG, JPEG, GIF or WebP image')
}

/** What the model reads in place of inline media left out of the request: its kind, name and declared type, and why. */
function leftOutNote(kind: 'Image' | 'Document', media: { data?: string, mediaType: string, name?: string }, unreadable: string): string {
  const named = typeof media.name === 'string' && media.name.length > 0 && media.name.length <= 200 ? ` "${media.name}"` : ''
  const what = media.data === '' ? 'it has no data' : unreadable
  return `[${kind}${named} (declared ${String(media.mediaType).slice(0, 100)}) left out of the request: ${what}.]`
}

/** Where a PDF's `%PDF-` may be: readers accept up to a kilobyte of anything before it. */
const PDF_HEADER_BYTES = 1024

/** Base64 characters holding the first `PDF_HEADER_BYTES` bytes. */
const PDF_HEADER_CHARS = Math.ceil(PDF_HEADER_BYTES / 3) * 4

/** An inline document as a block of a message or a part of a tool's output. */
interface InlineDocumentBlock {
  type: 'document'
  data?: string
  encoding: 'base64' | 'text'
  mediaType: string
  name?: string
}

/**
 * A base64 document declared `application/pdf` whose first kilobyte has no
 * `%PDF-` (an HTML error page, an empty file) goes out as a note, as an
 * unreadable image does: it would go out as a PDF, the API would refuse it,
 * and every later request of the session would fail the same way.
 */
function checkedPdf(document: InlineDocumentBlock): InlineDocumentBlock | { type: 'text', text: string } {
  if (typeof document.data !== 'string' || document.encoding !== 'base64' || document.mediaType !== 'application/pdf')
    return document
  if (leadingBytes(document.data, PDF_HEADER_CHARS).includes('%PDF-', 0, 'latin1'))
    return document
  return { type: 'text', text: leftOutNote('Document', document, 'its bytes are not a PDF') }
}
