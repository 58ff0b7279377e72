/**
 * The most bytes one `readFile` of a context returns. The size a file reports
 * is no bound on what reading it yields: files under `/proc` report 0 and
 * `/proc/self/pagemap` never ends in practice, and a file may grow while it
 * is read. Every context therefore stops at a cap, the caller's or this
 * default, and rejects with `EFBIG` instead of filling memory.
 */

import { ContextFileError } from './errors'

/** The cap of a `readFile` call that names none: well above what the file tools load (32 MiB). */
export const DEFAULT_READ_FILE_MAX_BYTES = 256 * 1024 * 1024

/** The `EFBIG` refusal of a read that passed `maxBytes`. */
export function fileTooLargeError(path: string, maxBytes: number): ContextFileError {
  return new ContextFileError('EFBIG', path, `more than ${maxBytes} bytes`)
}

/** `bytes`, or the `EFBIG` refusal when a backend that cannot stop early returned more than `maxBytes`. */
export function withinReadLimit(bytes: Uint8Array, path: string, maxBytes = DEFAULT_READ_FILE_MAX_BYTES): Uint8Array {
  if (bytes.length > maxBytes)
    throw fileTooLargeError(path, maxBytes)
  return bytes
}
