/**
 * The file store's session leases: `<dir>/<id>.lease`, one small JSON record
 * (owner, expiry, pid, hostname), never changed in place, so a reader never
 * sees half of one: it is written to a temporary file first, then linked
 * into place when there is no record (`link` fails if one exists, so of two
 * creators exactly one wins), or renamed over the record to change it.
 *
 * Release moves the record aside, to `<id>.lease.last`, so the session has no
 * record and the next acquire is a plain exclusive create again; that next
 * acquire reads the last owner from there (`SessionLease.previousOwner`) and
 * removes it. A run therefore costs one record linked into place and one
 * rename to a free name, never a rename over an existing file, which some
 * file systems make expensive (ext4 starts writing the new file out first).
 *
 * Changing an existing record is a read-decide-write that two processes
 * could race, so it runs under a lock file, `<id>.lease.lock`, created with
 * `O_EXCL` (only one process can create it) and removed when done. A lock
 * left by a process that died inside that short step is broken when its pid
 * is dead on this host, or when it is older than `STALE_LOCK_MS` (two
 * processes breaking the same stale lock at once could both proceed; that
 * needs a crash inside the step first, and is the one case the lock does not
 * cover).
 *
 * Checking a write costs one `stat` of the record: while its inode, mtime and
 * size are those this process last saw, the parsed record is reused.
 */

import type { BigIntStats } from 'node:fs'
import type { SessionLease } from '../../errors'
import type { SessionLeaseOrigin } from './lease'
import { closeSync, constants, fstatSync, fsyncSync, linkSync, openSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { mergeObjects } from '../../core/merge-objects'
import { delay } from '../../core/timer'
import { SessionStoreError } from '../../errors'
import { checkWriter, deadOnThisHost, extendLease, grantLease, parseLease, processIsGone, releasedLease, thisProcess } from './lease'
import { sessionFileNamer } from './session-id'

/** A lock older than this is taken to be left by a crash (the step it guards takes microseconds). */
const STALE_LOCK_MS = 10_000
/** How long a lease change waits for the lock before failing. */
const LOCK_WAIT_MS = STALE_LOCK_MS + 5_000

export interface FileLeases {
  acquire: (id: string, owner: string, ttlMs: number, origin?: SessionLeaseOrigin) => Promise<SessionLease>
  renew: (id: string, owner: string, ttlMs: number) => Promise<SessionLease>
  release: (id: string, owner: string) => Promise<void>
  /** Throw `SessionLeaseError` unless a write by `owner` (or by no owner) may go ahead now. Synchronous: one `stat`. */
  checkWrite: (id: string, owner: string | undefined) => void
  /** Remove the record and the last owner's note (the session is being deleted). */
  remove: (id: string) => Promise<void>
}

/** A parsed record and the file identity it was read from. */
interface Seen {
  key: string
  lease: SessionLease | undefined
}

export function createFileLeases(dir: string, fsync: boolean): FileLeases {
  const seen = new Map<string, Seen>()
  // Leases this process wrote and still holds: while one is far from expiry,
  // nobody can have taken it over (a takeover waits for expiry, or for a dead
  // holder), so its owner's writes skip the file check.
  const held = new Map<string, { owner: string, trustedUntil: number }>()
  const sessionFile = sessionFileNamer(dir)
  const leasePath = (id: string) => sessionFile(id, '.lease')
  const lastOwnerPath = (id: string) => sessionFile(id, '.lease.last')

  /** The current record, read through the cache; `undefined` when there is none. */
  function current(id: string): SessionLease | undefined {
    const path = leasePath(id)
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false })
    if (!stats) {
      seen.delete(id)
      return undefined
    }
    const key = identity(stats)
    const cached = seen.get(id)
    if (cached?.key === key)
      return cached.lease
    let text: string
    try {
      text = readLeaseFile(path, id)
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return undefined
      throw error
    }
    const lease = parseLease(id, text)
    seen.set(id, { key, lease })
    return lease
  }

  /**
   * Put a new record in place: written to a temporary file, then linked into
   * place when `create` (only if there is no record yet: `false` when another
   * process created one first), or renamed over the record. A few hundred
   * bytes: written synchronously, which costs a run far less than a round
   * trip through the thread pool per step. The record is not read back: the
   * file's identity is taken from the open file, and `link` or `rename`
   * keeps it.
   */
  async function write(id: string, lease: SessionLease, create: boolean): Promise<boolean> {
    const path = leasePath(id)
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    const { sessionId: _, previousOwner: __, ...record } = lease
    const fd = openSync(temp, 'wx')
    let key: string
    try {
      writeFileSync(fd, `${JSON.stringify(record)}\n`)
      if (fsync)
        fsyncSync(fd)
      key = identity(fstatSync(fd, { bigint: true }))
    }
    catch (error) {
      closeSync(fd)
      rmSync(temp, { force: true })
      throw error
    }
    closeSync(fd)
    try {
      if (create)
        linkSync(temp, path)
      else
        renameSync(temp, path)
    }
    catch (error) {
      rmSync(temp, { force: true })
      if (create && (error as NodeJS.ErrnoException).code === 'EEXIST')
        return false
      throw error
    }
    if (create)
      unlinkSync(temp)
    if (fsync)
      await syncDirectory(dir)
    // The owner's next write check then costs only its stat.
    seen.set(id, { key, lease: publicRecord(lease) })
    return true
  }

  /**
   * A record just created where there was none: the owner who released the
   * session last, if another, is its `previousOwner`. Their note is removed,
   * so the next release moves the record to a free name. A note that does
   * not parse names nobody, as a broken lease record does.
   */
  function withLastOwner(id: string, lease: SessionLease): SessionLease {
    const path = lastOwnerPath(id)
    // A `stat` first: a new session has no note, and a failed read costs several times a `stat`.
    if (!statSync(path, { throwIfNoEntry: false }))
      return lease
    let text: string
    try {
      text = readLeaseFile(path, id)
      rmSync(path, { force: true })
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return lease
      // Not knowing who wrote last, the caller could not tell whether to reload: the new record goes too.
      seen.delete(id)
      rmSync(leasePath(id), { force: true })
      throw error
    }
    const last = parseLease(id, text)
    return last && last.owner !== lease.owner ? mergeObjects(lease, { previousOwner: last.owner }) : lease
  }

  /** Whether this process wrote the lease `owner` holds and it is still far from expiry. */
  function trusted(id: string, owner: string): boolean {
    const lease = held.get(id)
    return lease?.owner === owner && Date.now() < lease.trustedUntil
  }

  function exists(id: string): void {
    if (!statSync(sessionFile(id, '.jsonl'), { throwIfNoEntry: false }))
      throw new SessionStoreError(`No session "${id}" in this store`, 'not_found', { sessionId: id })
  }

  /** Run a read-decide-write of one record with the lock held. */
  async function locked<T>(id: string, change: () => Promise<T>): Promise<T> {
    const lock = `${leasePath(id)}.lock`
    const deadline = Date.now() + LOCK_WAIT_MS
    for (let attempt = 0; ; attempt++) {
      if (takeLock(lock))
        break
      if (isStaleLock(lock)) {
        rmSync(lock, { force: true })
        continue
      }
      if (Date.now() > deadline)
        throw new SessionStoreError(`The lease lock of session "${id}" stayed taken for ${LOCK_WAIT_MS} ms`, 'io', { sessionId: id })
      await delay(Math.min(50, 2 + attempt * 2))
    }
    try {
      return await change()
    }
    finally {
      rmSync(lock, { force: true })
    }
  }

  /**
   * Remember a lease this process just wrote for itself. It is trusted for
   * two thirds of its time to live: the last third covers clocks of other
   * hosts running ahead of this one, and a process that stalls past that
   * point checks the file again on its next write.
   */
  function trust(id: string, owner: string, now: number, ttlMs: number, origin: SessionLeaseOrigin): void {
    if (origin.pid === process.pid && origin.hostname === thisProcess().hostname)
      held.set(id, { owner, trustedUntil: now + Math.floor((ttlMs * 2) / 3) })
  }

  return {
    async acquire(id, owner, ttlMs, origin = thisProcess()) {
      exists(id)
      // No record (a new session, or one released since): it is created in
      // one atomic step, no lock needed; when another process has a record
      // in place, the lock decides.
      const now = Date.now()
      const fresh = grantLease(id, undefined, owner, ttlMs, origin, now, deadOnThisHost)
      if (await write(id, fresh, true)) {
        const lease = withLastOwner(id, fresh)
        trust(id, owner, now, ttlMs, origin)
        return lease
      }
      return locked(id, async () => {
        const now = Date.now()
        const found = current(id)
        let lease = grantLease(id, found, owner, ttlMs, origin, now, deadOnThisHost)
        if (found) {
          await write(id, lease, false)
        }
        // No record (released meanwhile): created only if still none, so a lockless creator is never overwritten.
        else if (await write(id, lease, true)) {
          lease = withLastOwner(id, lease)
        }
        else {
          lease = grantLease(id, current(id), owner, ttlMs, origin, now, deadOnThisHost)
          await write(id, lease, false)
        }
        trust(id, owner, now, ttlMs, origin)
        return lease
      })
    },
    // While this process's own lease is far from expiry nobody else may
    // change the record (a takeover waits for expiry), so its holder renews
    // and releases without the lock.
    renew(id, owner, ttlMs) {
      const change = async () => {
        const now = Date.now()
        held.delete(id)
        const lease = extendLease(id, current(id), owner, ttlMs, now)
        await write(id, lease, false)
        trust(id, owner, now, ttlMs, thisProcess())
        return lease
      }
      return trusted(id, owner) ? change() : locked(id, change)
    },
    // The record moves aside whole, still naming its owner, for the next acquire to read.
    release(id, owner) {
      const change = async () => {
        held.delete(id)
        if (!releasedLease(current(id), owner))
          return
        seen.delete(id)
        renameSync(leasePath(id), lastOwnerPath(id))
        if (fsync)
          await syncDirectory(dir)
      }
      return trusted(id, owner) ? change() : locked(id, change)
    },
    checkWrite: (id, owner) => {
      if (owner !== undefined && trusted(id, owner))
        return
      checkWriter(id, current(id), owner, Date.now(), deadOnThisHost)
    },
    async remove(id) {
      held.delete(id)
      seen.delete(id)
      rmSync(leasePath(id), { force: true })
      rmSync(lastOwnerPath(id), { force: true })
    },
  }
}

/** What tells one version of a record from another: inode, mtime and size. */
function identity(stats: BigIntStats): string {
  return `${stats.ino}:${stats.mtimeNs}:${stats.size}`
}

/** A lease as the record holds it (the record never names a previous owner). */
function publicRecord(lease: SessionLease): SessionLease {
  const { previousOwner: _, ...record } = lease
  return record
}

/** Create the lock file holding this process's identity; `false` when another holds it. */
function takeLock(lock: string): boolean {
  let fd: number
  try {
    fd = openSync(lock, 'wx')
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return false
    throw error
  }
  try {
    writeFileSync(fd, JSON.stringify(thisProcess()))
  }
  finally {
    closeSync(fd)
  }
  return true
}

function isStaleLock(lock: string): boolean {
  let text: string
  let modified: number
  try {
    modified = statSync(lock).mtimeMs
    text = readLeaseFile(lock)
  }
  catch (error) {
    // Gone already: the holder finished, try again at once.
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
  if (Date.now() - modified > STALE_LOCK_MS)
    return true
  try {
    const origin = JSON.parse(text) as { pid?: unknown, hostname?: unknown }
    return typeof origin.pid === 'number' && typeof origin.hostname === 'string' && processIsGone({ pid: origin.pid, hostname: origin.hostname })
  }
  catch {
    // Not written yet: its creator is between creating and filling it.
    return false
  }
}

/** Make a renamed file's directory entry durable too (not possible on every platform). */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r')
    try {
      await handle.sync()
    }
    finally {
      await handle.close()
    }
  }
  catch {
    // Windows and some file systems cannot sync a directory.
  }
}

/** A lease record is a few hundred bytes; anything longer is not one (and is not read whole). */
const MAX_LEASE_FILE_BYTES = 64 * 1024

/**
 * A lease file's text, read without blocking: a FIFO, socket or device put
 * under a lease file's name (as under a log's) is `io` at once instead of a
 * `readFileSync` that blocks the whole event loop for ever, and a huge file
 * reads as its first `MAX_LEASE_FILE_BYTES` (which `parseLease` then refuses
 * as no record).
 */
function readLeaseFile(path: string, id?: string): string {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) {
      throw new SessionStoreError(
        `${path} is not a regular file; a file store reads only regular files: move it out of the store's directory`,
        'io',
        { sessionId: id },
      )
    }
    const bytes = Buffer.alloc(Math.min(stats.size, MAX_LEASE_FILE_BYTES))
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0)
        break
      read += n
    }
    return bytes.subarray(0, read).toString('utf8')
  }
  finally {
    closeSync(fd)
  }
}
