/**
 * A small PNG codec on `node:zlib`: enough to shrink the screenshots and
 * renders tools return before they ride every request. It decodes
 * non-interlaced 8-bit PNGs of every color type (gray, RGB, palette, gray with
 * alpha, RGBA; `tRNS` transparency included) through all five row filters,
 * resamples by area averaging, and encodes 8-bit PNGs. Anything else
 * (interlaced, 16-bit, sub-byte depths, a damaged file) is refused with
 * `PngUnsupportedError`, so the caller can pass the original bytes through.
 */

import { deflateSync, inflateSync } from 'node:zlib'

/** Decoded pixels: `width * height` RGBA quadruples, row by row, 8 bits per channel. */
export interface RgbaImage {
  readonly width: number
  readonly height: number
  readonly data: Uint8Array
}

/** PNG color types the codec reads and writes. */
export type PngColorType = 'gray' | 'rgb' | 'palette' | 'gray-alpha' | 'rgba'

/** How to encode: the color type (default: `'rgb'` when every pixel is opaque, else `'rgba'`) and the row filter (default: chosen per row). */
export interface PngEncodeOptions {
  readonly colorType?: PngColorType
  /** `0`–`4` (none, sub, up, average, Paeth) for every row, or `'adaptive'`: per row, the one with the smallest sum of absolute values. */
  readonly filter?: 0 | 1 | 2 | 3 | 4 | 'adaptive'
}

/** A PNG the codec does not handle, or bytes that are not a well-formed PNG; `reason` says which. */
export class PngUnsupportedError extends Error {
  override readonly name = 'PngUnsupportedError'
  constructor(readonly reason: string) {
    super(`PNG not handled: ${reason}`)
  }
}

const SIGNATURE = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10])
const COLOR_CODE: Readonly<Record<PngColorType, number>> = { 'gray': 0, 'rgb': 2, 'palette': 3, 'gray-alpha': 4, 'rgba': 6 }
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
/** Decoded images larger than this are refused: a header can claim any size, and the RGBA buffer is allocated up front. */
const MAX_PIXELS = 100_000_000

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

function crc32(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xFFFFFFFF
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xFF] ^ (c >>> 8)
  return (c ^ 0xFFFFFFFF) >>> 0
}

function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0
}

/** Whether the bytes start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < SIGNATURE.length)
    return false
  return SIGNATURE.every((b, i) => bytes[i] === b)
}

/** Width and height from a PNG's header, without decoding it; `undefined` when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number, height: number } | undefined {
  if (!isPng(bytes) || bytes.length < 24 || String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]) !== 'IHDR')
    return undefined
  return { width: readU32(bytes, 16), height: readU32(bytes, 20) }
}

/** Decode a PNG to RGBA pixels, or throw `PngUnsupportedError`. */
export function decodePng(bytes: Uint8Array): RgbaImage {
  if (!isPng(bytes))
    throw new PngUnsupportedError('not a PNG (bad signature)')
  let at = SIGNATURE.length
  let header: { width: number, height: number, depth: number, color: number, interlace: number } | undefined
  let palette: Uint8Array | undefined
  let transparency: Uint8Array | undefined
  const idat: Uint8Array[] = []
  let ended = false
  while (at + 12 <= bytes.length) {
    const length = readU32(bytes, at)
    const type = String.fromCharCode(bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7])
    const dataStart = at + 8
    const dataEnd = dataStart + length
    if (dataEnd + 4 > bytes.length)
      throw new PngUnsupportedError(`chunk ${type} runs past the end of the file`)
    if (crc32(bytes, at + 4, dataEnd) !== readU32(bytes, dataEnd))
      throw new PngUnsupportedError(`chunk ${type} fails its CRC`)
    const data = bytes.subarray(dataStart, dataEnd)
    if (type === 'IHDR') {
      if (length !== 13)
        throw new PngUnsupportedError('IHDR has the wrong length')
      header = { width: readU32(data, 0), height: readU32(data, 4), depth: data[8], color: data[9], interlace: data[12] }
    }
    else if (type === 'PLTE') {
      palette = data
    }
    else if (type === 'tRNS') {
      transparency = data
    }
    else if (type === 'IDAT') {
      idat.push(data)
    }
    else if (type === 'IEND') {
      ended = true
      break
    }
    at = dataEnd + 4
  }
  if (!header)
    throw new PngUnsupportedError('no IHDR chunk')
  if (!ended)
    throw new PngUnsupportedError('no IEND chunk')
  const { width, height, depth, color, interlace } = header
  if (width === 0 || height === 0 || width * height > MAX_PIXELS)
    throw new PngUnsupportedError(`size ${width}x${height} is out of range`)
  if (depth !== 8)
    throw new PngUnsupportedError(`bit depth ${depth} (only 8 is decoded)`)
  if (interlace !== 0)
    throw new PngUnsupportedError('interlaced')
  const channels = CHANNELS[color]
  if (channels === undefined)
    throw new PngUnsupportedError(`color type ${color}`)
  if (color === 3 && (!palette || palette.length % 3 !== 0))
    throw new PngUnsupportedError('palette image without a valid PLTE chunk')
  let raw: Uint8Array
  try {
    raw = inflateSync(concat(idat))
  }
  catch (error) {
    throw new PngUnsupportedError(`image data does not inflate (${(error as Error).message})`)
  }
  const stride = width * channels
  if (raw.length < (stride + 1) * height)
    throw new PngUnsupportedError('image data is shorter than the header says')
  const pixels = unfilter(raw, stride, height, channels)
  return { width, height, data: toRgba(pixels, width, height, color, palette, transparency) }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1)
    return parts[0]
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** Undo the per-row filters: each row starts with its filter type byte. One loop per filter type, as this runs per byte. */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const src = y * (stride + 1) + 1
    const row = y * stride
    const prev = row - stride
    const first = y === 0
    if (filter === 0) {
      out.set(raw.subarray(src, src + stride), row)
    }
    else if (filter === 1) {
      for (let x = 0; x < stride; x++) out[row + x] = raw[src + x] + (x >= bpp ? out[row + x - bpp] : 0)
    }
    else if (filter === 2) {
      for (let x = 0; x < stride; x++) out[row + x] = raw[src + x] + (first ? 0 : out[prev + x])
    }
    else if (filter === 3) {
      for (let x = 0; x < stride; x++) out[row + x] = raw[src + x] + (((x >= bpp ? out[row + x - bpp] : 0) + (first ? 0 : out[prev + x])) >> 1)
    }
    else if (filter === 4) {
      for (let x = 0; x < stride; x++) {
        const left = x >= bpp ? out[row + x - bpp] : 0
        const up = first ? 0 : out[prev + x]
        const upLeft = !first && x >= bpp ? out[prev + x - bpp] : 0
        out[row + x] = raw[src + x] + paeth(left, up, upLeft)
      }
    }
    else {
      throw new PngUnsupportedError(`row ${y} has filter type ${filter}`)
    }
  }
  return out
}

function toRgba(pixels: Uint8Array, width: number, height: number, color: number, palette?: Uint8Array, trns?: Uint8Array): Uint8Array {
  const count = width * height
  const out = new Uint8Array(count * 4)
  // tRNS names one fully transparent color for gray and RGB images (16-bit samples, 8-bit images use the low byte).
  const grayKey = color === 0 && trns && trns.length >= 2 ? trns[1] : -1
  const rgbKey = color === 2 && trns && trns.length >= 6 ? [trns[1], trns[3], trns[5]] : undefined
  for (let i = 0; i < count; i++) {
    const o = i * 4
    switch (color) {
      case 0: {
        const g = pixels[i]
        out[o] = g
        out[o + 1] = g
        out[o + 2] = g
        out[o + 3] = g === grayKey ? 0 : 255
        break
      }
      case 2: {
        const r = pixels[i * 3]
        const g = pixels[i * 3 + 1]
        const b = pixels[i * 3 + 2]
        out[o] = r
        out[o + 1] = g
        out[o + 2] = b
        out[o + 3] = rgbKey && r === rgbKey[0] && g === rgbKey[1] && b === rgbKey[2] ? 0 : 255
        break
      }
      case 3: {
        const index = pixels[i]
        if (index * 3 + 2 >= palette!.length)
          throw new PngUnsupportedError(`palette index ${index} is out of range`)
        out[o] = palette![index * 3]
        out[o + 1] = palette![index * 3 + 1]
        out[o + 2] = palette![index * 3 + 2]
        out[o + 3] = trns && index < trns.length ? trns[index] : 255
        break
      }
      case 4:
        out[o] = pixels[i * 2]
        out[o + 1] = pixels[i * 2]
        out[o + 2] = pixels[i * 2]
        out[o + 3] = pixels[i * 2 + 1]
        break
      default:
        out[o] = pixels[i * 4]
        out[o + 1] = pixels[i * 4 + 1]
        out[o + 2] = pixels[i * 4 + 2]
        out[o + 3] = pixels[i * 4 + 3]
    }
  }
  return out
}

/** Whether every pixel is fully opaque. */
export function isOpaque(image: RgbaImage): boolean {
  for (let i = 3; i < image.data.length; i += 4) {
    if (image.data[i] !== 255)
      return false
  }
  return true
}

/** Whether every pixel is a shade of gray. */
export function isGray(image: RgbaImage): boolean {
  const d = image.data
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] !== d[i + 1] || d[i] !== d[i + 2])
      return false
  }
  return true
}

/** Encode RGBA pixels as an 8-bit PNG. A color type the pixels cannot be written in (gray for a colored image, palette past 256 colors) throws `PngUnsupportedError`. */
export function encodePng(image: RgbaImage, options: PngEncodeOptions = {}): Uint8Array {
  const { width, height, data } = image
  if (width < 1 || height < 1 || data.length !== width * height * 4)
    throw new PngUnsupportedError(`pixel buffer does not match ${width}x${height}`)
  const colorType = options.colorType ?? (isOpaque(image) ? 'rgb' : 'rgba')
  const color = COLOR_CODE[colorType]
  const channels = CHANNELS[color]
  const { pixels, palette, trns } = fromRgba(image, color)
  const stride = width * channels
  const filtered = filterRows(pixels, stride, height, channels, options.filter ?? 'adaptive')
  const chunks: Uint8Array[] = [SIGNATURE]
  const ihdr = new Uint8Array(13)
  writeU32(ihdr, 0, width)
  writeU32(ihdr, 4, height)
  ihdr[8] = 8
  ihdr[9] = color
  chunks.push(chunk('IHDR', ihdr))
  if (palette)
    chunks.push(chunk('PLTE', palette))
  if (trns)
    chunks.push(chunk('tRNS', trns))
  chunks.push(chunk('IDAT', deflateSync(filtered)))
  chunks.push(chunk('IEND', new Uint8Array(0)))
  return concat(chunks)
}

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24
  bytes[at + 1] = (value >>> 16) & 0xFF
  bytes[at + 2] = (value >>> 8) & 0xFF
  bytes[at + 3] = value & 0xFF
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + 12)
  writeU32(out, 0, data.length)
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i)
  out.set(data, 8)
  writeU32(out, data.length + 8, crc32(out, 4, data.length + 8))
  return out
}

function fromRgba(image: RgbaImage, color: number): { pixels: Uint8Array, palette?: Uint8Array, trns?: Uint8Array } {
  const d = image.data
  const count = image.width * image.height
  if ((color === 0 || color === 4) && !isGray(image))
    throw new PngUnsupportedError('a colored image cannot be written as gray')
  if (color === 0 && !isOpaque(image))
    throw new PngUnsupportedError('a transparent image cannot be written as opaque gray')
  if (color === 2) {
    if (!isOpaque(image))
      throw new PngUnsupportedError('a transparent image cannot be written as opaque RGB')
    const pixels = new Uint8Array(count * 3)
    for (let i = 0; i < count; i++) {
      pixels[i * 3] = d[i * 4]
      pixels[i * 3 + 1] = d[i * 4 + 1]
      pixels[i * 3 + 2] = d[i * 4 + 2]
    }
    return { pixels }
  }
  if (color === 6)
    return { pixels: d }
  if (color === 0 || color === 4) {
    const pixels = new Uint8Array(count * CHANNELS[color])
    for (let i = 0; i < count; i++) {
      if (color === 0) {
        pixels[i] = d[i * 4]
      }
      else {
        pixels[i * 2] = d[i * 4]
        pixels[i * 2 + 1] = d[i * 4 + 3]
      }
    }
    return { pixels }
  }
  // Palette: colors in first-seen order, so the same image always gives the same bytes.
  const index = new Map<number, number>()
  const pixels = new Uint8Array(count)
  for (let i = 0; i < count; i++) {
    const key = ((d[i * 4] << 24) | (d[i * 4 + 1] << 16) | (d[i * 4 + 2] << 8) | d[i * 4 + 3]) >>> 0
    let slot = index.get(key)
    if (slot === undefined) {
      slot = index.size
      if (slot >= 256)
        throw new PngUnsupportedError('more than 256 colors cannot be written as a palette')
      index.set(key, slot)
    }
    pixels[i] = slot
  }
  const palette = new Uint8Array(index.size * 3)
  const alpha = new Uint8Array(index.size)
  for (const [key, slot] of index) {
    palette[slot * 3] = key >>> 24
    palette[slot * 3 + 1] = (key >>> 16) & 0xFF
    palette[slot * 3 + 2] = (key >>> 8) & 0xFF
    alpha[slot] = key & 0xFF
  }
  return { pixels, palette, trns: alpha.every(a => a === 255) ? undefined : alpha }
}

function filterRows(pixels: Uint8Array, stride: number, height: number, bpp: number, filter: PngEncodeOptions['filter'] & {}): Uint8Array {
  const out = new Uint8Array((stride + 1) * height)
  const candidates = filter === 'adaptive' ? [0, 1, 2, 3, 4] : [filter]
  const scratch = new Uint8Array(stride)
  for (let y = 0; y < height; y++) {
    const row = y * stride
    let best = candidates[0]
    let bestScore = Number.POSITIVE_INFINITY
    if (candidates.length > 1) {
      for (const type of candidates) {
        filterRow(pixels, row, stride, bpp, y, type, scratch)
        let score = 0
        for (let x = 0; x < stride; x++) score += scratch[x] < 128 ? scratch[x] : 256 - scratch[x]
        if (score < bestScore) {
          bestScore = score
          best = type
        }
      }
    }
    out[y * (stride + 1)] = best
    filterRow(pixels, row, stride, bpp, y, best, out.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)))
  }
  return out
}

function filterRow(pixels: Uint8Array, row: number, stride: number, bpp: number, y: number, type: number, into: Uint8Array): void {
  const prev = row - stride
  const first = y === 0
  if (type === 0) {
    into.set(pixels.subarray(row, row + stride))
  }
  else if (type === 1) {
    for (let x = 0; x < stride; x++) into[x] = pixels[row + x] - (x >= bpp ? pixels[row + x - bpp] : 0)
  }
  else if (type === 2) {
    for (let x = 0; x < stride; x++) into[x] = pixels[row + x] - (first ? 0 : pixels[prev + x])
  }
  else if (type === 3) {
    for (let x = 0; x < stride; x++) into[x] = pixels[row + x] - (((x >= bpp ? pixels[row + x - bpp] : 0) + (first ? 0 : pixels[prev + x])) >> 1)
  }
  else {
    for (let x = 0; x < stride; x++) {
      const left = x >= bpp ? pixels[row + x - bpp] : 0
      const up = first ? 0 : pixels[prev + x]
      const upLeft = !first && x >= bpp ? pixels[prev + x - bpp] : 0
      into[x] = pixels[row + x] - paeth(left, up, upLeft)
    }
  }
}

/** The size an image of `width` x `height` gets when its longest edge is brought down to `maxEdge` (unchanged when it already fits). */
export function fitWithin(width: number, height: number, maxEdge: number): { width: number, height: number } {
  const longest = Math.max(width, height)
  if (longest <= maxEdge)
    return { width, height }
  const scale = maxEdge / longest
  return {
    width: Math.min(maxEdge, Math.max(1, Math.round(width * scale))),
    height: Math.min(maxEdge, Math.max(1, Math.round(height * scale))),
  }
}

/**
 * Resample to `width` x `height` by area averaging: each target pixel is the
 * mean of the source area it covers (partial pixels weighted), with color
 * weighted by alpha so transparent pixels do not darken edges. Meant for
 * shrinking, where it keeps text legible better than point sampling.
 */
export function resizeRgba(image: RgbaImage, width: number, height: number): RgbaImage {
  const sx = image.width / width
  const sy = image.height / height
  const out = new Uint8Array(width * height * 4)
  const src = image.data
  for (let ty = 0; ty < height; ty++) {
    const y0 = ty * sy
    const y1 = y0 + sy
    for (let tx = 0; tx < width; tx++) {
      const x0 = tx * sx
      const x1 = x0 + sx
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      let area = 0
      for (let y = Math.floor(y0); y < Math.min(image.height, Math.ceil(y1)); y++) {
        const wy = Math.min(y + 1, y1) - Math.max(y, y0)
        for (let x = Math.floor(x0); x < Math.min(image.width, Math.ceil(x1)); x++) {
          const w = wy * (Math.min(x + 1, x1) - Math.max(x, x0))
          const o = (y * image.width + x) * 4
          const alpha = src[o + 3] * w
          r += src[o] * alpha
          g += src[o + 1] * alpha
          b += src[o + 2] * alpha
          a += alpha
          area += w
        }
      }
      const o = (ty * width + tx) * 4
      if (a > 0) {
        out[o] = Math.round(r / a)
        out[o + 1] = Math.round(g / a)
        out[o + 2] = Math.round(b / a)
      }
      out[o + 3] = Math.round(a / area)
    }
  }
  return { width, height, data: out }
}

/**
 * Shrink a PNG so its longest edge is at most `maxEdge`. Returns the new
 * bytes, or `undefined` when the image already fits or is one the codec does
 * not handle (the caller keeps the original). Gray images stay gray.
 */
export function downscalePng(bytes: Uint8Array, maxEdge: number): Uint8Array | undefined {
  const size = pngSize(bytes)
  if (!size || Math.max(size.width, size.height) <= maxEdge)
    return undefined
  let image: RgbaImage
  try {
    image = decodePng(bytes)
  }
  catch (error) {
    if (error instanceof PngUnsupportedError)
      return undefined
    throw error
  }
  const target = fitWithin(image.width, image.height, maxEdge)
  const resized = resizeRgba(image, target.width, target.height)
  const opaque = isOpaque(resized)
  const colorType: PngColorType = isGray(resized) ? (opaque ? 'gray' : 'gray-alpha') : (opaque ? 'rgb' : 'rgba')
  return encodePng(resized, { colorType })
}
