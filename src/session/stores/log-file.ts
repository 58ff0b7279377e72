/**
 * Byte-level work on one open session log: find where its committed lines
 * end (cutting a torn tail a crash left), read its header line, write a
 * whole buffer at a position or at the end. Each costs O(1) in the length of
 * the log, apart from a torn tail, which is read once, backwards, and then cut.
 * A load reads the log's lines in order (`forEachLine`), in pieces, with no
 * line held past `LOG_LINE_MAX_BYTES`.
 */

import type { FileHandle } from 'node:fs/promises'
import { constants } from 'node:buffer'
import fs from 'node:fs'

const NEWLINE = 0x0A
const CHUNK = 64 * 1024

/**
 * The longest line a log may hold, in bytes: V8's longest string (about 512
 * MiB), so any line up to it decodes. The store refuses to write a longer one,
 * and a load reports one as a broken line without reading it into memory.
 */
export const LOG_LINE_MAX_BYTES: number = constants.MAX_STRING_LENGTH

/** How much of a line over `LOG_LINE_MAX_BYTES` a load keeps, to show what it was. */
export const LINE_HEAD_BYTES = 1024

/** A load reads a log in pieces of this size (a smaller log in one piece). */
const READ_CHUNK = 8 * 1024 * 1024

/** A complete line of a log: its 1-based number and bytes, or, past `LOG_LINE_MAX_BYTES`, its length and first bytes. */
export type LogLine = WholeLine | OverlongLine

interface WholeLine {
  number: number
  bytes: Buffer
}

interface OverlongLine {
  number: number
  length: number
  /** Its first `LINE_HEAD_BYTES`, to show what it was. */
  head: Buffer
}

/**
 * Hand the complete lines among a log's first `size` bytes to `onLine`, in
 * order (a last line without its newline is not complete, and left out);
 * `onLine` may return `false` to stop. A line's `bytes` may be a view of a
 * buffer read into again afterwards: use them before returning. Memory stays
 * at one piece plus the longest line within `LOG_LINE_MAX_BYTES`: a longer
 * line is scanned to its end and never held. Work is linear in the bytes: a
 * line crossing from one piece into the next is read again as a whole.
 */
export async function forEachLine(handle: FileHandle, size: number, onLine: (line: LogLine) => boolean | void, chunkBytes = READ_CHUNK): Promise<void> {
  if (size <= 0)
    return
  const chunk = Buffer.allocUnsafe(Math.min(size, chunkBytes))
  let number = 0
  let lineStart = 0
  for (let position = 0; position < size;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - position), position)
    // The log shrank since its size was taken: what was read is all there is.
    if (bytesRead === 0)
      return
    const view = chunk.subarray(0, bytesRead)
    const chunkStart = position
    position += bytesRead
    for (let at = view.indexOf(NEWLINE, Math.max(0, lineStart - chunkStart)); at !== -1; at = view.indexOf(NEWLINE, at + 1)) {
      const end = chunkStart + at
      const length = end - lineStart
      number++
      let line: LogLine
      if (length > LOG_LINE_MAX_BYTES)
        line = { number, length, head: await readAt(handle, lineStart, LINE_HEAD_BYTES) }
      else if (lineStart >= chunkStart)
        line = { number, bytes: view.subarray(lineStart - chunkStart, at) }
      else
        line = { number, bytes: await readAt(handle, lineStart, length) }
      lineStart = end + 1
      if (onLine(line) === false)
        return
    }
  }
}

/** `length` bytes at `position`, in a buffer of their own. */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length)
  for (let offset = 0; offset < length;) {
    const { bytesRead } = await handle.read(bytes, offset, length - offset, position + offset)
    if (bytesRead === 0)
      throw new Error('the log was cut short while it was read')
    offset += bytesRead
  }
  return bytes
}

/**
 * Where the next line goes: just past the log's last newline. A last line
 * without its newline is the remains of a write a crash cut short; it was
 * never acknowledged, so it is truncated away. `undefined` when the log has
 * no complete line at all (not even its header). `size` is the log's size.
 */
export async function committedEnd(handle: FileHandle, size: number): Promise<number | undefined> {
  if (size === 0)
    return undefined
  const last = Buffer.alloc(1)
  await handle.read(last, 0, 1, size - 1)
  if (last[0] === NEWLINE)
    return size
  const end = await lastNewlineBefore(handle, size)
  if (end === undefined)
    return undefined
  await handle.truncate(end + 1)
  return end + 1
}

async function lastNewlineBefore(handle: FileHandle, size: number): Promise<number | undefined> {
  const chunk = Buffer.alloc(CHUNK)
  for (let stop = size; stop > 0; stop -= CHUNK) {
    const start = Math.max(0, stop - CHUNK)
    const { bytesRead } = await handle.read(chunk, 0, stop - start, start)
    const at = chunk.subarray(0, bytesRead).lastIndexOf(NEWLINE)
    if (at !== -1)
      return start + at
  }
  return undefined
}

/**
 * The log's first line (its header), or `undefined` when the first `size`
 * bytes hold no complete line. Read in small pieces: only the header is wanted.
 */
export async function readFirstLine(handle: FileHandle, size: number): Promise<LogLine | undefined> {
  let first: LogLine | undefined
  await forEachLine(handle, size, (line) => {
    first = 'bytes' in line ? { number: line.number, bytes: Buffer.from(line.bytes) } : line
    return false
  }, CHUNK)
  return first
}

/** Write all of `bytes` at `position` (a single write may write less). */
export async function writeAt(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let offset = 0; offset < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, position + offset)
    offset += bytesWritten
  }
}

/**
 * A log opened for appending only, as a bare descriptor: kept open across a
 * run's writes, it can then be closed from a finalizer without Node warning
 * about a `FileHandle` closed on garbage collection. An `existing` log is
 * never created (`ENOENT` when it is missing); a `new` one must not exist yet
 * (`EEXIST` when it does).
 */
export function openForAppend(path: string, log: 'existing' | 'new' = 'existing'): Promise<number> {
  const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL } = fs.constants
  const flags = log === 'new' ? O_WRONLY | O_APPEND | O_CREAT | O_EXCL : O_WRONLY | O_APPEND
  return new Promise((resolve, reject) => {
    fs.open(path, flags, 0o666, (error, fd) => error ? reject(error) : resolve(fd))
  })
}

/**
 * Lines up to this size are written synchronously by `appendAll`. A turn's
 * line is a few kilobytes; a tool output persisted inline can be far larger,
 * and those go through the thread pool so they never hold the event loop.
 */
export const SYNC_APPEND_MAX_BYTES = 64 * 1024

/**
 * Append all of `bytes` to a descriptor from `openForAppend` (a single write
 * may write less). A small line is written synchronously: on an open
 * descriptor that is one system call, where the asynchronous path also hands
 * the write to a libuv thread and wakes the event loop when it is done, which
 * costs several times the write itself. Either way the bytes reach the page
 * cache, so durability is the same.
 */
export async function appendAll(fd: number, bytes: Buffer): Promise<void> {
  if (bytes.length <= SYNC_APPEND_MAX_BYTES) {
    for (let offset = 0; offset < bytes.length;)
      offset += fs.writeSync(fd, bytes, offset, bytes.length - offset)
    return
  }
  for (let offset = 0; offset < bytes.length;)
    offset += await writeSome(fd, bytes, offset)
}

function writeSome(fd: number, bytes: Buffer, offset: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.write(fd, bytes, offset, bytes.length - offset, null, (error, written) => error ? reject(error) : resolve(written))
  })
}

/** Flush a descriptor's data to disk. */
export function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fdatasync(fd, error => error ? reject(error) : resolve())
  })
}

/** Close a descriptor. */
export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.close(fd, error => error ? reject(error) : resolve())
  })
}
