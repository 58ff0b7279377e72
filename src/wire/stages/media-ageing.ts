import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../core/content'
import type { WireStage } from '../stage'
import { mergeObjects } from '../../core/merge-objects'
import { base64ImageSize } from '../image-size'
import { mediaMarker } from './media-marker'

/**
 * Media ageing: images and documents leave the request as short
 * `attachment://` markers once they are old (`keepTurns`) or once the request
 * carries more than a budget allows (`budget`, the provider's
 * `maxMediaPerRequest`). The session keeps the bytes; only what is sent
 * changes.
 *
 * The aged set is a pure function of the message list and only grows as
 * messages are appended: the frontier moves in chunks of `MEDIA_CHUNK`
 * messages, and a budget ages media in steps of half a limit. So this stage
 * changes earlier bytes by design, but only at those steps: between two steps
 * every request extends the previous one.
 */

/** Messages the age frontier moves by at once. */
export const MEDIA_CHUNK = 8

/** Images with an edge past this are refused by Anthropic once a request carries more than `MANY_IMAGES`. */
export const LARGE_IMAGE_EDGE = 2000
/** See `LARGE_IMAGE_EDGE`. */
export const MANY_IMAGES = 20

/** What the stage is told: a window, a budget, or both (the window wins). */
export interface MediaAgeingConfig {
  /** Media older than the last `keepTurns` messages age out; `0` ages out all of them. */
  readonly keepTurns?: number
  readonly budget?: { readonly maxItems?: number, readonly maxBytes?: number }
}

/** One piece of media: where it is, and its inline base64 size (`0` for a `ref` block). */
interface MediaSlot {
  readonly message: number
  readonly block: number
  /** Index in a tool result's output, for media nested there. */
  readonly part?: number
  readonly bytes: number
  readonly media: MediaBlock
}

interface MediaBlock { type: 'image' | 'document', mediaType: string, name?: string, data?: string, ref?: string, encoding?: 'base64' | 'text' }

function isMedia(block: { type: string, encoding?: string }): boolean {
  return block.type === 'image' || (block.type === 'document' && block.encoding === 'base64')
}

/** Every image and base64 document of the conversation, oldest first. */
export function mediaSlots(messages: readonly SessionMessage[]): MediaSlot[] {
  const slots: MediaSlot[] = []
  for (let m = 0; m < messages.length; m++) {
    const content = messages[m].content
    for (let b = 0; b < content.length; b++) {
      const block = content[b]
      if (isMedia(block)) {
        const media = block as MediaBlock
        slots.push({ message: m, block: b, bytes: media.data?.length ?? 0, media })
      }
      else if (block.type === 'tool_result' && Array.isArray(block.output)) {
        for (let p = 0; p < block.output.length; p++) {
          const part = block.output[p]
          if (isMedia(part)) {
            const media = part as MediaBlock
            slots.push({ message: m, block: b, part: p, bytes: media.data?.length ?? 0, media })
          }
        }
      }
    }
  }
  return slots
}

/** The chunk-snapped index before which media is older than the last `keep` messages. */
export function ageFrontier(length: number, keep: number): number {
  if (keep <= 0)
    return length
  const raw = length - keep
  return raw <= 0 ? 0 : Math.floor(raw / MEDIA_CHUNK) * MEDIA_CHUNK
}

/** How many of `total` must go to get under `limit`, rounded up to a step of half the limit (all of them at most). */
function stepsOver(total: number, limit: number): number {
  if (total <= limit)
    return 0
  const step = Math.max(1, Math.ceil(limit / 2))
  return Math.ceil((total - limit) / step) * step
}

/**
 * Which media slots age out, by index into `slots`. `cap` is the provider's
 * limit on media per request, honoured whatever the knobs say.
 */
export function agedSlots(slots: readonly MediaSlot[], length: number, config: MediaAgeingConfig, cap?: number): Set<number> {
  const aged = new Set<number>()
  if (config.keepTurns !== undefined) {
    const frontier = ageFrontier(length, config.keepTurns)
    slots.forEach((slot, index) => slot.message < frontier && aged.add(index))
  }
  else if (config.budget) {
    const maxItems = minDefined(config.budget.maxItems, cap)
    let oldest = maxItems === undefined ? 0 : stepsOver(slots.length, maxItems)
    const maxBytes = config.budget.maxBytes
    if (maxBytes !== undefined) {
      const total = slots.reduce((sum, slot) => sum + slot.bytes, 0)
      const target = stepsOver(total, maxBytes)
      let freed = 0
      let count = 0
      while (freed < target && count < slots.length) freed += slots[count++].bytes
      oldest = Math.max(oldest, count)
    }
    for (let i = 0; i < Math.min(oldest, slots.length); i++) aged.add(i)
    // Images too large for a request with many images (formats the downscaler cannot re-encode) keep a window of their own.
    const images = slots.filter(slot => slot.media.type === 'image').length
    const frontier = images > MANY_IMAGES ? ageFrontier(length, MEDIA_CHUNK) : 0
    slots.forEach((slot, index) => {
      if (slot.message < frontier && !aged.has(index) && isLargeImage(slot.media))
        aged.add(index)
    })
  }
  if (cap !== undefined && slots.length - aged.size > cap) {
    // The provider's limit holds on top of a window that still leaves too many: the oldest that remain go, in steps.
    const remaining = slots.map((_, index) => index).filter(index => !aged.has(index))
    const extra = Math.min(remaining.length, stepsOver(remaining.length, cap))
    for (let i = 0; i < extra; i++) aged.add(remaining[i])
  }
  return aged
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}

function isLargeImage(media: MediaBlock): boolean {
  if (media.type !== 'image' || media.data === undefined)
    return false
  const size = base64ImageSize(media.data)
  return size !== undefined && Math.max(size.width, size.height) > LARGE_IMAGE_EDGE
}

/** The messages with the aged slots replaced by their markers; untouched messages stay the same objects. */
export function replaceAged(messages: readonly SessionMessage[], slots: readonly MediaSlot[], aged: ReadonlySet<number>): readonly SessionMessage[] {
  if (aged.size === 0)
    return messages
  const byMessage = new Map<number, MediaSlot[]>()
  for (const index of aged) {
    const slot = slots[index]
    const list = byMessage.get(slot.message)
    if (list)
      list.push(slot)
    else byMessage.set(slot.message, [slot])
  }
  const out = messages.slice()
  for (const [m, list] of byMessage) {
    const content: SessionContentBlock[] = messages[m].content.slice()
    for (const slot of list) {
      const block = content[slot.block]
      if (slot.part === undefined) {
        content[slot.block] = { type: 'text', text: mediaMarker(slot.media) }
      }
      else if (block.type === 'tool_result' && Array.isArray(block.output)) {
        const output: ToolResultContent[] = block.output.slice()
        output[slot.part] = { type: 'text', text: mediaMarker(slot.media) }
        content[slot.block] = mergeObjects(block, { output })
      }
    }
    out[m] = { role: messages[m].role, content }
  }
  return out
}

/**
 * The media-ageing stage for a window and/or a budget. List-scoped: where the
 * frontier lies depends on the whole conversation. With neither set it still
 * holds the provider's `maxMediaPerRequest`, and returns its input untouched
 * when the provider has no such limit.
 */
export function mediaAgeingStage(config: MediaAgeingConfig): WireStage {
  return {
    name: 'media-ageing',
    apply: (messages, ctx) => {
      const cap = ctx.maxMediaPerRequest
      if (config.keepTurns === undefined && config.budget === undefined && cap === undefined)
        return messages
      const slots = mediaSlots(messages)
      if (slots.length === 0)
        return messages
      return replaceAged(messages, slots, agedSlots(slots, messages.length, config, cap))
    },
  }
}
