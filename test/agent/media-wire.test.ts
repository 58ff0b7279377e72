import type { ToolResultContent } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { deflateSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { AgentContentRefError } from '../../src/errors'
import { decodePng, encodePng, pngSize } from '../../src/media/png'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { readFile } from '../../src/tools'
import { attachmentHandle } from '../../src/wire/stages/media-marker'
import { ihdr, pngOf } from '../media/png-fixtures'
import { startFakeAnthropic } from '../support/fake-anthropic'

// Media through the real Anthropic provider (official SDK) against the local
// Messages server: what each request body carried, and what the session kept.

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const MODEL = 'claude-sonnet-4-6'
const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: MODEL })

/** A base64 PNG with a horizontal gradient, so a resample has real work to do. */
function gradient(width: number, height: number): string {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set([Math.round(255 * x / width), 80, 255 - y % 256, 255], (y * width + x) * 4)
  }
  return Buffer.from(encodePng({ width, height, data })).toString('base64')
}

/** A tool that returns a screenshot (a numbered PNG) with a caption. */
function screenshotTool(width = 4, height = 4, calls: string[] = []) {
  return tool({
    name: 'screenshot',
    description: 'Take a screenshot',
    input: z.object({ n: z.number() }),
    execute: ({ n }): ToolResultContent[] => {
      calls.push(String(n))
      return [{ type: 'text', text: `shot ${n}` }, { type: 'image', data: gradient(width + n, height), mediaType: 'image/png' }]
    },
  })
}

function shots(count: number) {
  for (let n = 0; n < count; n++)
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `toolu_${n}`, name: 'screenshot', input: { n } }] } })
  fake.enqueue({ type: 'turn', turn: { text: 'done' } })
}

/** Per request: for each tool result, `image` or `marker` for its media part. */
function mediaPerRequest(): string[][] {
  return fake.requests.map(request => (request.body.messages as any[]).flatMap(message =>
    Array.isArray(message.content)
      ? message.content.filter((block: any) => block.type === 'tool_result').map((block: any) => {
          const media = block.content[1]
          return media.type === 'image' ? 'image' : media.text.includes('attachment://') ? 'marker' : 'other'
        })
      : []))
}

describe('mediaKeepTurns on the Messages wire', () => {
  it('ages tool-result screenshots out of the request in chunks; the session keeps every image', async () => {
    shots(12)
    const session = await createSession()
    const agent = createAgent({ provider: provider(), tools: { screenshot: screenshotTool() }, session, behavior: { mediaKeepTurns: 4 } })
    const stats = await agent.run({ prompt: 'Take twelve screenshots.' })
    expect(stats.stopReason).toBe('completed')
    const seen = mediaPerRequest()
    // 1 prompt + 2 messages per shot: request k carries 1 + 2k messages. The frontier jumps to 8 at 12 messages, to 16 at 20.
    expect(seen[5]).toEqual(['image', 'image', 'image', 'image', 'image'])
    expect(seen[6]).toEqual(['marker', 'marker', 'marker', 'image', 'image', 'image'])
    expect(seen[10]).toEqual(['marker', 'marker', 'marker', 'marker', 'marker', 'marker', 'marker', 'image', 'image', 'image'])
    const marker = (fake.requests[12].body.messages as any[])[2].content[0].content[1]
    expect(marker).toEqual({ type: 'text', text: expect.stringMatching(/^\[image removed from this request to save context \(image\/png, \d+ base64 bytes\)\. To see it again: read_file path="attachment:\/\/media-[0-9a-f]{32}"\]$/) })
    expect(marker.text).toContain(attachmentHandle({ data: gradient(4, 4) }))
    const stored = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(stored).toHaveLength(12)
    for (const block of stored)
      expect((block.output as ToolResultContent[])[1]).toMatchObject({ type: 'image', mediaType: 'image/png' })
    await agent.destroy()
  })
})

describe('attachment handles', () => {
  it('read_file brings an aged image back from the session, by the handle its marker names', async () => {
    const firstHandle = attachmentHandle({ data: gradient(4, 4) })
    for (let n = 0; n < 6; n++)
      fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `toolu_${n}`, name: 'screenshot', input: { n } }] } })
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_back', name: 'read_file', input: { path: firstHandle } }] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_missing', name: 'read_file', input: { path: `attachment://media-${'0'.repeat(32)}` } }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const session = await createSession()
    const agent = createAgent({ provider: provider(), tools: { screenshot: screenshotTool(), read_file: readFile }, session, behavior: { mediaKeepTurns: 2 } })
    await agent.run({ prompt: 'Screenshots, then look at the first again.' })
    const first = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result' && block.callId === 'toolu_0') as { output: ToolResultContent[] }
    const original = first.output[1] as { data: string }
    const request = fake.requests[7].body.messages as any[]
    const back = request.flatMap(message => message.content).find((block: any) => block.tool_use_id === 'toolu_back')
    expect(back.content).toEqual([
      { type: 'text', text: `${firstHandle}:` },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: original.data } },
    ])
    // The first screenshot itself is still aged in that request.
    expect(JSON.stringify(request[2])).toContain(`read_file path=\\"${firstHandle}\\"`)
    const missing = (fake.requests[8].body.messages as any[]).flatMap(message => message.content).find((block: any) => block.tool_use_id === 'toolu_missing')
    expect(missing).toMatchObject({ is_error: true })
    expect(JSON.stringify(missing.content)).toContain('names no image or document recorded in this session')
    await agent.destroy()
  })
})

describe('attachment handles name the whole payload', () => {
  it('two invoices from one template, returned under one repeated call id, come back each as itself', async () => {
    const invoice = (total: string) => Buffer.from(`%PDF-1.7 ${'header '.repeat(3000)} TOTAL ${total} ${'footer '.repeat(3000)}`).toString('base64')
    const invoices = [invoice('1040.00'), invoice('1940.00')]
    const fetchInvoice = tool({
      name: 'fetch_invoice',
      description: 'Fetch an invoice',
      input: z.object({ n: z.number() }),
      execute: ({ n }): ToolResultContent[] => [{ type: 'text', text: `invoice ${n}` }, { type: 'document', data: invoices[n], encoding: 'base64', mediaType: 'application/pdf' }],
    })
    const handles = invoices.map(data => attachmentHandle({ data }))
    const scripted = scriptedProvider([
      { toolCalls: [{ id: 'call_0', name: 'fetch_invoice', input: { n: 0 } }] },
      { toolCalls: [{ id: 'call_0', name: 'fetch_invoice', input: { n: 1 } }] },
      { toolCalls: [{ id: 'back_a', name: 'read_file', input: { path: handles[0] } }, { id: 'back_b', name: 'read_file', input: { path: handles[1] } }] },
      { text: 'done' },
    ])
    const session = await createSession()
    const agent = createAgent({ provider: scripted, tools: { fetch_invoice: fetchInvoice, read_file: readFile }, session, behavior: { mediaKeepTurns: 0 } })
    await agent.run({ prompt: 'Fetch both invoices, then look at them again.' })
    await agent.destroy()
    expect(handles[0]).not.toBe(handles[1])
    const last = scripted.requests.at(-1)!.messages.flatMap(message => message.content)
    // Both invoices left the request, each under its own handle.
    const text = JSON.stringify(last)
    expect(text).toContain(`read_file path=\\"${handles[0]}\\"`)
    expect(text).toContain(`read_file path=\\"${handles[1]}\\"`)
    const back = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result' && block.callId.startsWith('back_')) as { output: ToolResultContent[] }[]
    expect(back.map(block => (block.output[1] as { data: string }).data)).toEqual(invoices)
  })
})

describe('mediaBudget and maxMediaPerRequest', () => {
  it('keeps media inline under the budget, then ages the oldest half a budget at a time', async () => {
    shots(9)
    const agent = createAgent({ provider: provider(), tools: { screenshot: screenshotTool() }, behavior: { mediaBudget: { maxItems: 4, maxBytes: 20 * 1024 * 1024 } } })
    await agent.run({ prompt: 'Nine screenshots.' })
    const counts = mediaPerRequest().map(request => request.filter(kind => kind === 'image').length)
    // 4 fit; at 5 the oldest 2 go (a step of half of 4); at 7 two more; at 9 two more.
    expect(counts).toEqual([0, 1, 2, 3, 4, 3, 4, 3, 4, 3])
    await agent.destroy()
  })

  it('lowers the budget to a provider\'s maxMediaPerRequest, and leaves a run without a media knob alone', async () => {
    const script = () => scriptedProvider([
      ...Array.from({ length: 6 }, (_, n) => ({ toolCalls: [{ name: 'screenshot', input: { n } }] })),
      { text: 'done' },
    ], { capabilities: { maxMediaPerRequest: 4 } })
    const inline = async (behavior: object) => {
      const scripted = script()
      const agent = createAgent({ provider: scripted, tools: { screenshot: screenshotTool() }, behavior })
      await agent.run({ prompt: 'Six screenshots.' })
      await agent.destroy()
      return scripted.requests.map(request => request.messages.flatMap(message => message.content)
        .filter(block => block.type === 'tool_result' && (block.output as ToolResultContent[])[1].type === 'image')
        .length)
    }
    expect(await inline({ mediaBudget: { maxItems: 80 } })).toEqual([0, 1, 2, 3, 4, 3, 4])
    expect(await inline({})).toEqual([0, 1, 2, 3, 4, 5, 6])
  })
})

describe('maxImageEdge', () => {
  it('downscales tool-result and prompt PNGs once, on entry: the session and every request carry the small image', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_shot', name: 'screenshot', input: { n: 0 } }] } },
      { type: 'turn', turn: { text: 'first' } },
      { type: 'turn', turn: { text: 'second' } },
    )
    const session = await createSession()
    const agent = createAgent({ provider: provider(), tools: { screenshot: screenshotTool(900, 300) }, session, behavior: { maxImageEdge: 450 } })
    const photo = gradient(300, 400)
    await agent.run({ prompt: [{ type: 'text', text: 'Compare with this.' }, { type: 'image', data: photo, mediaType: 'image/png' }] })
    await agent.run({ prompt: 'Again.' })

    const images = fake.requests.map(request => (request.body.messages as any[]).flatMap(message => message.content).flatMap((block: any) =>
      block.type === 'image' ? [block.source.data] : block.type === 'tool_result' ? block.content.filter((part: any) => part.type === 'image').map((part: any) => part.source.data) : []))
    const sizes = images.map(list => list.map((data: string) => pngSize(Buffer.from(data, 'base64'))))
    // The 300x400 prompt image fits and is sent as it was; the 900x300 screenshot is sent at 450x150.
    expect(sizes[0]).toEqual([{ width: 300, height: 400 }])
    expect(sizes[1]).toEqual([{ width: 300, height: 400 }, { width: 450, height: 150 }])
    expect(images[0][0]).toBe(photo)
    // The same bytes on every later request, from the session.
    expect(images[2][1]).toBe(images[1][1])
    const stored = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result')!
    expect((stored.output as ToolResultContent[])[1]).toMatchObject({ type: 'image', data: images[1][1] })
    const decoded = decodePng(Buffer.from(images[1][1], 'base64'))
    // Left edge dark, right edge bright: the gradient survived the resample.
    expect(decoded.data[0]).toBeLessThan(10)
    expect(decoded.data[(decoded.width - 1) * 4]).toBeGreaterThan(245)
    await agent.destroy()
  })

  it('downscales a prompt image, and passes through a PNG it does not decode', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const session = await createSession()
    const agent = createAgent({ provider: provider(), session, behavior: { maxImageEdge: 100 } })
    const jpegLike = Buffer.from('/9j/4AAQSkZJRgABAQ', 'base64').toString('base64')
    await agent.run({ prompt: [{ type: 'image', data: gradient(400, 200), mediaType: 'image/png' }, { type: 'image', data: jpegLike, mediaType: 'image/jpeg' }] })
    const sent = (fake.requests[0].body.messages as any[])[0].content
    expect(pngSize(Buffer.from(sent[0].source.data, 'base64'))).toEqual({ width: 100, height: 50 })
    expect(sent[1].source.data).toBe(jpegLike)
    expect(session.turns[0].content[0]).toMatchObject({ type: 'image', data: sent[0].source.data })
    await agent.destroy()
  })
})

describe('maxImageEdge and an abort', () => {
  it('the run\'s signal firing while a large tool-result PNG is being shrunk ends the run as aborted; the session keeps the image as it was', async () => {
    // 4000x4000 RGBA: a legal image whose decode takes many turns of the event loop.
    const big = pngOf(ihdr(4000, 4000, 6), deflateSync(Buffer.alloc(4000 * (1 + 4000 * 4)))).toString('base64')
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'shot', input: {} }] }, { text: 'never sent' }])
    const session = await createSession()
    const controller = new AbortController()
    let turns = 0
    const shot = tool({
      name: 'shot',
      description: 'Take a screenshot',
      input: z.object({}),
      execute: (): ToolResultContent[] => {
        // Abort a few turns of the event loop later: the result phase is decoding the image by then.
        const spin = () => {
          turns += 1
          if (turns === 5)
            controller.abort()
          else
            setImmediate(spin)
        }
        setImmediate(spin)
        return [{ type: 'image', data: big, mediaType: 'image/png' }]
      },
    })
    const agent = createAgent({ provider, tools: { shot }, session, behavior: { maxImageEdge: 100 } })
    const stats = await agent.run({ prompt: 'Look.', signal: controller.signal })
    expect(stats.stopReason).toBe('aborted')
    expect(turns).toBe(5)
    expect(provider.requests).toHaveLength(1)
    const stored = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result')!
    expect((stored.output as ToolResultContent[])[0]).toEqual({ type: 'image', data: big, mediaType: 'image/png' })
    await agent.destroy()
  }, 60_000)
})

describe('queued messages and the media pair', () => {
  it('downscales images in a follow-up message as it joins the conversation', async () => {
    const scripted = scriptedProvider([{ text: 'first' }, { text: 'second' }])
    const agent = createAgent({ provider: scripted, behavior: { maxImageEdge: 50 } })
    agent.followUp([{ type: 'text', text: 'And this one?' }, { type: 'image', data: gradient(200, 100), mediaType: 'image/png' }])
    await agent.run({ prompt: 'Hello.' })
    const sent = scripted.requests[1].messages.at(-1)!.content.find(block => block.type === 'image')!
    expect(pngSize(Buffer.from((sent as { data: string }).data, 'base64'))).toEqual({ width: 50, height: 25 })
    await agent.destroy()
  })

  it('a run that sets mediaBudget replaces the agent\'s mediaKeepTurns (the pair is overridden as one)', async () => {
    const images = [{ type: 'image' as const, data: gradient(4, 4), mediaType: 'image/png' }]
    const seen = async (run: object) => {
      const scripted = scriptedProvider([{ text: 'ok' }])
      const agent = createAgent({ provider: scripted, behavior: { mediaKeepTurns: 0 } })
      await agent.run({ prompt: images, behavior: run })
      await agent.destroy()
      return scripted.requests[0].messages[0].content[0].type
    }
    expect(await seen({})).toBe('text')
    expect(await seen({ mediaBudget: { maxItems: 5 } })).toBe('image')
    expect(await seen({ mediaBudget: { maxItems: 5 }, mediaKeepTurns: 0 })).toBe('text')
  })
})

describe('resolveContentRef', () => {
  const refTool = tool({
    name: 'fetch_image',
    description: 'Fetch an image by reference',
    input: z.object({}),
    execute: (): ToolResultContent[] => [{ type: 'image', ref: 'blob://42', mediaType: 'image/png', name: 'chart.png' }],
  })

  it('resolves ref blocks when a request is built, once per reference; the session keeps the ref', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_ref', name: 'fetch_image', input: {} }] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_ref2', name: 'fetch_image', input: {} }] } },
      { type: 'turn', turn: { text: 'seen' } },
    )
    const asked: unknown[] = []
    const payload = gradient(4, 4)
    const session = await createSession()
    const agent = createAgent({
      provider: provider(),
      tools: { fetch_image: refTool },
      session,
      resolveContentRef: async (block) => {
        asked.push(block)
        return { data: payload }
      },
    })
    await agent.run({ prompt: 'Look at the chart.' })
    expect(asked).toEqual([{ type: 'image', ref: 'blob://42', mediaType: 'image/png', name: 'chart.png' }])
    const sent = (fake.requests[2].body.messages as any[]).flatMap(message => message.content).filter((block: any) => block.type === 'tool_result')
    expect(sent.map((block: any) => block.content[0])).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: payload } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: payload } },
    ])
    const stored = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect((stored[0].output as ToolResultContent[])[0]).toEqual({ type: 'image', ref: 'blob://42', mediaType: 'image/png', name: 'chart.png' })
    await agent.destroy()
  })

  it('fails the run with AgentContentRefError when the resolver throws, and never asks for aged-out media', async () => {
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: 'toolu_ref', name: 'fetch_image', input: {} }] } })
    const failing = createAgent({ provider: provider(), tools: { fetch_image: refTool }, resolveContentRef: async () => {
      throw new Error('store offline')
    } })
    const error = await failing.run({ prompt: 'Look.' }).catch(caught => caught)
    expect(error).toBeInstanceOf(AgentContentRefError)
    expect(error).toMatchObject({ ref: 'blob://42', message: expect.stringContaining('store offline') })
    await failing.destroy()

    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    let asked = 0
    const aged = createAgent({ provider: provider(), behavior: { mediaKeepTurns: 0 }, resolveContentRef: async () => {
      asked++
      return { data: '' }
    } })
    await aged.run({ prompt: [{ type: 'text', text: 'Look.' }, { type: 'image', ref: 'blob://7', mediaType: 'image/png' } as never] })
    expect(asked).toBe(0)
    expect((fake.requests.at(-1)!.body.messages as any[])[0].content[1].text).toContain('read_file path="attachment://media-')
    await aged.destroy()
  })
})
