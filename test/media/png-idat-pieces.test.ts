/**
 * A PNG may split its pixel data over any number of IDAT chunks. Each
 * chunk used to be one write to the inflater, and so one round trip to
 * zlib's thread pool: a file cut into one-byte chunks decoded about 40 times
 * slower than the same image in one chunk. The data is now written in
 * pieces of at least 64 KiB, so the work follows the bytes, not the chunks.
 */

import { Buffer } from 'node:buffer'
import { Duplex } from 'node:stream'
import { deflateSync, Inflate } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { downscalePng, pngSize } from '../../src/media/png'
import { chunk, ihdr } from './png-fixtures'

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])

/** A noisy RGB image of `width` × `height` (so it compresses poorly), its pixel data deflated. */
function pixelData(width: number, height: number): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height)
  let seed = 7
  for (let i = 0; i < raw.length; i++) {
    if (i % (width * 3 + 1) === 0)
      continue
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    raw[i] = seed >>> 24
  }
  return deflateSync(raw)
}

/** The PNG with its compressed data cut into IDAT chunks of `size` bytes. */
function pngInChunks(width: number, height: number, data: Buffer, size: number): Buffer {
  const parts: Buffer[] = []
  for (let at = 0; at < data.length; at += size)
    parts.push(chunk('IDAT', data.subarray(at, at + size)))
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr(width, height, 2)), ...parts, chunk('IEND', new Uint8Array())])
}

/** `downscalePng`, counting the writes to zlib's inflater. */
async function downscaleCountingWrites(png: Buffer, maxEdge: number) {
  // The inflater is a Transform, which has a Duplex's `write`.
  const write = Duplex.prototype.write
  let writes = 0
  const spy = vi.spyOn(Duplex.prototype, 'write').mockImplementation(function (this: Duplex, ...args: Parameters<Duplex['write']>) {
    if (this instanceof Inflate)
      writes++
    return write.apply(this, args)
  })
  try {
    return { out: await downscalePng(png, maxEdge), writes }
  }
  finally {
    spy.mockRestore()
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a PNG whose pixel data is cut into many IDAT chunks', () => {
  it('is inflated in a few large writes, and shrinks to the same image as with one chunk', async () => {
    const data = pixelData(120, 90)
    expect(data.length).toBeGreaterThan(20_000)
    const whole = await downscaleCountingWrites(pngInChunks(120, 90, data, data.length), 40)
    const split = await downscaleCountingWrites(pngInChunks(120, 90, data, 1), 40)
    expect(whole.out).toBeDefined()
    expect(whole.writes).toBe(1)
    expect(pngSize(split.out!)).toEqual({ width: 40, height: 30 })
    expect(Buffer.from(split.out!).equals(Buffer.from(whole.out!))).toBe(true)
    // One write per 64 KiB of compressed data, not one per chunk (there are over 20,000 of them).
    expect(split.writes).toBe(whole.writes)
    expect(split.writes).toBeLessThanOrEqual(2)
  })

  it('keeps large chunks as they are and joins runs of small ones between them', async () => {
    const data = pixelData(300, 300)
    expect(data.length).toBeGreaterThan(200_000)
    const mixed = await downscaleCountingWrites(pngInChunks(300, 300, data, 100_000), 100)
    const tiny = await downscaleCountingWrites(pngInChunks(300, 300, data, 3), 100)
    expect(Buffer.from(tiny.out!).equals(Buffer.from(mixed.out!))).toBe(true)
    expect(tiny.writes).toBeLessThanOrEqual(Math.ceil(data.length / 65_536))
  })
})
