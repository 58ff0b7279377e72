import type { PolicyRunView } from '../../src/policies/policy'
import { describe, expect, it } from 'vitest'
import { encodePng, pngSize } from '../../src/media/png'
import { imageDownscale } from '../../src/policies/image-downscale'
import { mediaAgeing } from '../../src/policies/media-ageing'
import { persistResults } from '../../src/policies/persist-results'
import { runPolicyScript } from '../../src/testing'

const png = (width: number, height: number) => Buffer.from(encodePng({ width, height, data: new Uint8Array(width * height * 4).fill(255) })).toString('base64')

describe('image-downscale', () => {
  it('replaces a prompt\'s large PNGs in the prompt phase and a tool result\'s in the result phase; leaves the rest', async () => {
    const outcome = await runPolicyScript(imageDownscale, {
      behavior: { maxImageEdge: 10 },
      steps: [
        { phase: 'prompt', content: [{ type: 'text', text: 'hi' }, { type: 'image', data: png(40, 20), mediaType: 'image/png' }] },
        { phase: 'prompt', source: 'steer', content: [{ type: 'image', data: png(5, 5), mediaType: 'image/png' }] },
        { phase: 'result', call: { name: 'shot', input: {} }, result: [{ type: 'image', data: png(12, 30), mediaType: 'IMAGE/PNG' }] },
        { phase: 'result', call: { name: 'shot', input: {} }, result: 'text only' },
      ],
    })
    const [first, second, third, fourth] = outcome.steps as any[]
    expect(first.content[0]).toEqual({ type: 'text', text: 'hi' })
    expect(pngSize(Buffer.from(first.content[1].data, 'base64'))).toEqual({ width: 10, height: 5 })
    expect(second.content[0].data).toBe(png(5, 5))
    expect(pngSize(Buffer.from(third.result[0].data, 'base64'))).toEqual({ width: 4, height: 10 })
    expect(fourth.result).toBe('text only')
  })

  it('is left out of a run without maxImageEdge; media-ageing only with a media knob, persist-results only with a threshold and a directory', async () => {
    const view = { runId: 'r', clock: { now: () => 0, randomUUID: () => 'x' }, turnCount: 0, usage: [], startedAt: 0, execution: {} as never, model: 'm' } as unknown as PolicyRunView
    expect(imageDownscale.enabled!({}, view)).toBe(false)
    expect(mediaAgeing.enabled!({}, view)).toBe(false)
    expect(mediaAgeing.enabled!({ mediaKeepTurns: 0 }, view)).toBe(true)
    expect(mediaAgeing.enabled!({ mediaBudget: {} }, view)).toBe(true)
    expect(persistResults.enabled!({ persistThreshold: 10 }, view)).toBe(false)
    expect(persistResults.enabled!({ persistThreshold: 0, persistDir: '/tmp' }, view)).toBe(false)
    expect(persistResults.enabled!({ persistThreshold: 10, persistDir: '/tmp' }, view)).toBe(true)
  })
})
