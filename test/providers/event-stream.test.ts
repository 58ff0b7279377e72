import type { ServerResponse } from 'node:http'
import type { LocalServer } from '../support/local-http'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { readAnthropicBody } from '../../src/providers/anthropic/body-events'
import { openaiCompat } from '../../src/providers/openai-compat'
import { MAX_EVENT_STREAM_LINE_CHARS, readEventData, readEventStream } from '../../src/providers/shared/event-stream'
import { startLocalServer } from '../support/local-http'
import { chatOptions, recordCallbacks, rejectionOf } from './openai-chat-fixtures'
import { noFinishReasonStream } from './openai-chat-vendor-fixtures'

// zidane reads Chat Completions bodies with its own event-stream parser (the
// `openai` client's is internal). Checked on bodies cut at every kind of
// boundary, against the format itself and against the client's parser, and
// through `openaiCompat()` against a local server writing awkward bytes.

const encoder = new TextEncoder()

/** The client's internal parser, to compare with while a release still has it. */
const clientParse = await import('openai/core/streaming').then(
  module => (module as Record<string, unknown>)._iterSSEMessages as ((response: Response, controller: AbortController) => AsyncIterable<{ data: string }>) | undefined,
  () => undefined,
)

/** The Anthropic SDK's internal parser, which also reports each message's event name. */
const anthropicParse = await import('@anthropic-ai/sdk/core/streaming').then(
  module => (module as Record<string, unknown>)._iterSSEMessages as ((response: Response, controller: AbortController) => AsyncIterable<{ event: string | null, data: string }>) | undefined,
  () => undefined,
)

function bodyOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(chunk)
      controller.close()
    },
  })
}

/** A body that repeats `message` for as long as it is read, and whether it was cancelled. */
function endlessBody(message: string): { body: ReadableStream<Uint8Array>, cancelled: () => boolean } {
  let cancelled = false
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(encoder.encode(message))
    },
    cancel() {
      cancelled = true
    },
  })
  return { body, cancelled: () => cancelled }
}

/** The bytes of `text`, cut at the given offsets (any byte, inside a character or a CRLF too). */
function cutAt(text: string, cuts: readonly number[]): Uint8Array[] {
  const bytes = encoder.encode(text)
  const points = [...new Set(cuts.map(cut => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point))
    from = point
  }
  return chunks
}

async function collect(body: ReadableStream<Uint8Array> | null): Promise<string[]> {
  const out: string[] = []
  for await (const data of readEventData(body))
    out.push(data)
  return out
}

interface ModelMessage {
  lines: string[]
  /** Fields that do not change the data: comments, `id:`, `retry:`, `event:`, unknown ones. */
  noise: string[]
  tight: boolean
}

/** Characters data may hold: JSON punctuation, colons, spaces, accents, emoji (four UTF-8 bytes), a line separator that is not an SSE line end. */
const dataChar = fc.constantFrom('a', 'Z', '0', '{', '}', '"', ':', ' ', 'é', '中', '😀', '\u2028', '[', ']', 'D', 'O', 'N', 'E')
const dataLine = fc.array(dataChar, { maxLength: 12 }).map(chars => chars.join(''))
const noiseLine = fc.constantFrom(': keep-alive', ':', 'id: 42', 'retry: 3000', 'event: chunk', 'x-vendor: 1', 'event:message')
const message = fc.record({
  lines: fc.array(dataLine, { minLength: 1, maxLength: 3 }),
  noise: fc.array(noiseLine, { maxLength: 2 }),
  tight: fc.boolean(),
})

/** Serialize messages with one line-end style; `complete: false` leaves the last one without its closing empty line. */
function serialize(messages: readonly ModelMessage[], eol: string, complete: boolean, blankRuns: readonly number[]): string {
  let text = ''
  messages.forEach((m, n) => {
    const lines = [...m.noise.slice(0, 1), ...m.lines.map(line => m.tight && !line.startsWith(' ') ? `data:${line}` : `data: ${line}`), ...m.noise.slice(1)]
    text += lines.map(line => line + eol).join('')
    if (complete || n < messages.length - 1)
      text += eol.repeat(1 + (blankRuns[n % Math.max(1, blankRuns.length)] ?? 0))
  })
  return text
}

/** Random LF and CRLF bodies, cut at random points, read the same by a client's parser and by ours. */
async function agreesWithClient<T>(theirs: (body: ReadableStream<Uint8Array>) => Promise<T>, ours: (body: ReadableStream<Uint8Array>) => Promise<T>): Promise<void> {
  await fc.assert(fc.asyncProperty(
    fc.array(message, { maxLength: 5 }),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean(),
    fc.array(fc.nat(), { maxLength: 8 }),
    async (messages, eol, complete, cuts) => {
      const text = serialize(messages, eol, complete, [])
      expect(await ours(bodyOf(cutAt(text, cuts)))).toEqual(await theirs(bodyOf(cutAt(text, cuts))))
    },
  ), { numRuns: 150 })
}

describe('the event-stream reader', () => {
  it('yields each message\'s data however the bytes are cut, in every line-end style', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(message, { maxLength: 6 }),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.boolean(),
      fc.array(fc.nat(2), { maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      async (messages, eol, complete, blankRuns, cuts) => {
        const text = serialize(messages, eol, complete, blankRuns)
        const expected = messages.map(m => m.lines.join('\n'))
        if (!complete)
          expected.pop()
        expect(await collect(bodyOf(cutAt(text, cuts)))).toEqual(expected)
      },
    ), { numRuns: 300 })
  })

  it.skipIf(typeof clientParse !== 'function')('agrees with the openai client\'s own parser on LF and CRLF bodies', async () => {
    await agreesWithClient(async (body) => {
      const theirs: string[] = []
      for await (const sse of clientParse!(new Response(body), new AbortController()))
        theirs.push(sse.data)
      return theirs
    }, collect)
  })

  it('readEventStream hands out the same messages as readEventData, with their event names', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(message, { maxLength: 6 }),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 12 }),
      async (messages, eol, complete, cuts) => {
        const text = serialize(messages, eol, complete, [])
        const pushed: { event: string, data: string }[] = []
        await readEventStream(bodyOf(cutAt(text, cuts)), (event, data) => void pushed.push({ event, data }))
        expect(pushed.map(m => m.data)).toEqual(await collect(bodyOf(cutAt(text, cuts))))
        // The last `event:` line before the message's end names it (`event:message` and `event: chunk` are the noise lines).
        const named = messages.slice(0, pushed.length).map((m) => {
          const last = m.noise.filter(line => line.startsWith('event:')).at(-1)
          return last === undefined ? '' : last.slice('event:'.length).trimStart()
        })
        expect(pushed.map(m => m.event)).toEqual(named)
      },
    ), { numRuns: 300 })
  })

  it.skipIf(typeof anthropicParse !== 'function')('agrees with the Anthropic client\'s own parser on event names and data', async () => {
    await agreesWithClient(async (body) => {
      const theirs: { event: string, data: string }[] = []
      for await (const sse of anthropicParse!(new Response(body), new AbortController()))
        theirs.push({ event: sse.event ?? '', data: sse.data })
      return theirs
    }, async (body) => {
      const ours: { event: string, data: string }[] = []
      await readEventStream(body, (event, data) => void ours.push({ event, data }))
      return ours
    })
  })

  it('readEventStream stops at a throw from its handler and lets the body go', async () => {
    const endless = endlessBody('event: x\ndata: more\n\n')
    let seen = 0
    await expect(readEventStream(endless.body, () => {
      if (++seen === 3)
        throw new Error('enough')
    })).rejects.toThrow('enough')
    expect(seen).toBe(3)
    expect(endless.cancelled()).toBe(true)
  })

  it('a message with a named event and no data counts, with empty data, as the client counts it; a lone id or comment does not', async () => {
    expect(await collect(bodyOf([encoder.encode('event: ping\n\nid: 3\n\n: hi\n\nevent:\n\ndata: x\n\n')]))).toEqual(['', 'x'])
  })

  it('a CR that ends one read and the LF that starts the next are one line end', async () => {
    const text = 'data: a\r\ndata: b\r\n\r\ndata: c\r\r'
    for (let cut = 1; cut < text.length; cut++)
      expect(await collect(bodyOf(cutAt(text, [cut])))).toEqual(['a\nb', 'c'])
  })

  it('a data line longer than many reads arrives whole, in every line-end style', async () => {
    const long = JSON.stringify({ arguments: 'é中😀 x'.repeat(20_000) })
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = `data: ${long}${eol}${eol}data: next${eol}${eol}`
      const cuts = Array.from({ length: Math.ceil(text.length / 1024) }, (_, n) => (n + 1) * 1024)
      expect(await collect(bodyOf(cutAt(text, cuts)))).toEqual([long, 'next'])
    }
  })

  it('drops a leading byte-order mark, turns invalid UTF-8 into U+FFFD, and reads no body as no messages', async () => {
    expect(await collect(bodyOf([Uint8Array.of(0xEF, 0xBB, 0xBF), encoder.encode('data: x\n\n')]))).toEqual(['x'])
    expect(await collect(bodyOf([encoder.encode('data: a'), Uint8Array.of(0xFF), encoder.encode('b\n\n')]))).toEqual(['a\uFFFDb'])
    expect(await collect(bodyOf([encoder.encode('data: a'), Uint8Array.of(0xF0, 0x9F), encoder.encode('\n\n')]))).toEqual(['a\uFFFD'])
    // A body that stops inside a character and a message has no message left to give.
    expect(await collect(bodyOf([encoder.encode('data: a'), Uint8Array.of(0xF0, 0x9F)]))).toEqual([])
    expect(await collect(null)).toEqual([])
  })

  it('cancels the body when the reader is left early', async () => {
    const endless = endlessBody('data: more\n\n')
    const seen: string[] = []
    for await (const data of readEventData(endless.body)) {
      seen.push(data)
      if (seen.length === 2)
        break
    }
    expect(seen).toEqual(['more', 'more'])
    expect(endless.cancelled()).toBe(true)
  })
})

/** Every message of `chunks` as `readEventStream` hands them out, or the error it rejected with. */
async function eventsOf(chunks: readonly Uint8Array[], options?: { maxLineChars?: number }): Promise<{ event: string, data: string }[] | { error: unknown }> {
  const out: { event: string, data: string }[] = []
  try {
    await readEventStream(bodyOf(chunks), (event, data) => void out.push({ event, data }), options)
  }
  catch (error) {
    return { error }
  }
  return out
}

/** A body of `total` characters of one line that never ends, in reads of `read` characters, and whether it was cancelled. */
function endlessLine(read: number): { body: ReadableStream<Uint8Array>, cancelled: () => boolean, sent: () => number } {
  const piece = encoder.encode('x'.repeat(read))
  let sent = 0
  let cancelled = false
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('event: content_block_delta\ndata: '))
    },
    pull(controller) {
      sent += piece.length
      controller.enqueue(piece)
    },
    cancel() {
      cancelled = true
    },
  })
  return { body, cancelled: () => cancelled, sent: () => sent }
}

describe('the event-stream reader on hostile bodies', () => {
  // Pieces that make every line-end style, fields, comments and multi-byte characters meet at random points.
  const piece = fc.constantFrom('data:', 'data: ', 'event:', 'event: x', ':', 'id: 1', '\r', '\n', '\r\n', '\n\n', 'x', ' ', 'é', '😀', '{"a":1}')
  const anyBody = fc.array(piece, { maxLength: 60 }).map(pieces => pieces.join(''))

  it('hands out the same messages, or the same error, for any cutting of the same bytes', async () => {
    await fc.assert(fc.asyncProperty(anyBody, fc.array(fc.nat(), { maxLength: 16 }), fc.constantFrom(undefined, 8), async (text, cuts, maxLineChars) => {
      const whole = await eventsOf([encoder.encode(text)], { maxLineChars })
      expect(await eventsOf(cutAt(text, cuts), { maxLineChars })).toEqual(whole)
      // One byte per read: every boundary at once.
      const bytes = encoder.encode(text)
      expect(await eventsOf(Array.from(bytes, byte => Uint8Array.of(byte)), { maxLineChars })).toEqual(whole)
    }), { numRuns: 300 })
  })

  it('reads a line of many MiB sent in small reads in time linear in its length', async () => {
    // 8 MiB in 1 KiB reads: rescanning or re-joining what is pending on every read would copy about
    // 32 GiB here (minutes); read once, it is a few hundred milliseconds of work.
    const long = 'y'.repeat(8 * 1024 * 1024)
    const text = `event: big\ndata: ${long}\n\ndata: after\n\n`
    const cuts = Array.from({ length: Math.ceil(text.length / 1024) }, (_, n) => (n + 1) * 1024)
    const events = await eventsOf(cutAt(text, cuts))
    expect(events).toEqual([{ event: 'big', data: long }, { event: '', data: 'after' }])
  }, 60_000)

  it('refuses a line longer than the limit, whole or in pieces, and accepts one exactly at it', async () => {
    const limit = 100
    const at = `data: ${'a'.repeat(limit - 'data: '.length)}`
    expect(await eventsOf([encoder.encode(`${at}\n\n`)], { maxLineChars: limit })).toEqual([{ event: '', data: 'a'.repeat(limit - 6) }])
    for (const cuts of [[], [10, 50, 99]]) {
      const over = await eventsOf(cutAt(`${at}a\n\n`, cuts), { maxLineChars: limit })
      expect(over).toMatchObject({ error: expect.any(ClassifiedError) })
      expect((over as { error: ClassifiedError }).error).toMatchObject({ kind: 'server', retryable: false })
      expect((over as { error: ClassifiedError }).error.message).toContain('line longer than')
    }
  })

  it('refuses a message whose data lines add up past the limit, line feeds counted', async () => {
    const limit = 20
    // Two lines of 10 characters and the line feed between them: 21 characters.
    const over = await eventsOf([encoder.encode(`data: ${'b'.repeat(10)}\ndata: ${'c'.repeat(10)}\n\n`)], { maxLineChars: limit })
    expect((over as { error: ClassifiedError }).error).toBeInstanceOf(ClassifiedError)
    expect((over as { error: ClassifiedError }).error.message).toContain('message longer than')
    expect(await eventsOf([encoder.encode(`data: ${'b'.repeat(10)}\ndata: ${'c'.repeat(9)}\n\n`)], { maxLineChars: limit })).toEqual([{ event: '', data: `${'b'.repeat(10)}\n${'c'.repeat(9)}` }])
  })

  it('ends a line that never ends at the default limit, naming the provider, and lets the body go', async () => {
    const endless = endlessLine(256 * 1024)
    const turn = { handle: () => {} } as unknown as Parameters<typeof readAnthropicBody>[1]
    const error = await readAnthropicBody(new Response(endless.body), turn).then(() => undefined, (error: unknown) => error)
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: false, provider: 'anthropic' })
    expect(endless.cancelled()).toBe(true)
    // Read just past the limit, not beyond: the memory a line may take is bounded.
    expect(endless.sent()).toBeGreaterThan(MAX_EVENT_STREAM_LINE_CHARS - 256 * 1024)
    expect(endless.sent()).toBeLessThan(MAX_EVENT_STREAM_LINE_CHARS + 2 * 256 * 1024)
  }, 60_000)
})

/** A Chat Completions endpoint that writes the given pieces one by one, a few milliseconds apart, so each arrives as its own read. */
async function rawChatServer(pieces: readonly (string | Uint8Array)[], options: { end?: boolean, onClose?: () => void } = {}): Promise<LocalServer> {
  return startLocalServer((_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.flushHeaders()
    response.on('close', () => options.onClose?.())
    let at = 0
    const next = () => {
      if (at === pieces.length) {
        if (options.end !== false)
          response.end()
        return
      }
      response.write(pieces[at++])
      setTimeout(next, 3)
    }
    next()
  })
}

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const compatAt = (url: string) => openaiCompat({ baseURL: url, defaultModel: 'claude-3-5-sonnet', name: 'cortex' })

describe('a Chat Completions body written in awkward pieces, through openaiCompat()', () => {
  // Snowflake Cortex's shape (no finish_reason; usage, then [DONE]) framed with CRLF, keep-alive comments and ids,
  // cut inside a four-byte character, inside a CRLF and inside the terminator.
  const frames = noFinishReasonStream().map((chunk, n) => `id: ${n}\r\ndata: ${JSON.stringify(chunk)}\r\n\r\n`)
  frames.splice(1, 0, ': keep-alive\r\n\r\n')
  frames[0] = frames[0].replace('The answer', 'The 😀 answer')
  const whole = encoder.encode(`${frames.join('')}data: [DONE]\r\n\r\n`)
  const emoji = encoder.encode(frames[0]).indexOf(0xF0)
  const doneAt = whole.length - '[DONE]\r\n\r\n'.length
  const cuts = [emoji + 2, encoder.encode(frames[0]).length - 1, doneAt + 3, whole.length - 1]
  const pieces = cutAt(new TextDecoder().decode(whole), cuts)

  it('reaches [DONE]: the turn is a normal stop with every character intact', async () => {
    server = await rawChatServer(pieces)
    const rec = recordCallbacks()
    const result = await compatAt(server.url('/v1')).stream(chatOptions(), rec.callbacks)
    expect(rec.texts.join('')).toBe('The 😀 answer is 42.')
    expect(result.content).toEqual([{ type: 'text', text: 'The 😀 answer is 42.' }])
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ input: 310, output: 9, provider: 'cortex' })
  })

  it('ends before the empty line that closes [DONE]: the turn was cut off', async () => {
    server = await rawChatServer(cutAt(new TextDecoder().decode(whole.subarray(0, whole.length - 2)), cuts.slice(0, 3)))
    const error = await rejectionOf(compatAt(server.url('/v1')).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'cortex' })
  })

  it('an error message on a stream left open rejects the turn and lets the connection go', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    server = await rawChatServer([
      `data: ${JSON.stringify(noFinishReasonStream()[0])}\n\n`,
      `data: ${JSON.stringify({ error: { message: 'Upstream overloaded', type: 'server_error', code: 'overloaded' } })}\n\n`,
    ], { end: false, onClose: () => closed() })
    const error = await rejectionOf(compatAt(server.url('/v1')).stream(chatOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.message).toContain('Upstream overloaded')
    await connectionClosed
  })
})
