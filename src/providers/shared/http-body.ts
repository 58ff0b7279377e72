/**
 * A response body from `node:http` as the web stream a `Response` carries:
 * decoded as `fetch` decodes it, and read from the socket only as fast as its
 * reader takes bytes. Used by `node-http-fetch.ts`.
 */

import type { IncomingMessage } from 'node:http'
import type { Readable, Transform } from 'node:stream'
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib'

/** High-water mark of a body's stream: how far the socket is read ahead of the reader. */
const BODY_HIGH_WATER_BYTES = 64 * 1024

/** Most codings one `content-encoding` may chain; more is refused, as undici refuses it. */
const MAX_CODINGS = 5

/**
 * Decoders end on what they were given, as fetch's do: an empty body, or
 * one whose compressed stream stops early, gives the bytes decoded so far.
 */
const ZLIB_OPTIONS = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }
const BROTLI_OPTIONS = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH }

/** A body being read: its stream, whether its reader has it paused, and how to fail it from outside. */
export interface BodyReading {
  stream: ReadableStream<Uint8Array>
  /** True while the reader has not taken what was read ahead: the wait is the reader's, not the server's. */
  paused: () => boolean
  /** Error the stream with `reason` (an abort, a timeout) and let the connection go. */
  fail: (reason: unknown) => void
}

/**
 * The codings of a `content-encoding` header, in the order to undo them;
 * `undefined` when one of them is not gzip, deflate or brotli (the body then
 * goes through as it came, as fetch passes it).
 * @throws TypeError for more than `MAX_CODINGS` codings.
 */
export function codingsOf(header: string | undefined): string[] | undefined {
  if (!header)
    return undefined
  const codings = header.split(',').map(coding => coding.trim().toLowerCase()).filter(coding => coding !== '' && coding !== 'identity')
  if (codings.length > MAX_CODINGS)
    throw new TypeError(`content-encoding names ${codings.length} codings; at most ${MAX_CODINGS} are decoded`)
  if (codings.length === 0 || codings.some(coding => !['gzip', 'x-gzip', 'deflate', 'br'].includes(coding)))
    return undefined
  return codings.reverse()
}

/** Read `incoming` as a web stream, undoing `codings` (from `codingsOf`); `onEnd` once it ended, failed or was cancelled. */
export function readBody(incoming: IncomingMessage, codings: string[] | undefined, onEnd: () => void): BodyReading {
  let done = false
  let paused = false
  let source: Readable = incoming
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const stages: Transform[] = []

  const end = (): void => {
    done = true
    onEnd()
  }
  const stop = (): void => {
    end()
    incoming.destroy()
    for (const stage of stages) stage.destroy()
  }
  const fail = (error: unknown): void => {
    if (done)
      return
    stop()
    controller.error(error)
  }
  const failTerminated = (error: unknown): void => fail(new TypeError('terminated', { cause: error }))

  // Reads what the last stage gives, pausing it when the reader is a stream's worth behind.
  const flow = (last: Readable): void => {
    source = last
    last.on('data', (chunk: Buffer) => {
      if (done)
        return
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
      if ((controller.desiredSize ?? 0) <= 0) {
        paused = true
        last.pause()
      }
    })
    last.once('end', () => {
      if (done)
        return
      end()
      controller.close()
    })
  }

  // Adds the decoder of `codings[i]` after `upstream`, then the rest. Raw deflate and zlib-wrapped deflate
  // both come as `deflate`, so a deflate stage waits for the first bytes of what it decodes to pick its kind.
  const chain = (upstream: Readable, i: number): void => {
    if (done)
      return
    if (!codings || i === codings.length) {
      flow(upstream)
      return
    }
    const attach = (first: Buffer | undefined): void => {
      const stage = decoder(codings[i]!, first)
      stage.on('error', failTerminated)
      stages.push(stage)
      if (first)
        stage.write(first)
      upstream.pipe(stage)
      chain(stage, i + 1)
    }
    if (codings[i] !== 'deflate') {
      attach(undefined)
      return
    }
    upstream.once('readable', () => {
      if (!done)
        attach((upstream.read() as Buffer | null) ?? undefined)
    })
  }

  incoming.on('error', failTerminated)
  // A socket closed before the body's end, with no error raised for it.
  incoming.once('close', () => {
    if (!incoming.complete)
      failTerminated(Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }))
  })

  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController
      chain(incoming, 0)
    },
    pull() {
      paused = false
      source.resume()
    },
    cancel() {
      if (!done)
        stop()
    },
  }, { highWaterMark: BODY_HIGH_WATER_BYTES, size: chunk => chunk.byteLength })
  return { stream, paused: () => paused, fail }
}

/**
 * Bodies nobody started to read when their `Response` was collected: the
 * connection is let go, as undici lets it go. A body whose stream a reader
 * took (the error-body cap reads one through a `Response` of its own) is
 * left alone.
 */
const unreadBodies = new FinalizationRegistry<BodyReading>(({ stream, fail }) => {
  if (!stream.locked)
    fail(new Error('the Response was collected with its body unread'))
})

/** Let `reading`'s connection go if `response` is collected before anyone reads its body. */
export function releaseWhenCollected(response: Response, reading: BodyReading): void {
  unreadBodies.register(response, reading)
}

/** The decoder of one coding; for deflate, `first` (the body's first bytes) tells zlib-wrapped from raw. */
function decoder(coding: string, first: Buffer | undefined): Transform {
  if (coding === 'br')
    return createBrotliDecompress(BROTLI_OPTIONS)
  if (coding === 'deflate') {
    // A zlib header's low four bits name its method, 8 (deflate); servers also send raw deflate under this name.
    const wrapped = first === undefined || first.length === 0 || (first[0]! & 0x0F) === 8
    return wrapped ? createInflate(ZLIB_OPTIONS) : createInflateRaw(ZLIB_OPTIONS)
  }
  return createGunzip(ZLIB_OPTIONS)
}
