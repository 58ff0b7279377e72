/**
 * What every part of the PNG codec shares: the pixel type, the refusal
 * errors, the file signature, the color-type tables and the byte helpers.
 */

import { crc32 as zlibCrc32 } from 'node:zlib'

/** Decoded pixels: `width * height` RGBA quadruples, row by row, 8 bits per channel. */
export interface RgbaImage {
  readonly width: number
  readonly height: number
  readonly data: Uint8Array
}

/** PNG color types the codec reads and writes. */
export type PngColorType = 'gray' | 'rgb' | 'palette' | 'gray-alpha' | 'rgba'

/** A PNG the codec does not handle, or bytes that are not a well-formed PNG, or one past the decoder's limits; `reason` says which. */
export class PngUnsupportedError extends Error {
  override readonly name = 'PngUnsupportedError'
  constructor(readonly reason: string) {
    super(`PNG not handled: ${reason}`)
  }
}

/** A decode stopped part way because the signal it was given fired. */
export class PngDecodeAbortedError extends Error {
  override readonly name = 'PngDecodeAbortedError'
  constructor() {
    super('PNG decoding stopped: its signal was aborted')
  }
}

export const SIGNATURE = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10])
export const COLOR_CODE: Readonly<Record<PngColorType, number>> = { 'gray': 0, 'rgb': 2, 'palette': 3, 'gray-alpha': 4, 'rgba': 6 }
/** Samples per pixel of each color type code. */
export const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }

/** CRC-32 of `bytes[start, end)`, as PNG chunks carry it (native, so checking a large file stays cheap). */
export function crc32(bytes: Uint8Array, start: number, end: number): number {
  return zlibCrc32(bytes.subarray(start, end)) >>> 0
}

export function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0
}

export function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24
  bytes[at + 1] = (value >>> 16) & 0xFF
  bytes[at + 2] = (value >>> 8) & 0xFF
  bytes[at + 3] = value & 0xFF
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
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

/** The Paeth predictor of the PNG row filters. */
export function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}
