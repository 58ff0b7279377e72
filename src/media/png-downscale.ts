/**
 * Shrinking a PNG without holding it whole or holding the event loop: the
 * pixel data is inflated as a stream on zlib's thread pool, each row is
 * decoded and summed into the smaller image as it arrives, and the pixel work
 * runs in strips that yield to the event loop and stop when the signal fires.
 * A decode costs memory for a few rows and the output, whatever the input's size.
 */

import type { PngColorType } from './png-format'
import type { PngLayout } from './png-read'
import { createDeflate, createInflate } from 'node:zlib'
import { PngDecodeAbortedError, PngUnsupportedError } from './png-format'
import { PngRowDecoder, pngSize, readPngLayoutSteps } from './png-read'
import { AreaResizer, fitWithin } from './png-resize'
import { assemblePng, preparePng } from './png-write'
import { Strips } from './strips'

/** Fewest compressed bytes written to the inflater at once (but the last piece). */
const INFLATE_PIECE = 64 * 1024

/** `parts` in order, consecutive ones joined until each piece but the last holds at least `size` bytes. */
function* joinedPieces(parts: readonly Uint8Array[], size: number): Generator<Uint8Array> {
  let run: Uint8Array[] = []
  let bytes = 0
  for (const part of parts) {
    run.push(part)
    bytes += part.length
    if (bytes >= size) {
      yield run.length === 1 ? run[0] : Buffer.concat(run, bytes)
      run = []
      bytes = 0
    }
  }
  if (run.length > 0)
    yield run.length === 1 ? run[0] : Buffer.concat(run, bytes)
}

/** Whether zlib raised the error (damaged or truncated data), as opposed to the decoder itself. */
function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_')
}

/**
 * Inflate the pixel data as a stream and hand each row (its filter byte
 * first) to `onRow`. Inflation stops, and the image is refused, as soon as
 * the output passes what the header says it must be.
 */
async function inflateRows(layout: PngLayout, strips: Strips, onRow: (row: Uint8Array) => void): Promise<void> {
  const rowLength = layout.rowBytes + 1
  const rowWork = rowLength + layout.width * 4
  const row = new Uint8Array(rowLength)
  let filled = 0
  let inflated = 0
  strips.check()
  const inflater = createInflate()
  // Waiting on zlib's thread pool is no strip: an abort ends the wait at once.
  const stopListening = strips.onAbort(() => inflater.destroy(new PngDecodeAbortedError()))
  // The compressed bytes are already in memory; the output comes back in small pieces, read one at a time.
  // Each write is a round trip to the thread pool, so a file cut into thousands of tiny IDAT chunks
  // is written in pieces of at least INFLATE_PIECE bytes: the cost follows the bytes, not the chunk count.
  for (const piece of joinedPieces(layout.idat, INFLATE_PIECE)) inflater.write(piece)
  inflater.end()
  try {
    for await (const piece of inflater as AsyncIterable<Buffer>) {
      strips.check()
      inflated += piece.length
      if (inflated > layout.inflatedBytes)
        throw new PngUnsupportedError(`image data inflates past the ${layout.inflatedBytes} bytes the header gives`)
      let at = 0
      while (at < piece.length) {
        const take = Math.min(rowLength - filled, piece.length - at)
        row.set(piece.subarray(at, at + take), filled)
        filled += take
        at += take
        if (filled === rowLength) {
          onRow(row)
          filled = 0
          await strips.step(rowWork)
        }
      }
    }
  }
  catch (error) {
    if (isZlibError(error))
      throw new PngUnsupportedError(`image data does not inflate (${error.message})`)
    throw error
  }
  finally {
    stopListening()
    inflater.destroy()
  }
  if (inflated < layout.inflatedBytes)
    throw new PngUnsupportedError('image data is shorter than the header says')
}

/** Deflate the filtered rows on zlib's thread pool; an abort destroys the stream, so the wait ends at once. */
async function deflateRows(filtered: Uint8Array, strips: Strips): Promise<Uint8Array> {
  strips.check()
  const deflater = createDeflate()
  const stopListening = strips.onAbort(() => deflater.destroy(new PngDecodeAbortedError()))
  deflater.end(filtered)
  const pieces: Buffer[] = []
  try {
    for await (const piece of deflater as AsyncIterable<Buffer>) pieces.push(piece)
  }
  finally {
    stopListening()
    deflater.destroy()
  }
  return Buffer.concat(pieces)
}

async function shrink(bytes: Uint8Array, maxEdge: number, strips: Strips): Promise<Uint8Array> {
  strips.check()
  const layout = await strips.drain(readPngLayoutSteps(bytes))
  const target = fitWithin(layout.width, layout.height, maxEdge)
  const decoder = new PngRowDecoder(layout)
  const resizer = new AreaResizer(layout, target.width, target.height)
  await inflateRows(layout, strips, row => resizer.push(decoder.decode(row)))
  // Gray images stay gray; opaque ones lose the alpha channel.
  const colorType: PngColorType = resizer.gray ? (resizer.opaque ? 'gray' : 'gray-alpha') : (resizer.opaque ? 'rgb' : 'rgba')
  const prepared = await strips.drain(preparePng(resizer.result(), colorType, 'adaptive'))
  return assemblePng(prepared, await deflateRows(prepared.filtered, strips))
}

/**
 * Shrink a PNG so its longest edge is at most `maxEdge`. Resolves to the new
 * bytes, or to `undefined` when the image already fits or is refused (a format
 * the codec does not read, a damaged file, one past the decoder's limits, or
 * `signal` fired), so the caller keeps the original. Never rejects for the
 * image's sake.
 */
export async function downscalePng(bytes: Uint8Array, maxEdge: number, options: { readonly signal?: AbortSignal } = {}): Promise<Uint8Array | undefined> {
  const size = pngSize(bytes)
  if (!size || Math.max(size.width, size.height) <= maxEdge)
    return undefined
  try {
    return await shrink(bytes, maxEdge, new Strips(options.signal))
  }
  catch (error) {
    if (error instanceof PngUnsupportedError || error instanceof PngDecodeAbortedError)
      return undefined
    throw error
  }
}
