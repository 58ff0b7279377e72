import { createHash } from 'node:crypto'

/**
 * Attachment handles and the text marker that stands for a piece of media a
 * wire stage took out of a request. Every stage that removes an image or a
 * document (media ageing, stale reads) leaves this marker, and every stage
 * that trims text (tail compaction) keeps it, so the model can always ask
 * `read_file` for the media again.
 */

/** The scheme of the handles markers name; `read_file` resolves them from the session. */
export const ATTACHMENT_SCHEME = 'attachment://'

/** Hex digits of the payload's SHA-256 a handle carries (128 bits: no two payloads of one session share one). */
export const HANDLE_DIGEST_HEX = 32

/** The media fields a handle and a marker are made from. */
export interface MarkedMedia {
  readonly type: 'image' | 'document'
  readonly mediaType: string
  readonly name?: string
  readonly data?: string
  readonly ref?: string
}

/**
 * Digests already computed, by the media block they were computed for, with
 * the payload they were computed from. Blocks are never edited in place, but
 * the payload is compared anyway (by reference first, which is what a block
 * seen again has), so a reused object cannot hand out a stale digest. A
 * request built every turn rehashes nothing it hashed before.
 */
const digests = new WeakMap<object, { readonly data?: string, readonly ref?: string, readonly digest: string }>()

/** The first `HANDLE_DIGEST_HEX` hex digits of the SHA-256 of the whole payload (or of the reference). */
export function mediaDigest(media: Pick<MarkedMedia, 'data' | 'ref'>): string {
  const known = digests.get(media)
  if (known && known.data === media.data && known.ref === media.ref)
    return known.digest
  const hash = createHash('sha256')
  // The prefixes keep an inline payload and a reference apart: they can never hash alike.
  if (media.data !== undefined)
    hash.update('data:').update(media.data, 'utf8')
  else hash.update('ref:').update(media.ref ?? '', 'utf8')
  const digest = hash.digest('hex').slice(0, HANDLE_DIGEST_HEX)
  digests.set(media, { data: media.data, ref: media.ref, digest })
  return digest
}

/**
 * The handle of a piece of media: `attachment://media-<digest>`, the digest
 * of its whole payload. It depends on the bytes only, never on where the
 * media sits or which call returned it, so repeated call ids cannot make two
 * images share a handle.
 */
export function attachmentHandle(media: Pick<MarkedMedia, 'data' | 'ref'>): string {
  return `${ATTACHMENT_SCHEME}media-${mediaDigest(media)}`
}

/** Characters of a media name or type a marker repeats; longer ones are cut. */
const LABEL_CHARS = 120
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1F\x7F"[\]]/g

/** A name or media type as a marker shows it: one line, no quotes or brackets, at most `LABEL_CHARS`. */
function label(text: string): string {
  return text.slice(0, LABEL_CHARS).replace(CONTROL, '_')
}

/** The fixed text a removed piece of media is replaced with: what it was, and the handle that brings it back. */
export function mediaMarker(media: MarkedMedia): string {
  const size = media.data === undefined ? `ref ${label(media.ref ?? '')}` : `${media.data.length} base64 bytes`
  const name = media.name ? `${label(media.name)}, ` : ''
  return `[${media.type} removed from this request to save context (${name}${label(media.mediaType)}, ${size}). To see it again: read_file path="${attachmentHandle(media)}"]`
}

/** A marker's shape, anchored and bounded (its labels are capped), so testing a long text is cheap. */
const MARKER = new RegExp(`^\\[(?:image|document) removed from this request to save context \\([^\\n]{0,${4 * LABEL_CHARS}}\\)\\. To see it again: read_file path="attachment://media-[0-9a-f]{${HANDLE_DIGEST_HEX}}"\\]$`)

/** Whether a text is a media marker, which a stage that trims text must keep. */
export function isMediaMarker(text: string): boolean {
  return text.length <= 8 * LABEL_CHARS && MARKER.test(text)
}
