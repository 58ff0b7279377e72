/**
 * Shrinking by area averaging, fed one source row at a time, so a decoder
 * can resize while it inflates and never hold the full-size image.
 */

import type { RgbaImage } from './png-format'

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

/** One target row being summed: per target pixel, red, green and blue weighted by alpha, then alpha and area. */
interface OpenRow {
  readonly ty: number
  readonly sums: Float64Array
}

/**
 * Resample to a target size by area averaging: each target pixel is the mean
 * of the source area it covers (partial pixels weighted), with color weighted
 * by alpha so transparent pixels do not darken edges. Source rows arrive in
 * order through `push`; a target row is written as soon as the last source
 * row it covers has arrived, so only the one or two target rows a source row
 * touches are open at a time.
 */
export class AreaResizer {
  /** Whether every target pixel written so far is fully opaque, and whether each is a shade of gray. */
  opaque = true
  gray = true
  private y = 0
  private nextToOpen = 0
  private readonly open: OpenRow[] = []
  private readonly spare: Float64Array[] = []
  private readonly out: Uint8Array
  private readonly sy: number
  /** Per target column: the first source column, one past the last, and where its weights start in `xWeights`. */
  private readonly xFirst: Int32Array
  private readonly xEnd: Int32Array
  private readonly xWeightAt: Int32Array
  private readonly xWeights: Float64Array

  constructor(private readonly source: { width: number, height: number }, readonly width: number, readonly height: number) {
    this.out = new Uint8Array(width * height * 4)
    this.sy = source.height / height
    const sx = source.width / width
    this.xFirst = new Int32Array(width)
    this.xEnd = new Int32Array(width)
    this.xWeightAt = new Int32Array(width + 1)
    for (let tx = 0; tx < width; tx++) {
      const x0 = tx * sx
      const x1 = x0 + sx
      this.xFirst[tx] = Math.floor(x0)
      this.xEnd[tx] = Math.min(source.width, Math.ceil(x1))
      this.xWeightAt[tx + 1] = this.xWeightAt[tx] + Math.max(0, this.xEnd[tx] - this.xFirst[tx])
    }
    this.xWeights = new Float64Array(this.xWeightAt[width])
    for (let tx = 0; tx < width; tx++) {
      const x0 = tx * sx
      const x1 = x0 + sx
      for (let x = this.xFirst[tx], k = this.xWeightAt[tx]; x < this.xEnd[tx]; x++, k++) this.xWeights[k] = Math.min(x + 1, x1) - Math.max(x, x0)
    }
  }

  /** Source rows taken so far. */
  get rowsTaken(): number {
    return this.y
  }

  /** Add the next source row (`source.width` RGBA pixels). */
  push(row: Uint8Array): void {
    const y = this.y
    if (y >= this.source.height)
      throw new RangeError('AreaResizer: more rows than the source has')
    this.y += 1
    while (this.nextToOpen < this.height && Math.floor(this.nextToOpen * this.sy) <= y) {
      this.open.push({ ty: this.nextToOpen, sums: this.spare.pop()?.fill(0) ?? new Float64Array(this.width * 5) })
      this.nextToOpen += 1
    }
    for (const target of this.open) {
      const y0 = target.ty * this.sy
      const y1 = y0 + this.sy
      if (y < Math.min(this.source.height, Math.ceil(y1)))
        this.accumulate(target.sums, row, Math.min(y + 1, y1) - Math.max(y, y0))
    }
    while (this.open.length > 0 && this.lastSourceRow(this.open[0].ty) <= y) {
      const done = this.open.shift()!
      this.write(done)
      this.spare.push(done.sums)
    }
  }

  /** The resized image, once every source row has been pushed. */
  result(): RgbaImage {
    if (this.y !== this.source.height)
      throw new RangeError(`AreaResizer: ${this.y} of ${this.source.height} rows were pushed`)
    return { width: this.width, height: this.height, data: this.out }
  }

  private lastSourceRow(ty: number): number {
    return Math.min(this.source.height, Math.ceil(ty * this.sy + this.sy)) - 1
  }

  private accumulate(sums: Float64Array, row: Uint8Array, wy: number): void {
    for (let tx = 0; tx < this.width; tx++) {
      const s = tx * 5
      let r = sums[s]
      let g = sums[s + 1]
      let b = sums[s + 2]
      let a = sums[s + 3]
      let area = sums[s + 4]
      for (let x = this.xFirst[tx], k = this.xWeightAt[tx]; x < this.xEnd[tx]; x++, k++) {
        const w = wy * this.xWeights[k]
        const o = x * 4
        const alpha = row[o + 3] * w
        r += row[o] * alpha
        g += row[o + 1] * alpha
        b += row[o + 2] * alpha
        a += alpha
        area += w
      }
      sums[s] = r
      sums[s + 1] = g
      sums[s + 2] = b
      sums[s + 3] = a
      sums[s + 4] = area
    }
  }

  private write(target: OpenRow): void {
    const { sums } = target
    const out = this.out
    for (let tx = 0; tx < this.width; tx++) {
      const s = tx * 5
      const a = sums[s + 3]
      const o = (target.ty * this.width + tx) * 4
      if (a > 0) {
        out[o] = Math.round(sums[s] / a)
        out[o + 1] = Math.round(sums[s + 1] / a)
        out[o + 2] = Math.round(sums[s + 2] / a)
      }
      out[o + 3] = Math.round(a / sums[s + 4])
      if (out[o + 3] !== 255)
        this.opaque = false
      if (out[o] !== out[o + 1] || out[o] !== out[o + 2])
        this.gray = false
    }
  }
}

/** Resample a whole image to `width` x `height` by area averaging (see `AreaResizer`). Meant for shrinking, where it keeps text legible better than point sampling. */
export function resizeRgba(image: RgbaImage, width: number, height: number): RgbaImage {
  const resizer = new AreaResizer(image, width, height)
  const rowLength = image.width * 4
  for (let y = 0; y < image.height; y++) resizer.push(image.data.subarray(y * rowLength, (y + 1) * rowLength))
  return resizer.result()
}
