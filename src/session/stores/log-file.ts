/**
 * Byte-level work on one open session log: find where its committed lines
 * end (cutting a torn tail a crash left), read its header line, write a
 * whole buffer at a position or at the end. Each costs O(1) in the length of
 * the log, apart from a torn tail, which is read once, backwards, and then cut.
 */

import type { FileHandle } from 'node:fs/promises'
import fs from 'node:fs'

const NEWLINE = 0x0A
const CHUNK = 64 * 1024

/**
 * Where the next line goes: just past the log's last newline. A last line
 * without its newline is the remains of a write a crash cut short; it was
 * never acknowledged, so it is truncated away. `undefined` when the log has
 * no complete line at all (not even its header).
 */
export async function committedEnd(handle: FileHandle): Promise<number | undefined> {
  const { size } = await handle.stat()
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

/** The log's first line without its newline, or `undefined` when it has no complete line. */
export async function readFirstLine(handle: FileHandle): Promise<string | undefined> {
  const parts: Buffer[] = []
  const chunk = Buffer.alloc(CHUNK)
  for (let position = 0; ; position += CHUNK) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK, position)
    if (bytesRead === 0)
      return undefined
    const at = chunk.subarray(0, bytesRead).indexOf(NEWLINE)
    if (at !== -1) {
      parts.push(Buffer.from(chunk.subarray(0, at)))
      return Buffer.concat(parts).toString('utf8')
    }
    parts.push(Buffer.from(chunk.subarray(0, bytesRead)))
  }
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
