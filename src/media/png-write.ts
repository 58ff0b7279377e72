/**
 * Writing 8-bit PNGs. The pixel work runs one row per step of a generator, so
 * the synchronous encoder drains it at once and the downscaler in strips.
 */

import type { PngColorType, RgbaImage } from './png-format'
import { deflateSync } from 'node:zlib'
import { CHANNELS, COLOR_CODE, concat, crc32, paeth, PngUnsupportedError, SIGNATURE, writeU32 } from './png-format'

/** How to encode: the color type (default: `'rgb'` when every pixel is opaque, else `'rgba'`) and the row filter (default: chosen per row). */
export interface PngEncodeOptions {
  readonly colorType?: PngColorType
  /** `0`–`4` (none, sub, up, average, Paeth) for every row, or `'adaptive'`: per row, the one with the smallest sum of absolute values. */
  readonly filter?: 0 | 1 | 2 | 3 | 4 | 'adaptive'
}

/** An image's rows filtered and ready to deflate, with the chunks that go before them. */
export interface PreparedPng {
  readonly width: number
  readonly height: number
  readonly color: number
  readonly filtered: Uint8Array
  readonly palette?: Uint8Array
  readonly trns?: Uint8Array
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

/**
 * Convert and filter an image's rows, one row per step; each step yields the
 * bytes it handled. A color type the pixels cannot be written in (gray for a
 * colored image, palette past 256 colors) throws `PngUnsupportedError`.
 */
export function* preparePng(image: RgbaImage, colorType: PngColorType, filter: PngEncodeOptions['filter'] & {}): Generator<number, PreparedPng> {
  const { width, height, data } = image
  if (width < 1 || height < 1 || data.length !== width * height * 4)
    throw new PngUnsupportedError(`pixel buffer does not match ${width}x${height}`)
  const color = COLOR_CODE[colorType]
  const bpp = CHANNELS[color]
  const stride = width * bpp
  const filtered = new Uint8Array((stride + 1) * height)
  const candidates = filter === 'adaptive' ? [0, 1, 2, 3, 4] : [filter]
  const scratch = new Uint8Array(stride)
  const paletteSlots = new Map<number, number>()
  let previous = new Uint8Array(stride)
  let current = new Uint8Array(stride)
  for (let y = 0; y < height; y++) {
    const swap = previous
    previous = current
    current = swap
    toSamples(data.subarray(y * width * 4, (y + 1) * width * 4), color, current, paletteSlots)
    const prev = y === 0 ? undefined : previous
    let best = candidates[0]
    if (candidates.length > 1) {
      let bestScore = Number.POSITIVE_INFINITY
      for (const type of candidates) {
        filterRow(current, prev, bpp, type, scratch)
        let score = 0
        for (let x = 0; x < stride; x++) score += scratch[x] < 128 ? scratch[x] : 256 - scratch[x]
        if (score < bestScore) {
          bestScore = score
          best = type
        }
      }
    }
    filtered[y * (stride + 1)] = best
    filterRow(current, prev, bpp, best, filtered.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)))
    yield stride * candidates.length
  }
  if (color !== 3)
    return { width, height, color, filtered }
  // Palette: colors in first-seen order, so the same image always gives the same bytes.
  const palette = new Uint8Array(paletteSlots.size * 3)
  const alpha = new Uint8Array(paletteSlots.size)
  for (const [key, slot] of paletteSlots) {
    palette[slot * 3] = key >>> 24
    palette[slot * 3 + 1] = (key >>> 16) & 0xFF
    palette[slot * 3 + 2] = (key >>> 8) & 0xFF
    alpha[slot] = key & 0xFF
  }
  return { width, height, color, filtered, palette, trns: alpha.every(a => a === 255) ? undefined : alpha }
}

/** One RGBA row in the samples of `color`, checking that the pixels can be written in it. */
function toSamples(rgba: Uint8Array, color: number, into: Uint8Array, paletteSlots: Map<number, number>): void {
  const count = rgba.length / 4
  for (let i = 0; i < count; i++) {
    const o = i * 4
    const r = rgba[o]
    const a = rgba[o + 3]
    if ((color === 0 || color === 4) && (r !== rgba[o + 1] || r !== rgba[o + 2]))
      throw new PngUnsupportedError('a colored image cannot be written as gray')
    if (color === 0 && a !== 255)
      throw new PngUnsupportedError('a transparent image cannot be written as opaque gray')
    if (color === 2 && a !== 255)
      throw new PngUnsupportedError('a transparent image cannot be written as opaque RGB')
    if (color === 0) {
      into[i] = r
    }
    else if (color === 4) {
      into[i * 2] = r
      into[i * 2 + 1] = a
    }
    else if (color === 2) {
      into[i * 3] = r
      into[i * 3 + 1] = rgba[o + 1]
      into[i * 3 + 2] = rgba[o + 2]
    }
    else if (color === 6) {
      into.set(rgba.subarray(o, o + 4), i * 4)
    }
    else {
      const key = ((r << 24) | (rgba[o + 1] << 16) | (rgba[o + 2] << 8) | a) >>> 0
      let slot = paletteSlots.get(key)
      if (slot === undefined) {
        slot = paletteSlots.size
        if (slot >= 256)
          throw new PngUnsupportedError('more than 256 colors cannot be written as a palette')
        paletteSlots.set(key, slot)
      }
      into[i] = slot
    }
  }
}

function filterRow(row: Uint8Array, prev: Uint8Array | undefined, bpp: number, type: number, into: Uint8Array): void {
  const stride = row.length
  if (type === 0) {
    into.set(row)
  }
  else if (type === 1) {
    for (let x = 0; x < stride; x++) into[x] = row[x] - (x >= bpp ? row[x - bpp] : 0)
  }
  else if (type === 2) {
    for (let x = 0; x < stride; x++) into[x] = row[x] - (prev ? prev[x] : 0)
  }
  else if (type === 3) {
    for (let x = 0; x < stride; x++) into[x] = row[x] - (((x >= bpp ? row[x - bpp] : 0) + (prev ? prev[x] : 0)) >> 1)
  }
  else {
    for (let x = 0; x < stride; x++) {
      const left = x >= bpp ? row[x - bpp] : 0
      const up = prev ? prev[x] : 0
      const upLeft = prev && x >= bpp ? prev[x - bpp] : 0
      into[x] = row[x] - paeth(left, up, upLeft)
    }
  }
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + 12)
  writeU32(out, 0, data.length)
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i)
  out.set(data, 8)
  writeU32(out, data.length + 8, crc32(out, 4, data.length + 8))
  return out
}

/** The PNG file: signature, header, palette and transparency when there are any, the deflated rows, end. */
export function assemblePng(prepared: PreparedPng, deflated: Uint8Array): Uint8Array {
  const ihdr = new Uint8Array(13)
  writeU32(ihdr, 0, prepared.width)
  writeU32(ihdr, 4, prepared.height)
  ihdr[8] = 8
  ihdr[9] = prepared.color
  const chunks: Uint8Array[] = [SIGNATURE, chunk('IHDR', ihdr)]
  if (prepared.palette)
    chunks.push(chunk('PLTE', prepared.palette))
  if (prepared.trns)
    chunks.push(chunk('tRNS', prepared.trns))
  chunks.push(chunk('IDAT', deflated), chunk('IEND', new Uint8Array(0)))
  return concat(chunks)
}

/** Encode RGBA pixels as an 8-bit PNG. A color type the pixels cannot be written in (gray for a colored image, palette past 256 colors) throws `PngUnsupportedError`. */
export function encodePng(image: RgbaImage, options: PngEncodeOptions = {}): Uint8Array {
  const steps = preparePng(image, options.colorType ?? (isOpaque(image) ? 'rgb' : 'rgba'), options.filter ?? 'adaptive')
  let step = steps.next()
  while (!step.done) step = steps.next()
  return assemblePng(step.value, deflateSync(step.value.filtered))
}
