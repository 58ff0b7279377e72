import type { SessionMessage } from '../../src/core/content'
import type { WireStageContext } from '../../src/wire/stage'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { attachmentHandle, isMediaMarker, mediaMarker } from '../../src/wire/stages/media-marker'
import { staleReadsStage } from '../../src/wire/stages/stale-reads'
import { compactTail, MAX_KEPT_MARKERS } from '../../src/wire/stages/tail-compaction'

const ctx: WireStageContext = { turn: 1, providerName: 'p', model: 'm', toolWireName: name => name }

describe('media markers', () => {
  it('a marker is recognized whatever the media name, type or reference holds; ordinary text is not (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), fc.string({ maxLength: 400 }), fc.option(fc.string({ maxLength: 50 })), fc.string({ maxLength: 300 }), (name, mediaType, data, other) => {
      const media = data === null ? { type: 'image' as const, mediaType, name, ref: other } : { type: 'document' as const, mediaType, name, data }
      const marker = mediaMarker(media)
      expect(isMediaMarker(marker)).toBe(true)
      expect(marker).toContain(`read_file path="${attachmentHandle(media)}"`)
      expect(marker.split('\n')).toHaveLength(1)
      expect(isMediaMarker(other)).toBe(false)
      expect(isMediaMarker(`${marker} and more`)).toBe(false)
    }), { numRuns: 300 })
  })

  it('tail compaction stubs a result\'s text but keeps the markers an earlier stage left in it', () => {
    const marker = mediaMarker({ type: 'image', mediaType: 'image/png', data: 'aW1hZ2U=' })
    const messages: SessionMessage[] = [
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'shot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: [{ type: 'text', text: 'caption '.repeat(100) }, { type: 'text', text: marker }] }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c2', name: 'shot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c2', output: 'x'.repeat(2000) }] },
    ]
    const out = compactTail(messages, 1000, 1)
    expect(out[1].content[0]).toEqual({ type: 'tool_result', callId: 'c1', output: [{ type: 'text', text: expect.stringMatching(/^\[tool output compacted: 800 bytes/) }, { type: 'text', text: marker }] })
  })

  it('a stale read of an image is sent as the stub and the marker of the image it returned', () => {
    const image = { type: 'image' as const, data: 'cGl4ZWxz', mediaType: 'image/png', name: 'fig.png' }
    const messages: SessionMessage[] = [
      { role: 'assistant', content: [{ type: 'tool_call', id: 'r', name: 'read_file', input: { path: 'fig.png' } }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'r', output: [{ type: 'text', text: 'Image fig.png (image/png, 6 B):' }, image] }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'w', name: 'write_file', input: { path: 'fig.png', content: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'w', output: 'Updated fig.png (1 line).' }] },
    ]
    const out = staleReadsStage.apply(messages, ctx)
    expect(out[1].content[0]).toEqual({ type: 'tool_result', callId: 'r', output: [{ type: 'text', text: expect.stringContaining('Stale read_file result elided: fig.png') }, { type: 'text', text: mediaMarker(image) }] })
  })
})

describe('text shaped like markers', () => {
  it('keeps at most MAX_KEPT_MARKERS of them per result through tail compaction', () => {
    const forged = Array.from({ length: 200 }, (_, i) => ({ type: 'text' as const, text: mediaMarker({ type: 'image', mediaType: 'image/png', data: `Zm9y${i}` }) }))
    const messages: SessionMessage[] = [
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'tool', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: forged }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c2', name: 'tool', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c2', output: 'x'.repeat(2000) }] },
    ]
    const out = compactTail(messages, 1000, 1)
    const block = out[1].content[0] as { output: { text: string }[] }
    expect(MAX_KEPT_MARKERS).toBe(64)
    expect(block.output).toHaveLength(1 + 64)
    expect(block.output[0].text).toMatch(/^\[tool output compacted/)
    expect(block.output.slice(1)).toEqual(forged.slice(0, MAX_KEPT_MARKERS))
  })
})
