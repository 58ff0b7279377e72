/**
 * Every inline image goes out under the type its bytes have. The APIs check:
 * Anthropic answers 400 "Image does not match the provided media type
 * image/png", or "image cannot be empty", and the image stays in the
 * conversation, so before this every later request of the session failed the
 * same way. The session keeps the image as it came; only requests change.
 */

import type { FakeAnthropic } from '../support/fake-anthropic'
import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { sniffImageType } from '../../src/wire/stages/image-bytes'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='
const JPEG = Buffer.from([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]).toString('base64')
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00', 'latin1').toString('base64')
const WEBP = Buffer.from('RIFF\x1A\x00\x00\x00WEBPVP8L', 'latin1').toString('base64')
const HTML = Buffer.from('<!doctype html><html>').toString('base64')

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

/** Run one call of a tool answering `images`, then a text turn, then a second run: both later requests' tool results. */
async function sendImages(images: { mediaType: string, data: string, name?: string }[]) {
  fake.enqueue(
    { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'shot', input: {} }] } },
    { type: 'turn', turn: { text: 'seen' } },
    { type: 'turn', turn: { text: 'again' } },
  )
  const shot = echoTool('shot', { execute: () => images.map(image => ({ type: 'image' as const, ...image })) })
  const session = await createSession()
  const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }), session, tools: { shot } })
  expect((await agent.run({ prompt: 'look' })).stopReason).toBe('completed')
  expect((await agent.run({ prompt: 'again' })).stopReason).toBe('completed')
  const resultContent = (index: number) => {
    const body = fake.requests[index].body as { messages: { content: unknown }[] }
    const blocks = body.messages.flatMap(message => Array.isArray(message.content) ? message.content : []) as { type: string, content?: unknown }[]
    return blocks.find(block => block.type === 'tool_result')!.content
  }
  const stored = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result')
  return { first: resultContent(1), later: resultContent(2), stored }
}

describe('images on the wire go out under the type their bytes have', () => {
  it('a JPEG, GIF and WebP declared as PNG go out under their own types; a real PNG as it is', async () => {
    const { first, later, stored } = await sendImages([
      { mediaType: 'image/png', data: JPEG },
      { mediaType: 'image/png', data: GIF },
      { mediaType: 'image/jpeg', data: WEBP },
      { mediaType: 'image/png', data: PNG },
    ])
    expect((first as { source: { media_type: string, data: string } }[]).map(part => [part.source.media_type, part.source.data])).toEqual([
      ['image/jpeg', JPEG],
      ['image/gif', GIF],
      ['image/webp', WEBP],
      ['image/png', PNG],
    ])
    expect(later).toEqual(first)
    // The session keeps what the tool said.
    expect((stored as { output: { mediaType: string }[] }).output.map(part => part.mediaType)).toEqual(['image/png', 'image/png', 'image/jpeg', 'image/png'])
  })

  it('an image declared as PNG whose bytes are HTML, or with no data, goes out as a note; the run and the next one go on', async () => {
    const { first, later } = await sendImages([
      { mediaType: 'image/png', data: HTML, name: 'page.png' },
      { mediaType: 'image/jpeg', data: '' },
    ])
    expect(first).toEqual([
      { type: 'text', text: '[Image "page.png" (declared image/png) left out of the request: its bytes are not a PNG, JPEG, GIF or WebP image.]' },
      { type: 'text', text: '[Image (declared image/jpeg) left out of the request: it has no data.]' },
    ])
    expect(later).toEqual(first)
  })

  it('an image in the prompt is checked the same way', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }) })
    await agent.run({ prompt: [{ type: 'text', text: 'what is this?' }, { type: 'image', mediaType: 'image/png', data: JPEG }] })
    const body = fake.requests[0].body as { messages: { content: { type: string, source?: { media_type: string } }[] }[] }
    expect(body.messages[0].content.find(block => block.type === 'image')?.source?.media_type).toBe('image/jpeg')
  })
})

describe('sniffImageType', () => {
  it('knows the four signatures, and nothing else', () => {
    expect([PNG, JPEG, GIF, WEBP, HTML, ''].map(sniffImageType)).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp', undefined, undefined])
  })

  it('reads only the start, whatever follows: any bytes after a signature keep its type, in constant work', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (tail) => {
      const png = Buffer.concat([Buffer.from(PNG, 'base64').subarray(0, 8), tail]).toString('base64')
      return sniffImageType(png) === 'image/png'
    }))
    expect(sniffImageType(`${JPEG}${'A'.repeat(50_000_000)}`)).toBe('image/jpeg')
  })
})
