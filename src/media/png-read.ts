/**
 * Reading a PNG: the walk over its chunks, the limits checked from the header
 * before any pixel data is inflated, and the per-row decoding (row filters,
 * then RGBA). Rows are decoded one at a time so a caller can stream them.
 */

import { CHANNELS, crc32, paeth, PngUnsupportedError, readU32, SIGNATURE } from './png-format'

/**
 * Most pixels a PNG may have to be decoded. Agents see screenshots and
 * rendered documents: an 8K screen is 33 MP, an A4 page scanned at 600 dpi
 * 35 MP, a full-page capture 1,920 px wide and 20,000 px tall 38 MP. Past
 * 40 MP the image is not one of those, and decoding it is only cost.
 */
export const MAX_PNG_PIXELS = 40_000_000

/**
 * Longest edge a PNG may have to be decoded. No screen or page capture is
 * longer, and it keeps the few row buffers a decode holds under 256 KiB each,
 * whatever shape the header claims.
 */
export const MAX_PNG_EDGE = 65_535

/** Inflated pixel data any PNG may need, whatever its compression: a 4K RGBA screenshot is 33 MB, a 5K RGB one 44 MB. */
export const FREE_INFLATED_BYTES = 64 * 1024 * 1024

/**
 * Past `FREE_INFLATED_BYTES`, inflated bytes allowed per byte of compressed
 * pixel data. Deflate reaches about 1,000:1 on a blank image, so a small file
 * can claim a huge one; screenshots and documents stay far below 256:1, and
 * the cap keeps a decode's work proportional to the bytes that were sent.
 */
export const MAX_INFLATE_RATIO = 256

/** The chunks the decoder needs; any other critical chunk (type starting upper case) makes it refuse the file. */
const KNOWN_CRITICAL = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND'])

/** A PNG's structure as its chunks describe it, checked against the limits: enough to decode its rows. */
export interface PngLayout {
  readonly width: number
  readonly height: number
  /** The color type code (0, 2, 3, 4 or 6). */
  readonly color: number
  /** Samples per pixel; at 8 bits each, also bytes per pixel. */
  readonly channels: number
  readonly palette?: Uint8Array
  readonly transparency?: Uint8Array
  /** The IDAT chunks' data, in order: one zlib stream. */
  readonly idat: readonly Uint8Array[]
  /** Bytes one row of pixels takes, without its filter byte. */
  readonly rowBytes: number
  /** Exactly what the pixel data must inflate to: every row and its filter byte. */
  readonly inflatedBytes: number
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

/** Width and height from a PNG's header, without decoding it; `undefined` when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number, height: number } | undefined {
  if (bytes.length < 24 || !SIGNATURE.every((b, i) => bytes[i] === b) || String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]) !== 'IHDR')
    return undefined
  return { width: readU32(bytes, 16), height: readU32(bytes, 20) }
}

/**
 * Walk a PNG's chunks (each CRC checked) and check its header against the
 * codec's formats and limits, without inflating anything. Throws
 * `PngUnsupportedError` for what the decoder will not read.
 */
export function readPngLayout(bytes: Uint8Array): PngLayout {
  const steps = readPngLayoutSteps(bytes)
  let step = steps.next()
  while (!step.done) step = steps.next()
  return step.value
}

/** `readPngLayout` one chunk per step (each yields the bytes it checked), so a large file can be walked in strips. */
export function* readPngLayoutSteps(bytes: Uint8Array): Generator<number, PngLayout> {
  if (bytes.length < SIGNATURE.length || !SIGNATURE.every((b, i) => bytes[i] === b))
    throw new PngUnsupportedError('not a PNG (bad signature)')
  let at = SIGNATURE.length
  let header: { width: number, height: number, depth: number, color: number, interlace: number } | undefined
  let palette: Uint8Array | undefined
  let transparency: Uint8Array | undefined
  const idat: Uint8Array[] = []
  let idatBytes = 0
  let ended = false
  while (at + 12 <= bytes.length) {
    const length = readU32(bytes, at)
    const codes = bytes.subarray(at + 4, at + 8)
    const type = String.fromCharCode(codes[0], codes[1], codes[2], codes[3])
    if (!codes.every(isLetter))
      throw new PngUnsupportedError('a chunk type is not four letters')
    const dataStart = at + 8
    const dataEnd = dataStart + length
    if (dataEnd + 4 > bytes.length)
      throw new PngUnsupportedError(`chunk ${type} runs past the end of the file`)
    if (crc32(bytes, at + 4, dataEnd) !== readU32(bytes, dataEnd))
      throw new PngUnsupportedError(`chunk ${type} fails its CRC`)
    const data = bytes.subarray(dataStart, dataEnd)
    if (type === 'IHDR') {
      if (header)
        throw new PngUnsupportedError('a second IHDR chunk')
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
      idatBytes += length
    }
    else if (type === 'IEND') {
      ended = true
      break
    }
    else if (codes[0] < 97 && !KNOWN_CRITICAL.has(type)) {
      // An upper-case first letter marks a chunk a decoder must understand to show the image right.
      throw new PngUnsupportedError(`unknown critical chunk ${type}`)
    }
    at = dataEnd + 4
    yield length + 12
  }
  if (!header)
    throw new PngUnsupportedError('no IHDR chunk')
  if (!ended)
    throw new PngUnsupportedError('no IEND chunk')
  const { width, height, depth, color, interlace } = header
  if (width === 0 || height === 0)
    throw new PngUnsupportedError(`size ${width}x${height} is empty`)
  if (width > MAX_PNG_EDGE || height > MAX_PNG_EDGE)
    throw new PngUnsupportedError(`size ${width}x${height} has an edge longer than ${MAX_PNG_EDGE} pixels`)
  if (width * height > MAX_PNG_PIXELS)
    throw new PngUnsupportedError(`size ${width}x${height} is more than ${MAX_PNG_PIXELS} pixels`)
  if (depth !== 8)
    throw new PngUnsupportedError(`bit depth ${depth} (only 8 is decoded)`)
  if (interlace !== 0)
    throw new PngUnsupportedError('interlaced')
  const channels = CHANNELS[color]
  if (channels === undefined)
    throw new PngUnsupportedError(`color type ${color}`)
  if (color === 3 && (!palette || palette.length % 3 !== 0))
    throw new PngUnsupportedError('palette image without a valid PLTE chunk')
  if (idatBytes === 0)
    throw new PngUnsupportedError('no image data')
  const rowBytes = width * channels
  const inflatedBytes = height * (1 + rowBytes)
  if (inflatedBytes > Math.max(FREE_INFLATED_BYTES, MAX_INFLATE_RATIO * idatBytes))
    throw new PngUnsupportedError(`${idatBytes} bytes of image data claim ${inflatedBytes} bytes of pixels, more than ${MAX_INFLATE_RATIO} per byte`)
  return { width, height, color, channels, palette, transparency, idat, rowBytes, inflatedBytes }
}

/**
 * Turns a PNG's inflated rows into RGBA rows, one at a time, in order: undoes
 * each row's filter against the row before, then expands the color type. The
 * row it returns is reused by the next call.
 */
export class PngRowDecoder {
  private y = 0
  private previous: Uint8Array
  private current: Uint8Array
  private readonly rgba: Uint8Array
  private readonly grayKey: number
  private readonly rgbKey?: readonly [number, number, number]

  constructor(private readonly layout: PngLayout) {
    this.previous = new Uint8Array(layout.rowBytes)
    this.current = new Uint8Array(layout.rowBytes)
    this.rgba = new Uint8Array(layout.width * 4)
    // tRNS names one fully transparent color for gray and RGB images (16-bit samples; 8-bit images use the low byte).
    const trns = layout.transparency
    this.grayKey = layout.color === 0 && trns && trns.length >= 2 ? trns[1] : -1
    this.rgbKey = layout.color === 2 && trns && trns.length >= 6 ? [trns[1], trns[3], trns[5]] : undefined
  }

  /** Decode the next row: `row` is its filter byte and `rowBytes` filtered bytes. */
  decode(row: Uint8Array): Uint8Array {
    const swap = this.previous
    this.previous = this.current
    this.current = swap
    this.unfilter(row, this.current, this.previous, this.y === 0)
    this.y += 1
    this.expand(this.current)
    return this.rgba
  }

  /** Undo one row's filter. One loop per filter type, as this runs per byte. */
  private unfilter(raw: Uint8Array, out: Uint8Array, prev: Uint8Array, first: boolean): void {
    const filter = raw[0]
    const stride = this.layout.rowBytes
    const bpp = this.layout.channels
    if (filter === 0) {
      out.set(raw.subarray(1, 1 + stride))
    }
    else if (filter === 1) {
      for (let x = 0; x < stride; x++) out[x] = raw[1 + x] + (x >= bpp ? out[x - bpp] : 0)
    }
    else if (filter === 2) {
      for (let x = 0; x < stride; x++) out[x] = raw[1 + x] + (first ? 0 : prev[x])
    }
    else if (filter === 3) {
      for (let x = 0; x < stride; x++) out[x] = raw[1 + x] + (((x >= bpp ? out[x - bpp] : 0) + (first ? 0 : prev[x])) >> 1)
    }
    else if (filter === 4) {
      for (let x = 0; x < stride; x++) {
        const left = x >= bpp ? out[x - bpp] : 0
        const up = first ? 0 : prev[x]
        const upLeft = !first && x >= bpp ? prev[x - bpp] : 0
        out[x] = raw[1 + x] + paeth(left, up, upLeft)
      }
    }
    else {
      throw new PngUnsupportedError(`row ${this.y} has filter type ${filter}`)
    }
  }

  private expand(pixels: Uint8Array): void {
    const { width, color, palette, transparency } = this.layout
    const out = this.rgba
    for (let i = 0; i < width; i++) {
      const o = i * 4
      switch (color) {
        case 0: {
          const g = pixels[i]
          out[o] = g
          out[o + 1] = g
          out[o + 2] = g
          out[o + 3] = g === this.grayKey ? 0 : 255
          break
        }
        case 2: {
          const r = pixels[i * 3]
          const g = pixels[i * 3 + 1]
          const b = pixels[i * 3 + 2]
          const key = this.rgbKey
          out[o] = r
          out[o + 1] = g
          out[o + 2] = b
          out[o + 3] = key && r === key[0] && g === key[1] && b === key[2] ? 0 : 255
          break
        }
        case 3: {
          const index = pixels[i]
          if (index * 3 + 2 >= palette!.length)
            throw new PngUnsupportedError(`palette index ${index} is out of range`)
          out[o] = palette![index * 3]
          out[o + 1] = palette![index * 3 + 1]
          out[o + 2] = palette![index * 3 + 2]
          out[o + 3] = transparency && index < transparency.length ? transparency[index] : 255
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
  }
}
