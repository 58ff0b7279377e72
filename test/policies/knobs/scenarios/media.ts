import type { AgentBehavior, PromptPart, SessionMessage } from '../../../../src'
import type { MediaKnobs } from '../../../../src/knobs/media-knobs'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { encodePng, pngSize } from '../../../../src/media/png'
import { scriptedProvider } from '../../../../src/testing'

/** A base64 PNG of `width` x `height` in one color. */
export function pngBase64(width: number, height: number, rgb: [number, number, number] = [200, 30, 60]): string {
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < width * height; i++) data.set([...rgb, 255], i * 4)
  return Buffer.from(encodePng({ width, height, data })).toString('base64')
}

/** Each inline image of the messages, as `WxH`, and each aged-out marker as `marker`. */
export function mediaSeen(messages: readonly SessionMessage[]): string[] {
  const seen: string[] = []
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'image' && block.data !== undefined) {
        const size = pngSize(Buffer.from(block.data, 'base64'))
        seen.push(size ? `${size.width}x${size.height}` : 'image')
      }
      if (block.type === 'text' && block.text.includes('attachment://'))
        seen.push('marker')
    }
  }
  return seen
}

/** One run whose prompt carries these images; what the first request carried. */
async function promptRun(behavior: AgentBehavior, images: PromptPart[]): Promise<string[]> {
  const provider = scriptedProvider([{ text: 'seen' }])
  const agent = createAgent({ provider, behavior })
  await agent.run({ prompt: [{ type: 'text', text: 'Look.' }, ...images] })
  await agent.destroy()
  return mediaSeen(provider.requests[0].messages)
}

const two: PromptPart[] = [
  { type: 'image', data: pngBase64(8, 6), mediaType: 'image/png' },
  { type: 'image', data: pngBase64(6, 8, [1, 2, 3]), mediaType: 'image/png' },
]

export const mediaScenarios: SliceScenarios<MediaKnobs> = {
  mediaKeepTurns: {
    value: 0,
    outcome: behavior => promptRun(behavior, two),
    unset: ['8x6', '6x8'],
    set: ['marker', 'marker'],
  },
  mediaBudget: {
    value: { maxItems: 1 },
    outcome: behavior => promptRun(behavior, two),
    unset: ['8x6', '6x8'],
    set: ['marker', '6x8'],
    fields: {
      maxItems: { value: 1, unset: ['8x6', '6x8'], set: ['marker', '6x8'] },
      // Both images together are well over 10 base64 bytes: enough of the oldest go to get under it.
      maxBytes: { value: 10, unset: ['8x6', '6x8'], set: ['marker', 'marker'] },
    },
  },
  maxImageEdge: {
    value: 4,
    outcome: behavior => promptRun(behavior, two),
    unset: ['8x6', '6x8'],
    set: ['4x3', '3x4'],
  },
}
