import type { SessionContentBlock, ToolResultContent } from '../core/content'
import type { BehaviorPolicy } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { debugLog } from '../debug'
import { downscalePng } from '../media/png'

async function shrink(data: string, maxEdge: number, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    const smaller = await downscalePng(Buffer.from(data, 'base64'), maxEdge, { signal })
    return smaller && Buffer.from(smaller).toString('base64')
  }
  catch (error) {
    // The codec refuses what it does not handle by resolving to nothing; anything thrown is a bug worth seeing, not a lost image.
    debugLog('an image could not be downscaled; it is kept as it was', error)
    return undefined
  }
}

function isPngBlock(block: { type: string, mediaType?: string, data?: string }): block is { type: 'image', mediaType: string, data: string } {
  return block.type === 'image' && typeof block.data === 'string' && block.mediaType?.toLowerCase() === 'image/png'
}

/**
 * The blocks with every inline PNG larger than `maxEdge` downscaled, or
 * `undefined` when none was. Images are decoded one after the other, in
 * strips; once `signal` fires the rest are kept as they are.
 */
export async function downscaleImages<T extends SessionContentBlock | ToolResultContent>(blocks: readonly T[], maxEdge: number, signal?: AbortSignal): Promise<T[] | undefined> {
  let out: T[] | undefined
  for (const [index, block] of blocks.entries()) {
    if (!isPngBlock(block) || signal?.aborted)
      continue
    const data = await shrink(block.data, maxEdge, signal)
    if (data === undefined)
      continue
    out ??= blocks.slice()
    out[index] = mergeObjects(block, { data }) as typeof block
  }
  return out
}

/**
 * `imageDownscale`: with `maxImageEdge`, inline PNGs whose longest edge is
 * larger are shrunk once, as they enter the session: in tool results (the
 * result phase, after the host's transforms) and in what a person wrote (the
 * prompt phase). The session keeps the smaller bytes, so every request sends
 * the same ones. Other formats, PNGs the codec does not decode or refuses
 * (past its limits, see `media/png-read.ts`), and images still being decoded
 * when the run is aborted pass as they are.
 */
export const imageDownscale: BehaviorPolicy<null> = {
  name: 'image-downscale',
  enabled: behavior => behavior.maxImageEdge !== undefined,
  // Without a PNG the phases answer at once; with one they take the decode's time, in strips.
  prompt({ run, behavior, content }) {
    if (!content.some(isPngBlock))
      return
    return downscaleImages(content, behavior.maxImageEdge!, run.signal).then(replaced => replaced && { decision: { type: 'replace', content: replaced } })
  },
  result({ run, behavior, result, isError }) {
    if (typeof result === 'string' || !result.some(isPngBlock))
      return
    return downscaleImages(result, behavior.maxImageEdge!, run.signal).then(replaced => replaced && { decision: { type: 'replace', result: replaced, isError } })
  },
}
