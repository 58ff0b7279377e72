import { describe, expect, it } from 'vitest'
import { encodePng } from '../../src/media/png'
import { base64ImageSize, imageSize } from '../../src/wire/image-size'

const b64 = (bytes: number[] | Uint8Array) => Buffer.from(bytes).toString('base64')

describe('image sizes from headers', () => {
  it('reads PNG, GIF, WebP (VP8X, VP8L) and JPEG headers', () => {
    expect(base64ImageSize(b64(encodePng({ width: 3, height: 7, data: new Uint8Array(84).fill(255) })))).toEqual({ width: 3, height: 7 })
    expect(imageSize(Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0xD0, 0x07, 0x10, 0x00]))).toEqual({ width: 2000, height: 16 })
    const vp8x = new Uint8Array(30)
    vp8x.set(Buffer.from('RIFF\0\0\0\0WEBPVP8X'), 0)
    vp8x.set([0x33, 0x08, 0x00, 0x09, 0x00, 0x00], 24) // 2099 x 10
    expect(imageSize(vp8x)).toEqual({ width: 2100, height: 10 })
    const vp8l = new Uint8Array(30)
    vp8l.set(Buffer.from('RIFF\0\0\0\0WEBPVP8L'), 0)
    const bits = (99) | (49 << 14) // 100 x 50
    vp8l.set([0x2F, bits & 0xFF, (bits >> 8) & 0xFF, (bits >> 16) & 0xFF, (bits >>> 24) & 0xFF], 20)
    expect(imageSize(vp8l)).toEqual({ width: 100, height: 50 })
  })

  it('walks JPEG segments to the frame header, reading the whole file when metadata pushes it past the head', () => {
    const app1 = [0xFF, 0xE1, 0x20, 0x02, ...Array.from<number>({ length: 0x2000 }).fill(0)]
    const sof0 = [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x0B, 0xB8, 0x0F, 0xA0, 0x03]
    expect(base64ImageSize(b64([0xFF, 0xD8, ...app1, ...sof0]))).toEqual({ width: 4000, height: 3000 })
    expect(base64ImageSize(b64([0x00, 0x01, 0x02]))).toBeUndefined()
  })
})
