/**
 * Pixel size of an inline image from its header bytes (PNG, JPEG, GIF, WebP),
 * without decoding it. The media stages use it to find images too large for a
 * request that carries many; an unknown format gives `undefined`.
 */

/** Base64 characters decoded when sniffing a header: enough for PNG, GIF and WebP, and for most JPEGs' frame header. */
const HEAD_CHARS = 4096

/** Width and height of a base64 image, or `undefined` when the format or header is not recognized. */
export function base64ImageSize(data: string): { width: number, height: number } | undefined {
  let bytes = Buffer.from(data.slice(0, HEAD_CHARS), 'base64')
  let size = imageSize(bytes)
  // A JPEG's frame header can sit after large metadata segments: read the whole file then.
  if (size === undefined && bytes[0] === 0xFF && bytes[1] === 0xD8 && data.length > HEAD_CHARS) {
    bytes = Buffer.from(data, 'base64')
    size = imageSize(bytes)
  }
  return size
}

/** Width and height from an image's leading bytes. */
export function imageSize(b: Uint8Array): { width: number, height: number } | undefined {
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4E && b[3] === 0x47)
    return { width: u32be(b, 16), height: u32be(b, 20) }
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46)
    return { width: b[6] | (b[7] << 8), height: b[8] | (b[9] << 8) }
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP')
    return webpSize(b)
  if (b.length >= 4 && b[0] === 0xFF && b[1] === 0xD8)
    return jpegSize(b)
  return undefined
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0
}

function ascii(b: Uint8Array, from: number, to: number): string {
  let text = ''
  for (let at = from; at < to; at++)
    text += String.fromCharCode(b[at])
  return text
}

function webpSize(b: Uint8Array): { width: number, height: number } | undefined {
  const kind = ascii(b, 12, 16)
  if (kind === 'VP8X')
    return { width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)) }
  if (kind === 'VP8 ')
    return { width: (b[26] | (b[27] << 8)) & 0x3FFF, height: (b[28] | (b[29] << 8)) & 0x3FFF }
  if (kind === 'VP8L') {
    const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24)
    return { width: (bits & 0x3FFF) + 1, height: ((bits >>> 14) & 0x3FFF) + 1 }
  }
  return undefined
}

/** Walk the JPEG segments to the first start-of-frame marker. */
function jpegSize(b: Uint8Array): { width: number, height: number } | undefined {
  let at = 2
  while (at + 9 < b.length) {
    if (b[at] !== 0xFF)
      return undefined
    const marker = b[at + 1]
    if (marker === 0xFF) {
      at++
      continue
    }
    const length = (b[at + 2] << 8) | b[at + 3]
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xC0 && marker <= 0xCF && marker !== 0xC4 && marker !== 0xC8 && marker !== 0xCC)
      return { height: (b[at + 5] << 8) | b[at + 6], width: (b[at + 7] << 8) | b[at + 8] }
    at += 2 + length
  }
  return undefined
}
