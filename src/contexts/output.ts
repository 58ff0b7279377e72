/**
 * Bounded output capture. Commands can print gigabytes; a context keeps only
 * the newest bytes (the end of a log is what explains a failure) and counts
 * what it dropped. Cuts always land on UTF-8 character boundaries (the
 * shared helpers in `text/truncate.ts`).
 */

import { utf8BoundaryAtOrAfter, utf8BoundaryAtOrBefore } from '../text/truncate'

/** Cap on what `exec` keeps in memory when the caller sets none. */
export const DEFAULT_EXEC_OUTPUT_BYTES = 4 * 1024 * 1024

const decoder = new TextDecoder('utf-8')

export { utf8BoundaryAtOrAfter }

/**
 * Length of the longest prefix of `bytes` that does not end inside a
 * multibyte character. Invalid sequences are left alone (the decoder will
 * replace them); only a genuinely incomplete tail is cut.
 */
export function utf8CompletePrefixLength(bytes: Uint8Array): number {
  return utf8BoundaryAtOrBefore(bytes, bytes.length)
}

/** Keeps the newest `cap` bytes pushed into it. */
export class TailBuffer {
  private chunks: Uint8Array[] = []
  private size = 0
  private droppedBytes = 0

  constructor(readonly cap: number) {}

  /** Every byte pushed so far, kept or dropped. */
  get totalBytes(): number {
    return this.size + this.droppedBytes
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0)
      return
    if (this.cap <= 0) {
      this.droppedBytes += chunk.length
      return
    }
    if (chunk.length >= this.cap) {
      this.droppedBytes += this.size + chunk.length - this.cap
      this.chunks = [chunk.subarray(chunk.length - this.cap)]
      this.size = this.cap
      return
    }
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.cap) {
      const first = this.chunks[0]
      const excess = this.size - this.cap
      if (first.length <= excess) {
        this.chunks.shift()
        this.size -= first.length
        this.droppedBytes += first.length
      }
      else {
        this.chunks[0] = first.subarray(excess)
        this.size -= excess
        this.droppedBytes += excess
      }
    }
  }

  /** The kept bytes starting on a character boundary, and how many bytes precede them. */
  bytes(): { bytes: Uint8Array, droppedBytes: number } {
    const all = concatBytes(this.chunks, this.size)
    // Only a cut can leave a partial character at the start; untouched output is returned as is.
    const start = this.droppedBytes > 0 ? utf8BoundaryAtOrAfter(all, 0) : 0
    return { bytes: all.subarray(start), droppedBytes: this.droppedBytes + start }
  }

  text(): { text: string, droppedBytes: number } {
    const { bytes, droppedBytes } = this.bytes()
    return { text: decoder.decode(bytes), droppedBytes }
  }
}

function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1)
    return chunks[0]
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/**
 * Holds back an incomplete trailing character of one stream until its next
 * chunk, so interleaving two streams never splits a character of either.
 */
export class Utf8Carry {
  private pending: Uint8Array | undefined

  /** The complete-character part of `pending + chunk`. */
  take(chunk: Uint8Array): Uint8Array {
    const joined = this.pending ? concatBytes([this.pending, chunk], this.pending.length + chunk.length) : chunk
    const complete = utf8CompletePrefixLength(joined)
    this.pending = complete < joined.length ? joined.slice(complete) : undefined
    return joined.subarray(0, complete)
  }

  /** Whatever is still held back (a stream ended mid-character). */
  flush(): Uint8Array | undefined {
    const rest = this.pending
    this.pending = undefined
    return rest
  }
}

/** stdout and stderr interleaved in arrival order into one bounded buffer. */
export class CombinedOutput {
  private readonly buffer: TailBuffer
  private readonly carries = { stdout: new Utf8Carry(), stderr: new Utf8Carry() }

  constructor(cap: number) {
    this.buffer = new TailBuffer(cap)
  }

  write(stream: 'stdout' | 'stderr', chunk: Uint8Array): void {
    this.buffer.push(this.carries[stream].take(chunk))
  }

  finish(): { output: string, truncatedBytes: number } {
    for (const carry of Object.values(this.carries)) {
      const rest = carry.flush()
      if (rest)
        this.buffer.push(rest)
    }
    const { text, droppedBytes } = this.buffer.text()
    return { output: text, truncatedBytes: droppedBytes }
  }
}

/** Keep the last `maxBytes` bytes of `text`, cut on a character boundary. */
export function tailOfText(text: string, maxBytes: number): { text: string, droppedBytes: number } {
  // Cheap exit: a string of n UTF-16 units is at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes)
    return { text, droppedBytes: 0 }
  const buffer = new TailBuffer(maxBytes)
  buffer.push(new TextEncoder().encode(text))
  return buffer.text()
}
