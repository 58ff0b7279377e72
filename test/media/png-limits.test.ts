import { deflateSync } from 'node:zlib'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodePng, downscalePng, encodePng, pngSize, PngUnsupportedError } from '../../src/media/png'
import { chunk, ihdr, pngOf, zeroBomb } from './png-fixtures'

// Hostile PNGs: each is refused before it costs more than its own size
// allows, and a large legal one is decoded without holding the event loop.

/** Counts turns of the event loop: a callback that puts itself back in the check phase each time it runs. */
function loopTurns(onTurn: (turn: number) => void = () => {}) {
  let turns = 0
  let stopped = false
  const spin = () => {
    if (stopped)
      return
    turns += 1
    onTurn(turns)
    setImmediate(spin)
  }
  setImmediate(spin)
  return {
    get turns() {
      return turns
    },
    stop() {
      stopped = true
    },
  }
}

describe('pNG decoding limits', () => {
  it('stops inflating at the size the header gives: a 1 MiB file that inflates to 1 GiB is refused cheaply', async () => {
    // 64x64 RGB: the header gives 64 rows of 1 + 192 bytes; the data holds a GiB of zeros.
    const bomb = pngOf(ihdr(64, 64, 2), zeroBomb(1024))
    expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024)
    const before = process.memoryUsage().rss
    expect(() => decodePng(bomb)).toThrow(/inflates past the 12352 bytes the header gives/)
    expect(await downscalePng(bomb, 16)).toBeUndefined()
    // Inflating it all would take a GiB; stopping at the header's size takes next to nothing.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
    // The same header with exactly the data it gives decodes.
    const exact = pngOf(ihdr(64, 64, 2), deflateSync(Buffer.alloc(12352)))
    expect(decodePng(exact).width).toBe(64)
    expect(pngSize((await downscalePng(exact, 16))!)).toEqual({ width: 16, height: 16 })
  }, 60_000)

  it.each([
    ['more pixels than the cap', ihdr(9000, 9000, 2), /more than 40000000 pixels/],
    ['an edge longer than the cap', ihdr(70_000, 2, 0), /edge longer than 65535 pixels/],
    ['more inflated bytes per compressed byte than the cap', ihdr(4500, 4500, 6), /more than 256 per byte/],
  ])('refuses a header that claims %s from the header alone, before inflating', async (_what, header, reason) => {
    // The data is not zlib at all: inflating it would fail with another reason.
    const png = pngOf(header, Buffer.from('not a zlib stream, never inflated'))
    expect(() => decodePng(png)).toThrow(reason)
    expect(await downscalePng(png, 100)).toBeUndefined()
  })

  it('decodes a blank screenshot, however well it compresses, while its pixels fit the free allowance', async () => {
    const blank = pngOf(ihdr(1920, 1080, 2), deflateSync(Buffer.alloc(1080 * (1 + 1920 * 3))))
    expect(pngSize((await downscalePng(blank, 480))!)).toEqual({ width: 480, height: 270 })
  })

  it('refuses an unknown critical chunk and skips unknown ancillary ones', async () => {
    const rows = deflateSync(Buffer.alloc(4 * (1 + 4 * 3), 7).map((byte, i) => i % 13 === 0 ? 0 : byte))
    const plain = pngOf(ihdr(4, 4, 2), rows)
    const critical = pngOf(ihdr(4, 4, 2), rows, [['ABCD', Buffer.from('must be understood')]])
    const ancillary = pngOf(ihdr(4, 4, 2), rows, [['abCD', Buffer.from('may be skipped')], ['tEXt', Buffer.from('Comment\0hello')]])
    expect(() => decodePng(critical)).toThrow(/unknown critical chunk ABCD/)
    expect(await downscalePng(critical, 2)).toBeUndefined()
    expect(decodePng(ancillary)).toEqual(decodePng(plain))
    expect(await downscalePng(ancillary, 2)).toEqual(await downscalePng(plain, 2))
  })
})

describe('a large legal PNG', () => {
  // 4000x4000 RGBA: 64 MB of pixels (inside the free allowance), 62 KiB of file.
  let big: Buffer
  beforeAll(() => {
    big = pngOf(ihdr(4000, 4000, 6), deflateSync(Buffer.alloc(4000 * (1 + 4000 * 4))))
  })

  it('is decoded in strips: the event loop keeps turning while it is shrunk', async () => {
    const loop = loopTurns()
    const out = await downscalePng(big, 100)
    loop.stop()
    expect(pngSize(out!)).toEqual({ width: 100, height: 100 })
    // 64 MB of rows in strips of 512 KiB: over a hundred yields.
    expect(loop.turns).toBeGreaterThan(50)
  }, 60_000)

  it('is abandoned within a few turns of the loop once its signal fires, and the image is kept as it was', async () => {
    const whole = loopTurns()
    await downscalePng(big, 100)
    whole.stop()

    const controller = new AbortController()
    let settled = false
    let abortedAt: number | undefined
    let settledWhenAborted: boolean | undefined
    const loop = loopTurns((turn) => {
      if (turn === 5) {
        abortedAt = turn
        settledWhenAborted = settled
        controller.abort()
      }
    })
    const out = await downscalePng(big, 100, { signal: controller.signal }).finally(() => {
      settled = true
    })
    loop.stop()
    expect(out).toBeUndefined()
    // The abort came while the decode was under way, and it stopped a few turns later, not at the end.
    expect(abortedAt).toBe(5)
    expect(settledWhenAborted).toBe(false)
    expect(loop.turns - abortedAt!).toBeLessThanOrEqual(5)
    expect(whole.turns).toBeGreaterThan(10 * (loop.turns - abortedAt! + 1))
  }, 60_000)

  it('is not started when the signal has already fired', async () => {
    const controller = new AbortController()
    controller.abort()
    expect(await downscalePng(big, 100, { signal: controller.signal })).toBeUndefined()
  })
})

/** One change to a PNG's bytes, the kind a damaged or hostile file has. */
type Mutation
  = | { kind: 'flip', at: number, value: number }
    | { kind: 'truncate', at: number }
    | { kind: 'chunk', at: number, type: string, data: Uint8Array }
    | { kind: 'header', width: number, height: number, depth: number, color: number, interlace: number }
    | { kind: 'data', data: Uint8Array }

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.nat(255) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('chunk' as const),
    at: fc.nat(),
    type: fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'), minLength: 4, maxLength: 4 }),
    data: fc.uint8Array({ maxLength: 40 }),
  }),
  fc.record({
    kind: fc.constant('header' as const),
    width: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constantFrom(4000, 9000, 65_536, 2 ** 32 - 1)),
    height: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constantFrom(4000, 9000, 65_536, 2 ** 32 - 1)),
    depth: fc.constantFrom(1, 8, 8, 8, 16),
    color: fc.constantFrom(0, 2, 3, 4, 6, 6, 7),
    interlace: fc.constantFrom(0, 0, 0, 1),
  }),
  fc.record({ kind: fc.constant('data' as const), data: fc.uint8Array({ minLength: 1, maxLength: 200 }) }),
)

/** Where each chunk starts, after the signature, as far as the lengths can be followed. */
function chunkStarts(png: Buffer): number[] {
  const starts: number[] = []
  for (let at = 8; at + 12 <= png.length; at += 12 + png.readUInt32BE(at)) starts.push(at)
  return starts
}

/** Apply one mutation; one the bytes no longer have the structure for (a chunk to replace, say) leaves them as they are. */
function mutate(png: Buffer, mutation: Mutation): Buffer {
  const starts = chunkStarts(png)
  switch (mutation.kind) {
    case 'flip': {
      const out = Buffer.from(png)
      if (out.length > 0)
        out[mutation.at % out.length] = mutation.value
      return out
    }
    case 'truncate':
      return png.subarray(0, mutation.at % (png.length + 1))
    case 'chunk': {
      // A well-formed chunk (right CRC) of any type, between two chunks.
      const at = starts.length > 0 ? starts[mutation.at % starts.length] : Math.min(8, png.length)
      return Buffer.concat([png.subarray(0, at), chunk(mutation.type, mutation.data), png.subarray(at)])
    }
    case 'header': {
      if (starts.length < 2)
        return png
      const header = ihdr(mutation.width, mutation.height, mutation.color, mutation.depth, mutation.interlace)
      return Buffer.concat([png.subarray(0, 8), chunk('IHDR', header), png.subarray(starts[1])])
    }
    case 'data': {
      const idat = starts.find(at => png.toString('latin1', at + 4, at + 8) === 'IDAT')
      if (idat === undefined)
        return png
      const end = Math.min(png.length, idat + 12 + png.readUInt32BE(idat))
      return Buffer.concat([png.subarray(0, idat), chunk('IDAT', mutation.data), png.subarray(end)])
    }
  }
}

describe('mutated PNGs (property)', () => {
  it('are decoded or refused with PngUnsupportedError, and downscaling never rejects', async () => {
    const imageArb = fc.record({
      width: fc.integer({ min: 1, max: 20 }),
      height: fc.integer({ min: 1, max: 20 }),
      colorType: fc.constantFrom('gray', 'rgb', 'palette', 'gray-alpha', 'rgba' as const),
    }).map(({ width, height, colorType }) => {
      const data = new Uint8Array(width * height * 4)
      for (let i = 0; i < width * height; i++) {
        const v = (i * 37) % 256
        const gray = colorType === 'gray' || colorType === 'gray-alpha'
        data.set([v, gray ? v : (v * 3) % 256, gray ? v : 255 - v, colorType === 'gray' || colorType === 'rgb' || colorType === 'palette' ? 255 : v], i * 4)
      }
      if (colorType === 'palette')
        data.forEach((_, i) => (data[i] = i % 4 === 3 ? 255 : data[i] & 0xC0))
      return Buffer.from(encodePng({ width, height, data }, { colorType: colorType === 'palette' ? 'palette' : colorType }))
    })
    await fc.assert(fc.asyncProperty(imageArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 30 }), async (png, mutations, maxEdge) => {
      const bytes = mutations.reduce(mutate, png)
      try {
        const image = decodePng(bytes)
        expect(image.data.length).toBe(image.width * image.height * 4)
      }
      catch (error) {
        expect(error).toBeInstanceOf(PngUnsupportedError)
      }
      const smaller = await downscalePng(bytes, maxEdge)
      if (smaller !== undefined) {
        const size = pngSize(smaller)!
        expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(maxEdge)
        expect(decodePng(smaller).width).toBe(size.width)
      }
    }), { numRuns: 400 })
  }, 120_000)
})

describe('chunks a decoder does not know (property)', () => {
  const rows = deflateSync(Buffer.from(Array.from({ length: 6 * (1 + 6 * 3) }, (_, i) => i % 19 === 0 ? 0 : (i * 7) % 256)))
  const parts = [chunk('IHDR', ihdr(6, 6, 2)), chunk('IDAT', rows), chunk('IEND', new Uint8Array())]
  const withChunk = (position: number, type: string, data: Uint8Array) =>
    Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), ...parts.slice(0, position), chunk(type, data), ...parts.slice(position)])
  const plain = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), ...parts])
  const typeArb = (first: RegExp) => fc.stringMatching(new RegExp(`^${first.source}[A-Za-z]{3}$`)).filter(type => !['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS'].includes(type))

  it('refuses a PNG with an unknown critical chunk (upper-case first letter) anywhere before IEND', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 2 }), typeArb(/[A-Z]/), fc.uint8Array({ maxLength: 24 }), async (position, type, data) => {
      const png = withChunk(position, type, data)
      expect(() => decodePng(png)).toThrow(`unknown critical chunk ${type}`)
      expect(await downscalePng(png, 3)).toBeUndefined()
    }), { numRuns: 100 })
  })

  it('decodes a PNG with an unknown ancillary chunk (lower-case first letter) as if it were not there', async () => {
    const expected = decodePng(plain)
    await fc.assert(fc.property(fc.integer({ min: 1, max: 2 }), typeArb(/[a-z]/), fc.uint8Array({ maxLength: 24 }), (position, type, data) => {
      expect(decodePng(withChunk(position, type, data))).toEqual(expected)
    }), { numRuns: 100 })
  })
})
