/**
 * The file store: one append-only JSONL log per session, `<dir>/<id>.jsonl`
 * (format in `jsonl-log.ts`). Persisting a turn appends one line and never
 * rewrites earlier bytes, so it costs the same at turn 10 and turn 10,000.
 *
 * Writes to one session are serialized through a promise chain per file,
 * shared by every file store of this process, so lines never interleave.
 * Across processes, one writer at a time is enforced by the session's lease
 * (`file-lease.ts`): a write is checked against `<id>.lease` first, and one
 * whose writer lost the lease fails with `SessionLeaseError`.
 *
 * While a run records into a session (from its `running` record to its
 * final one) the store keeps that log open in append mode, so a turn costs
 * one write instead of opening, checking and closing the file (a line under
 * 64 KB is written synchronously, see `appendAll`); at most 16
 * logs per store stay open, and `close()` closes them. A torn tail is cut
 * when a log is opened, before a run keeps it open: in one process the
 * store's own writes cannot leave one behind (a failed write drops the handle).
 *
 * A load reads the log line by line (`forEachLine`), never more than one
 * piece and one line in memory at a time, and refuses before reading a log
 * over `maxLogBytes` or anything that is not a regular file (a FIFO would
 * wait for ever). A line over `LOG_LINE_MAX_BYTES` is a broken record, and
 * the store refuses to write one (`corrupt`, as a load would name it); so is a
 * record nested past `MAX_RECORD_DEPTH` (`writable-json.ts`).
 *
 * Durability: by default a write returns once the line is in the operating
 * system's page cache. That survives a crash of this process (the usual
 * failure) but not a power loss or kernel crash, which can drop the last few
 * writes; a torn line left behind is ignored on load and cut by the next
 * append. `durability: 'fsync'` syncs the log after every write (and the
 * directory after a create), surviving power loss at the cost of a disk
 * flush per turn, typically a few milliseconds.
 */

import type { FileHandle } from 'node:fs/promises'
import type { SessionTurn } from '../../core/content'
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore, SessionWriteOptions } from '../types'
import fs from 'node:fs'
import { link, mkdir, open, readdir, rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { SessionStoreError } from '../../errors'
import { groupDigits } from '../../text/group-digits'
import { checksItsLoads } from './corrupt-records'
import { createFileLeases, syncDirectory } from './file-lease'
import { assertWritableLine, checkHeaderLine, headerLine, logReplay, runLine, turnsLine } from './jsonl-log'
import { createKeyedQueue } from './keyed-queue'
import { assertLeaseRequest } from './lease'
import { appendAll, closeFd, committedEnd, forEachLine, openForAppend, readFirstLine, syncData, writeAt } from './log-file'
import { ioError } from './records'
import { assertSessionId, isValidSessionId, sessionFileNamer, sessionIdFor } from './session-id'

/** Options of `createFileStore`. */
export interface FileStoreOptions {
  /** Directory holding the logs; created on the first write. */
  dir: string
  /**
   * `'buffered'` (default): a write returns once the OS has the bytes; safe
   * against a process crash. `'fsync'`: also flush them to disk; safe against
   * power loss, slower.
   */
  durability?: 'buffered' | 'fsync'
  /**
   * Largest log `load` reads, in bytes; a larger one fails with
   * `SessionStoreError` code `io` before any of it is read. Default 512 MiB.
   */
  maxLogBytes?: number
}

const LOG_SUFFIX = '.jsonl'
/** Default `maxLogBytes`: a session this large takes gigabytes of heap once loaded. */
const DEFAULT_MAX_LOG_BYTES = 512 * 1024 * 1024
/** A load opens a log without blocking, so a FIFO dropped in its place is refused rather than waited on. */
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)
/** Logs one store keeps open at most (runs recording at once); past it the least recently used is closed. */
const MAX_OPEN_LOGS = 16

/** A log kept open (in append mode) while runs record into it. */
interface OpenLog {
  fd: number
  /** Ids of the runs recording into it: saved as `running`, not yet with a final status. */
  runs: Set<string>
  /**
   * Set on a log kept open since this store created it, before any run holds
   * its lease: its size then. Another writer may have appended meanwhile (or
   * torn a line), so the first write checks the size and takes the full path
   * when it moved.
   */
  createdSize?: number
}

// Module-wide so two stores opened on the same directory still take turns.
const writes = createKeyedQueue()

// A store dropped while a run still records (it never saved its final record) closes its logs when collected.
const dropped = new FinalizationRegistry<Map<string, OpenLog>>((logs) => {
  for (const log of logs.values()) fs.close(log.fd, () => {})
})

/** A session store of append-only JSONL files, one per session, written in O(1) per turn. */
export function createFileStore(options: FileStoreOptions): SessionStore {
  const dir = resolve(options.dir)
  const fsync = options.durability === 'fsync'
  const maxLogBytes = options.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES
  if (typeof maxLogBytes !== 'number' || !(maxLogBytes > 0))
    throw new TypeError(`createFileStore: maxLogBytes must be a positive number of bytes, not ${String(maxLogBytes)}`)
  // Sessions whose header this store has already read (version checked).
  const checkedHeaders = new Set<string>()
  // Logs a run is recording into, kept open between its writes; least recently used first.
  const openLogs = new Map<string, OpenLog>()
  const sessionFile = sessionFileNamer(dir)
  const logPath = (id: string) => sessionFile(id, LOG_SUFFIX)
  const leases = createFileLeases(dir, fsync)

  // Set once this store has made sure its directory exists: a create is then one open, not a mkdir and a stat first.
  let directoryReady = false

  /**
   * Write a new session's header and keep its log open in append mode: the
   * run that usually follows at once then records into it without opening it
   * again, reading its header back or looking for its end (this store wrote
   * both). A log created but never written to is closed like any kept log
   * (evicted past `MAX_OPEN_LOGS`, or with the store).
   */
  async function createLog(id: string, line: Buffer): Promise<void> {
    const path = logPath(id)
    // The header is written to a file of this call's own, then linked into
    // place: a link fails when the name is taken, so a log appears with its
    // header already in it, and of two processes creating one id exactly one
    // wins. (Creating the log itself with O_EXCL and writing the header next
    // left a moment when another process saw a log without a header, took it
    // for an aborted create, and wrote its own header too.)
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    const fd = await createForAppend(temp, directoryReady)
    directoryReady = true
    try {
      await appendAll(fd, line)
      if (fsync)
        await syncData(fd)
      await link(temp, path)
    }
    catch (error) {
      await closeFd(fd).catch(() => {})
      if (errorCode(error) !== 'EEXIST')
        throw error
      await createOverAbortedLog(path, id, line)
      return
    }
    finally {
      await rm(temp, { force: true })
    }
    if (fsync)
      await syncDirectory(dir)
    keepLog(id, { fd, runs: new Set(), createdSize: line.length })
  }

  /** Open a new log (`O_EXCL`) for appending, making the directory first unless it is known to exist (or has gone since). */
  async function createForAppend(path: string, known: boolean): Promise<number> {
    if (!known)
      await mkdir(dir, { recursive: true })
    try {
      return await openForAppend(path, 'new')
    }
    catch (error) {
      if (!known || errorCode(error) !== 'ENOENT')
        throw error
      await mkdir(dir, { recursive: true })
      return openForAppend(path, 'new')
    }
  }

  /** The log exists: a create that crashed before its header is started again; a real session is refused. */
  async function createOverAbortedLog(path: string, id: string, line: Buffer): Promise<void> {
    const handle = await reclaimAbortedCreate(path, id)
    try {
      await writeAt(handle, line, 0)
      if (fsync)
        await handle.sync()
    }
    finally {
      await handle.close()
    }
    if (fsync)
      await syncDirectory(dir)
  }

  /** A log with no complete header is a create that crashed half-way: start it again. */
  async function reclaimAbortedCreate(path: string, id: string): Promise<FileHandle> {
    const handle = await open(path, 'r+')
    try {
      const size = await regularFileSize(handle, id)
      if (await readFirstLine(handle, size) !== undefined)
        throw new SessionStoreError(`Session "${id}" already exists`, 'exists', { sessionId: id })
      await handle.truncate(0)
      return handle
    }
    catch (error) {
      await handle.close()
      throw error
    }
  }

  /**
   * Append one line (or, with `undefined`, only check that the session
   * exists). `run` is the run record being saved, if any: a log stays open
   * from a run's `running` record until the final records of every run that
   * started on it, and while it is open a line is one write in append mode.
   * A log not kept open takes the full path: open, check the header once,
   * find the committed end (cutting a torn tail), write there, close.
   */
  async function appendLine(id: string, line: Buffer | undefined, run?: SessionRun): Promise<void> {
    const kept = openLogs.get(id)
    if (kept) {
      // Out of the map while in use, so an eviction never closes a handle mid-write.
      openLogs.delete(id)
      if (kept.createdSize === undefined || unchangedSince(kept.fd, kept.createdSize)) {
        kept.createdSize = undefined
        await appendKept(id, kept, line, run)
        return
      }
      await closeFd(kept.fd).catch(() => {})
    }
    const { handle, size } = await openLog(id)
    try {
      const end = await committedEnd(handle, size)
      if (end === undefined)
        throw notFound(id)
      if (line !== undefined) {
        await writeAt(handle, line, end)
        if (fsync)
          await handle.datasync()
      }
    }
    finally {
      await handle.close()
    }
    if (run?.status === 'running')
      await keepOpen(id, run.id)
  }

  async function appendKept(id: string, kept: OpenLog, line: Buffer | undefined, run: SessionRun | undefined): Promise<void> {
    try {
      if (line !== undefined) {
        await appendAll(kept.fd, line)
        if (fsync)
          await syncData(kept.fd)
      }
    }
    catch (error) {
      // A failed write may leave a torn line; the full path cuts it on the next write.
      await closeFd(kept.fd).catch(() => {})
      throw error
    }
    if (run?.status === 'running')
      kept.runs.add(run.id)
    else if (run)
      kept.runs.delete(run.id)
    if (kept.runs.size > 0)
      keepLog(id, kept)
    else
      await closeFd(kept.fd)
  }

  /** Open the log again in append mode, without creating it (it may have been removed meanwhile), to keep it open. */
  async function keepOpen(id: string, runId: string): Promise<void> {
    let fd: number
    try {
      fd = await openForAppend(logPath(id))
    }
    catch {
      return
    }
    keepLog(id, { fd, runs: new Set([runId]) })
  }

  /** Open a session's log for writing, with its size, checking its header the first time this store writes to it. */
  async function openLog(id: string): Promise<{ handle: FileHandle, size: number }> {
    let handle: FileHandle
    try {
      // O_APPEND: a write lands at the log's real end, even when a writer in
      // another process (one naming no lease owner) appended after `committedEnd`
      // was found; a positional write there would overwrite its lines.
      handle = await open(logPath(id), fs.constants.O_RDWR | fs.constants.O_APPEND)
    }
    catch (error) {
      throw errorCode(error) === 'ENOENT' ? notFound(id) : error
    }
    try {
      const size = await regularFileSize(handle, id)
      if (!checkedHeaders.has(id)) {
        const header = await readFirstLine(handle, size)
        if (header === undefined)
          throw notFound(id)
        checkHeaderLine(header, id)
        checkedHeaders.add(id)
      }
      return { handle, size }
    }
    catch (error) {
      await handle.close()
      throw error
    }
  }

  /** Remember an open log, closing the least recently used one past the limit. */
  function keepLog(id: string, log: OpenLog): void {
    openLogs.set(id, log)
    if (openLogs.size <= MAX_OPEN_LOGS)
      return
    const [oldest, idle] = openLogs.entries().next().value as [string, OpenLog]
    openLogs.delete(oldest)
    void closeFd(idle.fd).catch(() => {})
  }

  /** Close a log kept open, if it is. */
  async function closeLog(id: string): Promise<void> {
    const kept = openLogs.get(id)
    openLogs.delete(id)
    if (kept)
      await closeFd(kept.fd)
  }

  /** Run a write to one session's log after the writes queued before it. */
  function queued<T>(id: string, action: string, write: () => Promise<T>): Promise<T> {
    return writes.run(logPath(id), async () => {
      try {
        return await write()
      }
      catch (error) {
        throw ioError(action, id, error)
      }
    })
  }

  /** A write that the session's lease must allow, checked in its turn in the queue. */
  function fenced(id: string, action: string, owner: string | undefined, write: () => Promise<void>): Promise<void> {
    return queued(id, action, async () => {
      leases.checkWrite(id, owner)
      await write()
    })
  }

  const store: SessionStore = {
    localPath: dir,
    async create(record: CreateSessionRecord) {
      const id = sessionIdFor(record.id)
      // Serialized now, so a caller changing `metadata` afterwards changes nothing.
      const line = headerLine(id, record.createdAt, record.metadata, Date.now())
      const bytes = lineBytes(line, id)
      await queued(id, 'create', () => createLog(id, bytes))
      checkedHeaders.add(id)
      const header = JSON.parse(line) as { createdAt: number, metadata?: Record<string, unknown>, at: number, v: number }
      const data: SessionData = { version: header.v, id, createdAt: header.createdAt, updatedAt: header.at, turns: [], runs: [] }
      if (header.metadata !== undefined)
        data.metadata = header.metadata
      return data
    },

    async load(id: string, loadOptions?: SessionLoadOptions) {
      assertSessionId(id)
      const path = logPath(id)
      let handle: FileHandle
      try {
        handle = await open(path, READ_FLAGS)
      }
      catch (error) {
        if (errorCode(error) === 'ENOENT')
          return undefined
        throw ioError('read', id, error)
      }
      try {
        const size = await regularFileSize(handle, id)
        if (size > maxLogBytes) {
          throw new SessionStoreError(
            `Session log "${id}" (${path}) is ${groupDigits(size)} bytes, over the ${groupDigits(maxLogBytes)} a load reads (maxLogBytes); `
            + 'raise maxLogBytes of createFileStore if the session is meant to be this large, '
            + 'else move the log out of the store\'s directory (it is plain JSONL: its first line is the header, each later line a record)',
            'io',
            { sessionId: id },
          )
        }
        const replay = logReplay(id, loadOptions)
        await forEachLine(handle, size, replay.line)
        return replay.result()
      }
      catch (error) {
        throw ioError('read', id, error)
      }
      finally {
        await handle.close().catch(() => {})
      }
    },

    async appendTurns(id: string, turns: readonly SessionTurn[], write?: SessionWriteOptions) {
      assertSessionId(id)
      const line = turns.length === 0 ? undefined : lineBytes(turnsLine(id, turns, Date.now()), id)
      await fenced(id, 'append to', write?.owner, () => appendLine(id, line))
    },

    async saveRun(id: string, run: SessionRun, write?: SessionWriteOptions) {
      assertSessionId(id)
      const line = lineBytes(runLine(id, run, Date.now()), id)
      await fenced(id, 'save a run on', write?.owner, () => appendLine(id, line, run))
    },

    async appendTurnsAndRun(id: string, turns: readonly SessionTurn[], run: SessionRun, write?: SessionWriteOptions) {
      assertSessionId(id)
      const at = Date.now()
      // Two records, one write, turns first: a torn tail never keeps the record without its turns.
      const runBytes = lineBytes(runLine(id, run, at), id)
      const lines = turns.length === 0 ? runBytes : Buffer.concat([lineBytes(turnsLine(id, turns, at), id), runBytes])
      await fenced(id, 'append to', write?.owner, () => appendLine(id, lines, run))
    },

    async acquireLease(id, owner, ttlMs, origin) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      return queued(id, 'lease', () => leases.acquire(id, owner, ttlMs, origin))
    },

    async renewLease(id, owner, ttlMs) {
      assertSessionId(id)
      assertLeaseRequest(owner, ttlMs)
      return queued(id, 'renew the lease of', () => leases.renew(id, owner, ttlMs))
    },

    async releaseLease(id, owner) {
      assertSessionId(id)
      await queued(id, 'release the lease of', () => leases.release(id, owner))
    },

    async delete(id: string) {
      assertSessionId(id)
      await queued(id, 'delete', async () => {
        await closeLog(id)
        await rm(logPath(id), { force: true })
        await leases.remove(id)
        checkedHeaders.delete(id)
      })
    },

    async list() {
      let names: string[]
      try {
        names = await readdir(dir)
      }
      catch (error) {
        if (errorCode(error) === 'ENOENT')
          return []
        throw ioError('list sessions in', undefined, error)
      }
      return names
        .filter(name => name.endsWith(LOG_SUFFIX))
        .map(name => name.slice(0, -LOG_SUFFIX.length))
        .filter(isValidSessionId)
    },

    async close() {
      await Promise.all(Array.from(openLogs.keys(), id => queued(id, 'close', () => closeLog(id))))
    },
  }
  dropped.register(store, openLogs)
  return checksItsLoads(store)
}

/** Whether the log behind `fd` still has the size this store left it at (one system call; a failure counts as changed). */
function unchangedSince(fd: number, size: number): boolean {
  try {
    return fs.fstatSync(fd).size === size
  }
  catch {
    return false
  }
}

/** A line's bytes, once checked to be loadable again (`assertWritableLine`). */
function lineBytes(line: string, id: string): Buffer {
  const bytes = Buffer.from(line)
  assertWritableLine(bytes, id)
  return bytes
}

/**
 * The size of an open log, which must be a regular file: reading a FIFO, a
 * socket or a device put where a log belongs (by hand, or by someone who may
 * write to the directory) could wait for ever or never end.
 */
async function regularFileSize(handle: FileHandle, id: string): Promise<number> {
  const stats = await handle.stat()
  if (stats.isFile())
    return stats.size
  const kind = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device'
  throw new SessionStoreError(
    `Session log "${id}" is ${kind}, not a regular file; a file store reads only regular files: move it out of the store's directory`,
    'io',
    { sessionId: id },
  )
}

function notFound(id: string): SessionStoreError {
  return new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}
