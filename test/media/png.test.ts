import type { PngColorType, RgbaImage } from '../../src/media/png'
import { deflateSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodePng, downscalePng, encodePng, fitWithin, pngSize, PngUnsupportedError, resizeRgba } from '../../src/media/png'
import { ihdr, pngOf } from './png-fixtures'

/** A random image whose pixels can be written in `colorType` (gray stays gray, opaque stays opaque, a palette stays small). */
function imageArb(colorType: PngColorType): fc.Arbitrary<RgbaImage> {
  return fc.record({ width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 24 }) }).chain(({ width, height }) => {
    const count = width * height
    const colors = colorType === 'palette'
      ? fc.array(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), { minLength: 1, maxLength: 12 }).chain(palette => fc.array(fc.constantFrom(...palette), { minLength: count, maxLength: count }))
      : fc.array(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), { minLength: count, maxLength: count })
    return colors.map((pixels) => {
      const data = new Uint8Array(count * 4)
      pixels.forEach(([r, g, b, a], i) => {
        const gray = colorType === 'gray' || colorType === 'gray-alpha'
        const opaque = colorType === 'gray' || colorType === 'rgb'
        data.set([r, gray ? r : g, gray ? r : b, opaque ? 255 : a], i * 4)
      })
      return { width, height, data }
    })
  })
}

const COLOR_TYPES: PngColorType[] = ['gray', 'rgb', 'palette', 'gray-alpha', 'rgba']

describe('the PNG codec', () => {
  it.each(COLOR_TYPES)('decode(encode(image)) is the image, for %s and every filter type', (colorType) => {
    fc.assert(fc.property(imageArb(colorType), fc.constantFrom<0 | 1 | 2 | 3 | 4 | 'adaptive'>(0, 1, 2, 3, 4, 'adaptive'), (image, filter) => {
      const decoded = decodePng(encodePng(image, { colorType, filter }))
      expect(decoded.width).toBe(image.width)
      expect(decoded.height).toBe(image.height)
      expect(Buffer.from(decoded.data).equals(Buffer.from(image.data))).toBe(true)
    }), { numRuns: 40 })
  })

  it('reads tRNS transparency of gray and RGB images', () => {
    // A 2x1 RGB image whose second pixel is the transparent color key.
    const rows = Uint8Array.from([0, 10, 20, 30, 1, 2, 3])
    const png = handMade(2, 1, 2, rows, [['tRNS', Uint8Array.from([0, 1, 0, 2, 0, 3])]])
    expect([...decodePng(png).data]).toEqual([10, 20, 30, 255, 1, 2, 3, 0])
  })

  it.each([
    ['16-bit', handMade(1, 1, 2, Uint8Array.from([0, 0, 0, 0, 0, 0, 0]), [], 16)],
    ['interlaced', handMade(1, 1, 2, Uint8Array.from([0, 1, 2, 3]), [], 8, 1)],
    ['a bad filter type', handMade(1, 1, 2, Uint8Array.from([7, 1, 2, 3]))],
  ])('refuses %s with PngUnsupportedError', async (_what, png) => {
    expect(() => decodePng(png)).toThrow(PngUnsupportedError)
    expect(await downscalePng(png, 1)).toBeUndefined()
  })

  it('refuses a corrupted chunk (CRC) and bytes that are not a PNG', () => {
    const png = encodePng({ width: 2, height: 2, data: new Uint8Array(16).fill(200) })
    const broken = png.slice()
    broken[20] ^= 0xFF
    expect(() => decodePng(broken)).toThrow(/CRC/)
    expect(() => decodePng(Uint8Array.from([1, 2, 3]))).toThrow(PngUnsupportedError)
  })

  it('downscales to within the limit, keeping the aspect ratio and the pixels\' colors', async () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 120 }), (width, height, maxEdge) => {
      const fit = fitWithin(width, height, maxEdge)
      expect(Math.max(fit.width, fit.height)).toBeLessThanOrEqual(Math.max(maxEdge, 0) || 1)
      if (Math.max(width, height) <= maxEdge) {
        expect(fit).toEqual({ width, height })
        return
      }
      const scale = maxEdge / Math.max(width, height)
      // Each edge is the scaled edge rounded (at least one pixel), so the ratio holds up to rounding.
      expect(Math.abs(fit.width - Math.max(1, width * scale))).toBeLessThanOrEqual(0.5 + 1e-9)
      expect(Math.abs(fit.height - Math.max(1, height * scale))).toBeLessThanOrEqual(0.5 + 1e-9)
    }))
    await fc.assert(fc.asyncProperty(imageArb('rgb'), fc.integer({ min: 1, max: 12 }), async (image, maxEdge) => {
      const out = await downscalePng(encodePng(image), maxEdge)
      if (Math.max(image.width, image.height) <= maxEdge) {
        expect(out).toBeUndefined()
        return
      }
      const size = pngSize(out!)!
      expect(size).toEqual(fitWithin(image.width, image.height, maxEdge))
      expect(decodePng(out!).width).toBe(size.width)
    }), { numRuns: 60 })
  })

  it('averages areas when shrinking: a uniform image stays that color, a half-transparent edge does not darken', () => {
    const solid = { width: 9, height: 6, data: new Uint8Array(9 * 6 * 4).map((_, i) => [40, 120, 220, 255][i % 4]) }
    const small = resizeRgba(solid, 3, 2)
    expect([...small.data.subarray(0, 4)]).toEqual([40, 120, 220, 255])
    const edge = { width: 2, height: 1, data: Uint8Array.from([255, 0, 0, 255, 0, 0, 0, 0]) }
    expect([...resizeRgba(edge, 1, 1).data]).toEqual([255, 0, 0, 128])
  })
})

/** A PNG built by hand, for shapes the encoder never writes. */
function handMade(width: number, height: number, color: number, rows: Uint8Array, extra: [string, Uint8Array][] = [], depth = 8, interlace = 0): Uint8Array {
  return pngOf(ihdr(width, height, color, depth, interlace), deflateSync(rows), extra)
}
