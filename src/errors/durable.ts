/** Durable runtimes: a journal entry over the size limit. */

/**
 * A durable runtime refused to journal an entry larger than its
 * `maxEntryBytes` (default 4 MiB): a tool call gets it as its error result,
 * a model result ends the run with it. Never retried: the same call would
 * produce the same oversized entry again.
 */
export class DurablePayloadTooLargeError extends Error {
  override name = 'DurablePayloadTooLargeError'
  /** The step whose entry was refused. */
  readonly step: string
  /** Bytes of the entry's JSON. */
  readonly bytes: number
  /** The runtime's `maxEntryBytes`. */
  readonly maxBytes: number
  constructor(step: string, bytes: number, maxBytes: number) {
    super(`The durable journal entry of "${step}" is ${bytes} bytes, over the ${maxBytes}-byte limit (maxEntryBytes); it was not journaled`)
    this.step = step
    this.bytes = bytes
    this.maxBytes = maxBytes
  }
}
