import { constants, crc32, deflateRawSync } from 'node:zlib'

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])

/** One PNG chunk: length, type, data, CRC. */
export function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}

/** An IHDR chunk's data. */
export function ihdr(width: number, height: number, color: number, depth = 8, interlace = 0): Buffer {
  const data = Buffer.alloc(13)
  data.writeUInt32BE(width, 0)
  data.writeUInt32BE(height, 4)
  data.set([depth, color, 0, 0, interlace], 8)
  return data
}

/** A PNG from its parts: the header, chunks before the data, the pixel data as given (already compressed), the end. */
export function pngOf(header: Buffer, idat: Uint8Array, extra: [string, Uint8Array][] = []): Buffer {
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), ...extra.map(([type, data]) => chunk(type, data)), chunk('IDAT', idat), chunk('IEND', new Uint8Array())])
}

/**
 * A zlib stream of `mebibytes` MiB of zeros, about 1 KiB per MiB, built
 * without compressing it all: one fully flushed deflate block of 1 MiB of
 * zeros is the same bytes every time, so it is repeated.
 */
export function zeroBomb(mebibytes: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: constants.Z_FULL_FLUSH })
  // Adler-32 of n zero bytes: the low sum stays 1, the high one adds 1 per byte.
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE((((mebibytes * (1 << 20)) % 65521) << 16 | 1) >>> 0)
  // A zlib header, the blocks, an empty final block, the checksum.
  return Buffer.concat([Buffer.from([0x78, 0x9C]), ...Array.from<Buffer>({ length: mebibytes }).fill(block), Buffer.from([3, 0]), adler])
}
