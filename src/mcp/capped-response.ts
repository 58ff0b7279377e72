/**
 * A size cap on what a remote MCP server (`sse`, `streamable-http`) sends.
 *
 * The SDK reads a JSON answer with `response.json()` and an event stream
 * with a parser that keeps every byte of an event until the blank line that
 * ends it, so nothing bounds what one answer can make the client hold: a
 * server that never ends an event fills the heap until the process dies.
 * Over stdio the SDK closes the connection past 10 MiB per message. Here the
 * bytes are counted while they stream in, before the SDK buffers them, and
 * the read is cut at the first chunk past the cap.
 */

import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { describeByteCap } from '../text/byte-cap'

/**
 * Default `maxResponseBytes`: 10 MiB, the size at which the SDK's stdio
 * reader gives up on one message, so a server gets the same room on every
 * transport.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024

const LF = 0x0A
const CR = 0x0D

/**
 * A remote MCP server sent more than `maxResponseBytes` in one answer (`part:
 * 'response'`) or in one event of an event stream (`part: 'event'`). What
 * came past the cap was not read and the connection carrying it was cut.
 */
export class McpResponseTooLargeError extends Error {
  override name = 'McpResponseTooLargeError'
  /**
   * `declaredBytes`: the `content-length` of an answer refused before any of
   * it was read.
   */
  constructor(readonly server: string, readonly maxBytes: number, readonly part: 'response' | 'event', readonly declaredBytes?: number) {
    const what = part === 'event' ? 'one event of an event stream' : 'a response body'
    const sent = declaredBytes === undefined ? `sent ${what} larger than` : `announced ${what} of ${declaredBytes} bytes (content-length), over`
    super(`MCP server "${server}" ${sent} ${describeByteCap(maxBytes)} (maxResponseBytes); the rest was not read. Raise maxResponseBytes in the server's config if such answers are expected.`)
  }
}

/** What `createCappedFetch` caps, and whom it tells. */
export interface CappedFetchOptions {
  /** The configured server name, for the error. */
  server: string
  /** Most bytes of one non-stream answer, or of one event of an event stream. */
  maxBytes: number
  /** Called once per answer that was cut, with the request it answered and whether its status was a success. */
  onOverflow?: (error: McpResponseTooLargeError, init: RequestInit | undefined, ok: boolean) => void
}

/**
 * Counts the bytes of the current event of an event stream: its lines with
 * their line ends, up to the blank line that ends it (which is not counted).
 * A line ends at CR, LF or CRLF, and a CRLF split across two chunks is still
 * one line end. Comment lines count too: until a blank line they belong to
 * the event. One pass over each byte, nothing kept.
 */
class EventSizer {
  private size = 0
  private lineBytes = 0
  private afterCR = false

  /** Whether every event in `chunk` (and the one it continues) stays within `maxBytes`. */
  fits(chunk: Uint8Array, maxBytes: number): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]
      this.size++
      if (byte !== LF && byte !== CR) {
        this.afterCR = false
        this.lineBytes++
      }
      else if (byte === LF && this.afterCR) {
        this.afterCR = false
      }
      else {
        this.afterCR = byte === CR
        if (this.lineBytes === 0)
          this.size = 0
        this.lineBytes = 0
      }
      if (this.size > maxBytes)
        return false
    }
    return true
  }
}

/** The media type of a `content-type` header, lower-cased, without parameters. */
function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase()
}

/**
 * Largest piece of an event stream handed on to the SDK's event parser. That
 * parser looks for the next LF from each line start to the end of the piece
 * it was given, so a piece of many CR-ended lines costs the square of its
 * length: a 64 KiB chunk of bare CRs took about 25 ms, a 512 KiB one 1.3 s.
 * In pieces of 4 KiB, 2 MiB of bare CRs took 74 ms instead of 590 ms (in
 * 64 KiB chunks), and ordinary events read as fast as before.
 */
export const EVENT_STREAM_PIECE_BYTES = 4096

/**
 * `body` passed on chunk by chunk while `fits` accepts each chunk; the first
 * chunk it refuses errors the stream with `fail()`, which cancels `body`
 * (and with it the connection) instead of reading on. With `pieceBytes`,
 * each chunk is handed on in views of at most that many bytes (no copy).
 */
function guardBody(body: ReadableStream<Uint8Array>, fits: (chunk: Uint8Array) => boolean, fail: () => Error, pieceBytes?: number): ReadableStream<Uint8Array> {
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (!fits(chunk)) {
        controller.error(fail())
        return
      }
      if (pieceBytes === undefined || chunk.byteLength <= pieceBytes) {
        controller.enqueue(chunk)
        return
      }
      for (let start = 0; start < chunk.byteLength; start += pieceBytes)
        controller.enqueue(chunk.subarray(start, start + pieceBytes))
    },
  }))
}

/**
 * `response` with its body counted as it is read. An event stream is capped
 * per event rather than in total, since a streamable-HTTP `GET` stream (and a
 * legacy SSE session) stays open for as long as the session lives. Any other
 * body is capped in total, and one whose `content-length` already says it is
 * too large is refused before a byte of it is read.
 */
export async function capResponse(response: Response, options: CappedFetchOptions, init?: RequestInit): Promise<Response> {
  if (!response.body)
    return response
  const { maxBytes, server } = options
  const eventStream = mediaType(response.headers.get('content-type')) === 'text/event-stream'
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  const refused = !eventStream && Number.isFinite(declared) && declared > maxBytes
  // Made on the first overflow only: most answers never need it.
  let error: McpResponseTooLargeError | undefined
  const fail = () => {
    if (!error) {
      error = new McpResponseTooLargeError(server, maxBytes, eventStream ? 'event' : 'response', refused ? declared : undefined)
      options.onOverflow?.(error, init, response.ok)
    }
    return error
  }
  if (refused) {
    await response.body.cancel().catch(() => {})
    throw fail()
  }
  let fits: (chunk: Uint8Array) => boolean
  if (eventStream) {
    const sizer = new EventSizer()
    fits = chunk => sizer.fits(chunk, maxBytes)
  }
  else {
    let size = 0
    fits = (chunk) => {
      size += chunk.byteLength
      return size <= maxBytes
    }
  }
  const capped = new Response(guardBody(response.body, fits, fail, eventStream ? EVENT_STREAM_PIECE_BYTES : undefined), { status: response.status, statusText: response.statusText, headers: response.headers })
  // The SDK and the EventSource read where a response came from (redirects), which a new Response would forget.
  Object.defineProperties(capped, {
    url: { value: response.url },
    redirected: { value: response.redirected },
    type: { value: response.type },
  })
  return capped
}

/** A fetch whose every answer is read through `capResponse`. */
export function createCappedFetch(base: FetchLike | undefined, options: CappedFetchOptions): FetchLike {
  const send: FetchLike = base ?? ((url, init) => fetch(url, init))
  return async (url, init) => capResponse(await send(url, init), options, init)
}

/**
 * The ids of the JSON-RPC requests in a request body the SDK wrote (one
 * message, or a batch). Empty for any other body.
 */
export function requestIdsOf(init: RequestInit | undefined): Array<string | number> {
  if (typeof init?.body !== 'string')
    return []
  let parsed: unknown
  try {
    parsed = JSON.parse(init.body)
  }
  catch {
    return []
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed]
  const ids: Array<string | number> = []
  for (const message of messages) {
    const { id, method } = (message ?? {}) as { id?: unknown, method?: unknown }
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(id)
  }
  return ids
}
