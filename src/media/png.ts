/**
 * A small PNG codec on `node:zlib`: enough to shrink the screenshots and
 * renders tools return before they ride every request. It decodes
 * non-interlaced 8-bit PNGs of every color type (gray, RGB, palette, gray with
 * alpha, RGBA; `tRNS` transparency included) through all five row filters,
 * resamples by area averaging, and encodes 8-bit PNGs. Anything else
 * (interlaced, 16-bit, sub-byte depths, an unknown critical chunk, a damaged
 * file, one past the limits in `png-read.ts`) is refused with
 * `PngUnsupportedError`, so the caller can pass the original bytes through.
 */

import type { RgbaImage } from './png-format'
import { inflateSync } from 'node:zlib'
import { concat, PngUnsupportedError, SIGNATURE } from './png-format'
import { PngRowDecoder, readPngLayout } from './png-read'

export { downscalePng } from './png-downscale'
export { PngDecodeAbortedError, PngUnsupportedError } from './png-format'
export type { PngColorType, RgbaImage } from './png-format'
export { pngSize } from './png-read'
export { fitWithin, resizeRgba } from './png-resize'
export { encodePng, isGray, isOpaque } from './png-write'
export type { PngEncodeOptions } from './png-write'

/** Whether the bytes start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < SIGNATURE.length)
    return false
  return SIGNATURE.every((b, i) => bytes[i] === b)
}

/**
 * Decode a whole PNG to RGBA pixels at once, or throw `PngUnsupportedError`.
 * The limits hold as for `downscalePng` (inflation stops at the size the
 * header gives), but the work runs in one go: the agent shrinks images with
 * `downscalePng`, which runs in strips.
 */
export function decodePng(bytes: Uint8Array): RgbaImage {
  const layout = readPngLayout(bytes)
  let raw: Uint8Array
  try {
    raw = inflateSync(concat(layout.idat), { maxOutputLength: layout.inflatedBytes })
  }
  catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new PngUnsupportedError(`image data inflates past the ${layout.inflatedBytes} bytes the header gives`)
    throw new PngUnsupportedError(`image data does not inflate (${(error as Error).message})`)
  }
  if (raw.length < layout.inflatedBytes)
    throw new PngUnsupportedError('image data is shorter than the header says')
  const { width, height } = layout
  const rowLength = layout.rowBytes + 1
  const decoder = new PngRowDecoder(layout)
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) data.set(decoder.decode(raw.subarray(y * rowLength, (y + 1) * rowLength)), y * width * 4)
  return { width, height, data }
}
