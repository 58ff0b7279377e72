import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import type { WireStageContext } from '../../src/wire/stage'
import type { MediaAgeingConfig } from '../../src/wire/stages/media-ageing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodePng } from '../../src/media/png'
import { ageFrontier, MEDIA_CHUNK, mediaAgeingStage, mediaSlots } from '../../src/wire/stages/media-ageing'
import { attachmentHandle } from '../../src/wire/stages/media-marker'
import { deepFreeze } from '../support/deep-freeze'

const ctx = (maxMediaPerRequest?: number): WireStageContext => ({ turn: 1, providerName: 'p', model: 'm', toolWireName: name => name, maxMediaPerRequest })

const image = (n: number) => ({ type: 'image', data: `aW1n${'A'.repeat(n % 7)}${n}`, mediaType: 'image/png' }) as const satisfies SessionContentBlock

/** A conversation of `length` messages: user messages carry an image every `every`, tool results carry one nested. */
function conversation(length: number, every: number): SessionMessage[] {
  const messages: SessionMessage[] = []
  for (let i = 0; i < length; i++) {
    if (i % 2 === 0) {
      const content: SessionContentBlock[] = [{ type: 'text', text: `user ${i}` }]
      if (i % every === 0)
        content.push(image(i))
      if (i > 0)
        content.unshift({ type: 'tool_result', callId: `c${i - 1}`, output: [{ type: 'text', text: 'shot' }, { type: 'image', data: `c2hvdA${i}`, mediaType: 'image/png' }] })
      messages.push({ role: 'user', content })
    }
    else {
      messages.push({ role: 'assistant', content: [{ type: 'tool_call', id: `c${i}`, name: 'shot', input: {} }] })
    }
  }
  return messages
}

const serial = (messages: readonly SessionMessage[]) => messages.map(message => JSON.stringify(message))

/** How many times the serialized list stops being an extension of the one before, growing the conversation one message at a time. */
function prefixBreaks(config: MediaAgeingConfig, messages: readonly SessionMessage[], cap?: number): number {
  const stage = mediaAgeingStage(config)
  let breaks = 0
  let before: string[] = []
  for (let n = 1; n <= messages.length; n++) {
    const now = serial(stage.apply(deepFreeze(messages.slice(0, n)), ctx(cap)))
    if (before.some((unit, i) => now[i] !== unit))
      breaks++
    before = now
  }
  return breaks
}

function countMedia(messages: readonly SessionMessage[]): { inline: number, markers: number } {
  const text = serial(messages).join('\n')
  return { inline: mediaSlots(messages).length, markers: (text.match(/attachment:\/\//g) ?? []).length }
}

describe('the media-ageing stage', () => {
  it('is pure, and hands back its input when nothing ages', () => {
    const messages = deepFreeze(conversation(6, 2))
    expect(mediaAgeingStage({}).apply(messages, ctx())).toBe(messages)
    expect(mediaAgeingStage({ keepTurns: 10 }).apply(messages, ctx())).toBe(messages)
    const aged = mediaAgeingStage({ keepTurns: 0 }).apply(messages, ctx())
    expect(countMedia(aged)).toEqual({ inline: 0, markers: mediaSlots(messages).length })
  })

  it('keepTurns: media before the chunk-snapped frontier become markers, top-level and nested; later ones stay', () => {
    const messages = conversation(20, 2)
    const out = mediaAgeingStage({ keepTurns: 4 }).apply(messages, ctx())
    const frontier = ageFrontier(20, 4)
    expect(frontier).toBe(16)
    out.forEach((message, i) => {
      const inline = mediaSlots([message]).length
      if (i < frontier)
        expect(inline, `message ${i}`).toBe(0)
      else expect(out[i]).toBe(messages[i])
    })
    const nested = out[2].content.find(block => block.type === 'tool_result')
    expect(nested).toMatchObject({ output: [{ type: 'text', text: 'shot' }, { type: 'text', text: expect.stringContaining(`read_file path="${attachmentHandle({ data: 'c2hvdA2' })}"`) }] })
    expect(out[2].content.at(-1)).toEqual({ type: 'text', text: `[image removed from this request to save context (image/png, ${image(2).data.length} base64 bytes). To see it again: read_file path="${attachmentHandle(image(2))}"]` })
    expect(attachmentHandle(image(2))).toMatch(/^attachment:\/\/media-[0-9a-f]{32}$/)
  })

  it('keepTurns: the prefix changes only when the frontier moves, once per chunk (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 4 }), (length, keep, every) => {
      const messages = conversation(length, every * 2)
      // Frontier positions reached while growing to `length`, each a step that may rewrite earlier bytes.
      const steps = new Set(Array.from({ length }, (_, n) => ageFrontier(n + 1, keep)).filter(f => f > 0)).size
      expect(prefixBreaks({ keepTurns: keep }, messages)).toBeLessThanOrEqual(steps)
    }), { numRuns: 60 })
  })

  it('budget: nothing moves under the limits; past maxItems the oldest go in steps of half the limit', () => {
    const messages = conversation(40, 2)
    const total = mediaSlots(messages).length
    expect(mediaAgeingStage({ budget: { maxItems: total } }).apply(messages, ctx())).toBe(messages)
    const out = mediaAgeingStage({ budget: { maxItems: 10 } }).apply(messages, ctx())
    const over = total - 10
    const aged = Math.ceil(over / 5) * 5
    expect(countMedia(out)).toEqual({ inline: total - aged, markers: aged })
    // The aged ones are the oldest.
    const slots = mediaSlots(messages)
    const kept = mediaSlots(out)
    expect(kept.map(slot => slot.media.data)).toEqual(slots.slice(aged).map(slot => slot.media.data))
  })

  it('budget: maxBytes ages the oldest until the rest fit, in steps of half the limit', () => {
    const big = (n: number): SessionMessage => ({ role: 'user', content: [{ type: 'image', data: 'A'.repeat(100) + n, mediaType: 'image/png' }] })
    const messages = Array.from({ length: 10 }, (_, i) => big(i))
    // 10 images of ~101 bytes against 500: the excess (~510) rounded up to a step of 250 is 750 bytes: 8 images.
    const out = mediaAgeingStage({ budget: { maxBytes: 500 } }).apply(messages, ctx())
    expect(countMedia(out)).toEqual({ inline: 2, markers: 8 })
  })

  it('budget: the aged set only grows as media are appended, so the prefix breaks once per step (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 60 }), fc.integer({ min: 2, max: 12 }), (length, maxItems) => {
      const messages = conversation(length, 2)
      const stage = mediaAgeingStage({ budget: { maxItems } })
      let agedBefore = 0
      let steps = 0
      for (let n = 1; n <= length; n++) {
        const aged = countMedia(stage.apply(messages.slice(0, n), ctx())).markers
        expect(aged).toBeGreaterThanOrEqual(agedBefore)
        if (aged > agedBefore)
          steps++
        agedBefore = aged
      }
      expect(prefixBreaks({ budget: { maxItems } }, messages)).toBeLessThanOrEqual(steps)
    }), { numRuns: 60 })
  })

  it('the provider\'s maxMediaPerRequest lowers maxItems, and holds with no knob set', () => {
    const messages = conversation(30, 2)
    const total = mediaSlots(messages).length
    expect(countMedia(mediaAgeingStage({ budget: { maxItems: 100 } }).apply(messages, ctx(6))).inline).toBeLessThanOrEqual(6)
    expect(countMedia(mediaAgeingStage({}).apply(messages, ctx(6))).inline).toBeLessThanOrEqual(6)
    expect(countMedia(mediaAgeingStage({ keepTurns: 100 }).apply(messages, ctx(6))).inline).toBeLessThanOrEqual(6)
    expect(countMedia(mediaAgeingStage({}).apply(messages, ctx())).inline).toBe(total)
  })

  it('budget: with more than 20 images, old images over 2000 px age out although the budget has room', () => {
    const wide = Buffer.from(encodePng({ width: 2100, height: 1, data: new Uint8Array(2100 * 4).fill(255) })).toString('base64')
    const messages: SessionMessage[] = [{ role: 'user', content: [{ type: 'image', data: wide, mediaType: 'image/png' }] }]
    for (let i = 0; i < 24; i++) messages.push({ role: i % 2 ? 'user' : 'assistant', content: [{ type: 'text', text: `${i}` }, ...(i % 2 ? [image(i)] : [])] })
    const budget = { maxItems: 100 }
    expect(countMedia(mediaAgeingStage({ budget }).apply(messages, ctx())).markers).toBe(0)
    for (let i = 0; i < 20; i++) messages.push({ role: 'user', content: [image(100 + i)] })
    const out = mediaAgeingStage({ budget }).apply(messages, ctx())
    expect(serial(out)[0]).toContain(attachmentHandle({ data: wide }))
    expect(countMedia(out).markers).toBe(1)
  })

  it('names a payload by a digest of all of it: payloads that differ in one character anywhere get different handles (property)', () => {
    const base64 = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
    const payload = fc.array(base64, { minLength: 1, maxLength: 4000 }).map(chars => chars.join(''))
    fc.assert(fc.property(payload, fc.nat(), base64, (data, at, char) => {
      const index = at % data.length
      const other = `${data.slice(0, index)}${char}${data.slice(index + 1)}`
      expect(attachmentHandle({ data })).toBe(attachmentHandle({ data: `${data}` }))
      if (other !== data)
        expect(attachmentHandle({ data: other })).not.toBe(attachmentHandle({ data }))
      expect(attachmentHandle({ data: `${data}A` })).not.toBe(attachmentHandle({ data }))
    }), { numRuns: 500 })
  })

  it('two invoices from one template (same length, same start and end, one digit apart in the middle) get different handles', () => {
    const template = (total: string) => Buffer.from(`%PDF-1.7 ${'header '.repeat(2000)} TOTAL ${total} ${'footer '.repeat(2000)}`).toString('base64')
    const [a, b] = [template('1040.00'), template('1940.00')]
    expect(a.length).toBe(b.length)
    expect(attachmentHandle({ data: a })).not.toBe(attachmentHandle({ data: b }))
  })

  it('chunks the frontier in steps of MEDIA_CHUNK messages', () => {
    expect([ageFrontier(5, 2), ageFrontier(10, 2), ageFrontier(17, 2), ageFrontier(18, 2), ageFrontier(3, 0)]).toEqual([0, MEDIA_CHUNK, MEDIA_CHUNK, 2 * MEDIA_CHUNK, 3])
  })
})
