/**
 * The file store: one append-only JSONL log per session, `<dir>/<id>.jsonl`
 * (format in `jsonl-log.ts`). Persisting a turn appends one line and never
 * rewrites earlier bytes, so it costs the same at turn 10 and turn 10,000.
 *
 * Writes to one session are serialized through a promise chain per file,
 * shared by every file store of this process, so lines never interleave.
 * One process writes a session at a time; two processes appending to the
 * same log are not coordinated.
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
import type { CreateSessionRecord, SessionData, SessionLoadOptions, SessionRun, SessionStore } from '../types'
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { SessionStoreError } from '../../errors'
import { checkHeaderLine, headerLine, replayLog, runLine, turnsLine } from './jsonl-log'
import { createKeyedQueue } from './keyed-queue'
import { committedEnd, readFirstLine, writeAt } from './log-file'
import { ioError } from './records'
import { assertSessionId, isValidSessionId, sessionIdFor } from './session-id'

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
}

const LOG_SUFFIX = '.jsonl'

// Module-wide so two stores opened on the same directory still take turns.
const writes = createKeyedQueue()

/** A session store of append-only JSONL files, one per session, written in O(1) per turn. */
export function createFileStore(options: FileStoreOptions): SessionStore {
  const dir = resolve(options.dir)
  const fsync = options.durability === 'fsync'
  // Sessions whose header this store has already read (version checked).
  const checkedHeaders = new Set<string>()
  const logPath = (id: string) => join(dir, `${id}${LOG_SUFFIX}`)

  async function createLog(id: string, line: string): Promise<void> {
    const path = logPath(id)
    await mkdir(dir, { recursive: true })
    let handle: FileHandle
    try {
      handle = await open(path, 'wx')
    }
    catch (error) {
      if (errorCode(error) !== 'EEXIST')
        throw error
      handle = await reclaimAbortedCreate(path, id)
    }
    try {
      await writeAt(handle, Buffer.from(line), 0)
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
      if (await readFirstLine(handle) !== undefined)
        throw new SessionStoreError(`Session "${id}" already exists`, 'exists', { sessionId: id })
      await handle.truncate(0)
      return handle
    }
    catch (error) {
      await handle.close()
      throw error
    }
  }

  /** Append one line (or, with `undefined`, only check that the session exists). */
  async function appendLine(id: string, line: string | undefined): Promise<void> {
    let handle: FileHandle
    try {
      handle = await open(logPath(id), 'r+')
    }
    catch (error) {
      throw errorCode(error) === 'ENOENT' ? notFound(id) : error
    }
    try {
      if (!checkedHeaders.has(id)) {
        const header = await readFirstLine(handle)
        if (header === undefined)
          throw notFound(id)
        checkHeaderLine(header, id)
        checkedHeaders.add(id)
      }
      const end = await committedEnd(handle)
      if (end === undefined)
        throw notFound(id)
      if (line !== undefined) {
        await writeAt(handle, Buffer.from(line), end)
        if (fsync)
          await handle.datasync()
      }
    }
    finally {
      await handle.close()
    }
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

  return {
    async create(record: CreateSessionRecord) {
      const id = sessionIdFor(record.id)
      // Serialized now, so a caller changing `metadata` afterwards changes nothing.
      const line = headerLine(id, record.createdAt, record.metadata, Date.now())
      await queued(id, 'create', () => createLog(id, line))
      checkedHeaders.add(id)
      const header = JSON.parse(line) as { createdAt: number, metadata?: Record<string, unknown>, at: number, v: number }
      const data: SessionData = { version: header.v, id, createdAt: header.createdAt, updatedAt: header.at, turns: [], runs: [] }
      if (header.metadata !== undefined)
        data.metadata = header.metadata
      return data
    },

    async load(id: string, loadOptions?: SessionLoadOptions) {
      assertSessionId(id)
      let bytes: Buffer
      try {
        bytes = await readFile(logPath(id))
      }
      catch (error) {
        if (errorCode(error) === 'ENOENT')
          return undefined
        throw ioError('read', id, error)
      }
      return replayLog(bytes, id, loadOptions)
    },

    async appendTurns(id: string, turns: readonly SessionTurn[]) {
      assertSessionId(id)
      const line = turns.length === 0 ? undefined : turnsLine(turns, Date.now())
      await queued(id, 'append to', () => appendLine(id, line))
    },

    async saveRun(id: string, run: SessionRun) {
      assertSessionId(id)
      const line = runLine(run, Date.now())
      await queued(id, 'save a run on', () => appendLine(id, line))
    },

    async delete(id: string) {
      assertSessionId(id)
      await queued(id, 'delete', async () => {
        await rm(logPath(id), { force: true })
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
  }
}

/** Make a newly created file's directory entry durable too (not possible on every platform). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  }
  catch {
    // Windows and some file systems cannot sync a directory; the file itself was synced.
  }
  finally {
    await handle?.close()
  }
}

function notFound(id: string): SessionStoreError {
  return new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}
