/**
 * Whether a Chat Completions body reached its `data: [DONE]` line.
 *
 * Some servers (Snowflake Cortex, several gateways) never put a
 * `finish_reason` on any choice: the last chunk carries usage, then `[DONE]`,
 * then the body ends. Such a stream is complete, while one whose socket closed
 * half-way is not, and the chunks alone cannot tell the two apart. The `openai`
 * client reads the `[DONE]` line and drops it, so the only witness left is the
 * raw body. The response's bytes pass through a transform that looks for the
 * marker at the start of a line. That test cannot be fooled by a chunk's
 * content: JSON escapes line breaks inside strings, so a raw line break
 * followed by `data: [DONE]` is always the SSE terminator. Once it is seen,
 * the remaining bytes pass through without being looked at.
 *
 * A connection that drops before `[DONE]` either fails the body read (the
 * client throws, classified as a network error) or ends it early, in which
 * case the marker is missing and the turn is reported as cut off.
 */

import { Buffer } from 'node:buffer'

const MARKER = Buffer.from('[DONE]', 'latin1')
const FIELD = Buffer.from('data:', 'latin1')
const LF = 0x0A
const CR = 0x0D
const SPACE = 0x20
/** The longest match: a line break, `data:`, one space, `[DONE]`. */
const LONGEST_MATCH = 1 + FIELD.length + 1 + MARKER.length

/** A response whose body is watched, and what the watch has seen so far. */
export interface WatchedResponse {
  /** The same status, headers and bytes as the original. */
  response: Response
  /** True once the body carried a `data: [DONE]` line. */
  sawDone: () => boolean
}

/** Watch a streaming response's body for the `[DONE]` line. A response without a body is returned as it is. */
export function watchDone(response: Response): WatchedResponse {
  if (!response.body)
    return { response, sawDone: () => false }
  const watch = new DoneWatch()
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (!watch.seen)
        watch.push(chunk)
      controller.enqueue(chunk)
    },
  }))
  const watched = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  return { response: watched, sawDone: () => watch.seen }
}

/**
 * The byte scanner behind `watchDone`, fed the body piece by piece however the
 * network split it. It keeps only the last few bytes of the previous pieces,
 * enough to find a marker that straddles two of them.
 */
export class DoneWatch {
  seen = false
  /** The stream's last bytes; a virtual line break stands before the first one. */
  private tail: Uint8Array = Uint8Array.of(LF)

  push(piece: Uint8Array): void {
    if (this.seen || piece.length === 0)
      return
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)
    // A match straddling the boundary starts in the tail and ends within the piece's first bytes.
    const head = bytes.subarray(0, LONGEST_MATCH - 1)
    this.seen = hasDoneLine(Buffer.concat([this.tail, head])) || hasDoneLine(bytes)
    this.tail = bytes.length >= LONGEST_MATCH
      ? bytes.subarray(bytes.length - LONGEST_MATCH)
      : Buffer.concat([this.tail, bytes]).subarray(-LONGEST_MATCH)
    // The tail must not pin the piece's whole buffer, nor change if the caller reuses it.
    this.tail = Uint8Array.from(this.tail)
  }
}

/** Whether `bytes` hold a whole `data:[DONE]` or `data: [DONE]` line start, its line break included. */
function hasDoneLine(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(MARKER); at !== -1; at = bytes.indexOf(MARKER, at + 1)) {
    const field = bytes[at - 1] === SPACE ? at - 1 - FIELD.length : at - FIELD.length
    const before = bytes[field - 1]
    if (field >= 1 && (before === LF || before === CR) && bytes.subarray(field, field + FIELD.length).equals(FIELD))
      return true
  }
  return false
}
